package local

import (
	"fmt"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// TestKeyPoints: anyInt and anyText say whether a key lies in [lo, hi],
// bounds included, as a scan of the keys says (random keys and ranges,
// negative integers and text of shared prefixes among them); the points
// are not made for a large side without statistics, a composite key, or
// more keys than the memory budget's sixteenth holds.
func TestKeyPoints(t *testing.T) {
	r := testutil.Rand(testutil.Seed(t))
	const limit = 4 << 20
	for round := range 200 {
		n := 1 + r.IntN(50)
		var ints []int64
		var strs []string
		var kb [][]byte
		for range n {
			v := r.Int64N(2000) - 1000
			if round%7 == 0 {
				v = r.Int64() // the whole range, signs mixed
			}
			ints = append(ints, v)
			b := make([]byte, 8)
			key.PutInt(b, v)
			kb = append(kb, b)
		}
		p := makeKeyPoints(keylist.Of(kb), key.Int, limit)
		if p == nil {
			t.Fatal("no points for integer keys")
		}
		for range 200 {
			lo := r.Int64N(2400) - 1200
			hi := lo + r.Int64N(300)
			if round%7 == 0 {
				lo, hi = ints[r.IntN(n)], ints[r.IntN(n)]
				if lo > hi {
					lo, hi = hi, lo
				}
			}
			want := false
			for _, v := range ints {
				want = want || lo <= v && v <= hi
			}
			if got := p.anyInt(lo, hi); got != want {
				t.Fatalf("keys %v: anyInt(%d, %d) = %v, want %v", ints, lo, hi, got, want)
			}
		}
		kb = kb[:0]
		for range n {
			s := fmt.Sprintf("%c%d", 'a'+r.IntN(3), r.IntN(100))
			strs = append(strs, s)
			kb = append(kb, []byte(s))
		}
		p = makeKeyPoints(keylist.Of(kb), key.String, limit)
		for range 200 {
			lo, hi := fmt.Sprintf("%c%d", 'a'+r.IntN(3), r.IntN(100)), fmt.Sprintf("%c%d", 'a'+r.IntN(3), r.IntN(100))
			if lo > hi {
				lo, hi = hi, lo
			}
			want := false
			for _, s := range strs {
				want = want || lo <= s && s <= hi
			}
			if got := p.anyText([]byte(lo), []byte(hi)); got != want {
				t.Fatalf("keys %v: anyText(%q, %q) = %v, want %v", strs, lo, hi, got, want)
			}
		}
	}
	// Not made: a large side without statistics, a composite key, too
	// many keys for the limit.
	one := keylist.Of([][]byte{make([]byte, 8)})
	lo, hi := make([]byte, 8), make([]byte, 8)
	key.PutInt(lo, -10)
	key.PutInt(hi, 10)
	opt := join.Options{Resources: join.Resources{MemBudget: 64 << 20}}
	if p := (&execution{opt: opt, input: &source.Side{}, joinSpec: key.Spec{Cols: []int{0}, Types: []key.Type{key.Int}}}).newKeyPoints(one, lo, hi); p != nil {
		t.Error("points for a large side without statistics")
	}
	if p := (&execution{opt: opt, input: &source.Side{Tab: &columnar.Table{}}, joinSpec: key.Spec{Cols: []int{0, 1}, Types: []key.Type{key.Int, key.Int}}}).newKeyPoints(one, lo, hi); p != nil {
		t.Error("points for a composite key")
	}
	many := make([][]byte, 101)
	for i := range many {
		many[i] = make([]byte, 8)
	}
	if p := makeKeyPoints(keylist.Of(many), key.Int, 8*100); p != nil {
		t.Error("points for 101 keys in room for 100")
	}
	if p := makeKeyPoints(keylist.Of(many[:100]), key.Int, 8*100); p == nil {
		t.Error("no points for 100 keys in room for 100")
	}
	if p := makeKeyPoints(one, key.Auto, limit); p != nil {
		t.Error("points for a key of no type")
	}
}

// TestSortUint64s: sortUint64s orders as slices.Sort does, on values
// that differ in every byte, in a few low bytes only (the skipped passes),
// in one byte only, all equal, with duplicates, at lengths around its
// 256-value switch and an odd number of passes (the copy back).
func TestSortUint64s(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	gens := map[string]func() uint64{
		"any":       rng.Uint64,
		"low3":      func() uint64 { return 0x8000_0000_0000_0000 | rng.Uint64()&0xff_ffff },
		"byte5":     func() uint64 { return rng.Uint64() & 0xff_0000_0000 },
		"equal":     func() uint64 { return 42 },
		"duplicate": func() uint64 { return rng.Uint64() % 50 },
		"low1":      func() uint64 { return 1<<40 | rng.Uint64()&0xff },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 255, 256, 257, 1000, 100_000} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = gen()
			}
			want := slices.Clone(a)
			slices.Sort(want)
			sortUint64s(a)
			if !slices.Equal(a, want) {
				t.Fatalf("%s, %d values: not sorted as slices.Sort sorts them", name, n)
			}
		}
	}
}

// BenchmarkSortUint64s: a million patent-like keys (key.Of's order: the
// sign bit set, 22 low bits varying), the radix sort against
// slices.Sort.
func BenchmarkSortUint64s(b *testing.B) {
	rng := testutil.Rand(1)
	keys := make([]uint64, 1_000_000)
	for i := range keys {
		keys[i] = 1<<63 | 3_000_000 + rng.Uint64()%3_000_000
	}
	a := make([]uint64, len(keys))
	for _, c := range []struct {
		name string
		sort func([]uint64)
	}{{"radix", sortUint64s}, {"slices.Sort", slices.Sort[[]uint64]}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				copy(a, keys)
				c.sort(a)
			}
		})
	}
}

// TestKeyBuckets: where the keys are too many for points, the buckets
// never rule out a range that holds a key (random integer and text keys,
// signs mixed, text of a long shared prefix, ranges crossing the keys'
// bounds), and they do rule out a range between two clusters of keys
// (their point: a file clustered by its key, many keys in a few places).
func TestKeyBuckets(t *testing.T) {
	r := testutil.Rand(testutil.Seed(t))
	intKey := func(v int64) []byte { b := make([]byte, 8); key.PutInt(b, v); return b }
	for round := range 100 {
		n := 1 + r.IntN(3000)
		var ints []int64
		kb := make([][]byte, 0, n)
		for range n {
			v := r.Int64N(1_000_000) - 500_000
			switch round % 4 {
			case 1:
				v = r.Int64() // the whole range, signs mixed
			case 2:
				v = 1_000_000_000 + r.Int64N(300) // a narrow range: shift 0
			}
			ints = append(ints, v)
			kb = append(kb, intKey(v))
		}
		lo, hi := slices.Min(ints), slices.Max(ints)
		b := makeKeyBuckets(keylist.Of(kb), key.Int, intKey(lo), intKey(hi))
		if b == nil {
			t.Fatal("no buckets for integer keys")
		}
		p := &keyPoints{b: b}
		for range 300 {
			a := ints[r.IntN(n)] + r.Int64N(2001) - 1000
			z := a + r.Int64N(50_000)
			if r.IntN(10) == 0 {
				a, z = lo-r.Int64N(100), hi+r.Int64N(100) // past the bounds
			}
			if a > z {
				continue
			}
			want := false
			for _, v := range ints {
				want = want || a <= v && v <= z
			}
			if want && !p.anyInt(a, z) {
				t.Fatalf("round %d: a key lies in [%d, %d], the buckets say none", round, a, z)
			}
		}
		var strs []string
		kb = kb[:0]
		prefix := ""
		if round%2 == 1 {
			prefix = "country/US/state/" // shared by every key: the buckets start after it
		}
		for range n {
			s := fmt.Sprintf("%s%c%c%d", prefix, 'a'+r.IntN(26), 'a'+r.IntN(26), r.IntN(1000))
			if r.IntN(50) == 0 {
				s = prefix[:len(prefix)/2*(round%2)] // a short key, a prefix of the others
			}
			strs = append(strs, s)
			kb = append(kb, []byte(s))
		}
		slo, shi := slices.Min(strs), slices.Max(strs)
		b = makeKeyBuckets(keylist.Of(kb), key.String, []byte(slo), []byte(shi))
		p = &keyPoints{b: b}
		for range 300 {
			a := strs[r.IntN(n)]
			z := a + "~"
			if r.IntN(3) == 0 {
				z = strs[r.IntN(n)]
			}
			if r.IntN(10) == 0 {
				a, z = "", shi+"z"
			}
			if a > z {
				a, z = z, a
			}
			want := false
			for _, s := range strs {
				want = want || a <= s && s <= z
			}
			if want && !p.anyText([]byte(a), []byte(z)) {
				t.Fatalf("round %d: a key lies in [%q, %q], the buckets say none", round, a, z)
			}
		}
	}
	// Two clusters of 10,000 keys each, far apart: a range between them
	// holds none, and the buckets say so; one over a cluster holds some.
	var kb [][]byte
	for i := range int64(10_000) {
		kb = append(kb, intKey(3_000_000+i), intKey(5_000_000+i))
	}
	b := makeKeyBuckets(keylist.Of(kb), key.Int, intKey(3_000_000), intKey(5_009_999))
	if p := (&keyPoints{b: b}); p.anyInt(3_100_000, 4_900_000) || !p.anyInt(4_990_000, 5_000_100) || p.anyInt(6_000_000, 7_000_000) {
		t.Error("two integer clusters: the buckets do not tell the range between them from theirs")
	}
	kb = kb[:0]
	for i := range 10_000 {
		kb = append(kb, []byte(fmt.Sprintf("id/alpha/%05d", i)), []byte(fmt.Sprintf("id/omega/%05d", i)))
	}
	b = makeKeyBuckets(keylist.Of(kb), key.String, []byte("id/alpha/00000"), []byte("id/omega/09999"))
	if p := (&keyPoints{b: b}); p.anyText([]byte("id/beta"), []byte("id/kappa")) || !p.anyText([]byte("id/alpha/5"), []byte("id/alpha/6")) {
		t.Error("two text clusters: the buckets do not tell the range between them from theirs")
	}
}

// TestKeyPointsFallBackToBuckets: more keys than the budget's points hold
// get buckets, not nothing.
func TestKeyPointsFallBackToBuckets(t *testing.T) {
	many := make([][]byte, 300_000) // 2.4 MB of points: over the 64 KiB a 1 MiB budget gives them
	for i := range many {
		many[i] = make([]byte, 8)
		key.PutInt(many[i], int64(i))
	}
	if p := makeKeyPoints(keylist.Of(many), key.Int, maxKeyPointBytes(1<<20)); p != nil {
		t.Fatal("points for 300,000 keys in 64 KiB")
	}
	b := makeKeyBuckets(keylist.Of(many), key.Int, many[0], many[len(many)-1])
	if b == nil || !(&keyPoints{b: b}).anyInt(1000, 1000) {
		t.Fatal("no buckets, or a key's own range ruled out")
	}
}

// TestMergeBoundsEmptyKey: a worker whose keys were all "" (an empty
// string of a Parquet, Arrow or JSON lines side is a value) has bounds,
// and "" stays the key side's least key whichever worker finishes first:
// before, its nil bounds were taken for none, the other worker's least
// key became the side's, and row groups of "" rows were skipped
// (TestTableEmptyStringKey end to end).
func TestMergeBoundsEmptyKey(t *testing.T) {
	for _, emptyFirst := range []bool{true, false} {
		empty, other := &buildWorker{}, &buildWorker{}
		empty.boundStr([]byte(""))
		empty.boundStr([]byte(""))
		other.boundStr([]byte("k2"))
		other.boundStr([]byte("k1"))
		var st buildStats
		if emptyFirst {
			st.mergeBounds(empty)
			st.mergeBounds(other)
		} else {
			st.mergeBounds(other)
			st.mergeBounds(empty)
		}
		if st.lo == nil || len(st.lo) != 0 || string(st.hi) != "k2" {
			t.Errorf("empty key's worker first %v: bounds %q (nil %v) to %q, want \"\" to \"k2\"", emptyFirst, st.lo, st.lo == nil, st.hi)
		}
	}
	var st buildStats
	w := &buildWorker{}
	w.boundStr(nil)
	st.mergeBounds(w)
	if st.lo == nil || st.hi == nil {
		t.Error("a key side of the one key \"\" has no bounds")
	}
}
