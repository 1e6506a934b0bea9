package bank

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"
)

// mapSet is a KeySet over a map: the test's model of a class.
type mapSet map[string]bool

func (m mapSet) Len() int            { return len(m) }
func (m mapSet) Has(key []byte) bool { return m[string(key)] }
func (m mapSet) Keys() [][]byte {
	out := make([][]byte, 0, len(m))
	for k := range m {
		out = append(out, []byte(k))
	}
	return out
}

// randomClasses makes classes of random string keys (IMDb-like "tt" + 7
// digits), sizes from sizes; keys are distinct across classes.
func randomClasses(t *testing.T, seed uint64, sizes []int) []ClassKeys {
	t.Helper()
	r := testutil.Rand(seed)
	seen := map[string]bool{}
	var out []ClassKeys
	for i, n := range sizes {
		set := mapSet{}
		for len(set) < n {
			k := fmt.Sprintf("tt%07d%d", r.IntN(1e7), r.IntN(1e3))
			if !seen[k] {
				seen[k] = true
				set[k] = true
			}
		}
		out = append(out, ClassKeys{Label: fmt.Sprint(i + 1), Keys: set})
	}
	return out
}

func TestClassingRound(t *testing.T) {
	c, err := ParseClassing("round")
	testutil.Check(t, err)
	for _, tc := range []struct{ in, want string }{
		{"6.5", "7"}, {"6.49", "6"}, {"6.4999", "6"}, {"10.0", "10"}, {"1.0", "1"}, {"9.5", "10"},
		{"0.5", "1"}, {".5", "1"}, {"7", "7"}, {"7.", "7"}, {"+2.5", "3"}, {"-2.5", "-3"}, {"-0.4", "0"}, {"007.5", "8"},
	} {
		got, err := c.Label([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("round %q = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "x", "1e2", "NaN", "6,5", "--1", ".", "1.2.3", " 6"} {
		if got, err := c.Label([]byte(bad)); err == nil || !errors.Is(err, ErrClassing) {
			t.Errorf("round %q = %q, %v; want an ErrClassing", bad, got, err)
		}
	}
}

func TestClassingCutAndValue(t *testing.T) {
	c, err := ParseClassing("cut:1970,1980,1990")
	testutil.Check(t, err)
	if c.String() != "cut:1970,1980,1990" {
		t.Errorf("String = %q", c.String())
	}
	for _, tc := range []struct{ in, want string }{
		{"1963", "..1970"}, {"1970", "1970..1980"}, {"1979.99", "1970..1980"}, {"1980", "1980..1990"}, {"1999", "1990.."}, {"-5", "..1970"},
	} {
		if got, err := c.Label([]byte(tc.in)); err != nil || got != tc.want {
			t.Errorf("cut %q = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	sorted := []string{"1990..", "..1970", "1980..1990", "1970..1980"}
	slices.SortFunc(sorted, c.compareLabels)
	if strings.Join(sorted, " ") != "..1970 1970..1980 1980..1990 1990.." {
		t.Errorf("cut classes ordered %v", sorted)
	}
	for _, bad := range []string{"cut:", "cut:3,2", "cut:1,1", "cut:x", "cut:NaN", "bins", ""} {
		if _, err := ParseClassing(bad); err == nil {
			t.Errorf("ParseClassing(%q) accepted", bad)
		}
	}
	v, _ := ParseClassing("value")
	if got, _ := v.Label([]byte("JP")); got != "JP" {
		t.Errorf("value JP = %q", got)
	}
	if _, err := v.Label(nil); err == nil {
		t.Error("an empty value has a class")
	}
}

// TestValidateAgainstFormula is the seed's experiment at a smaller size:
// ten classes of very different sizes, Bloom filters at p = 0.01; every
// class's measured FP is near the formula for its own (m, k, n) (the
// classes' deviations judged together: testutil.Deviations), no false
// negative, and the trials are N - n_i.
func TestValidateAgainstFormula(t *testing.T) {
	seed := testutil.Seed(t)
	sizes := []int{300, 1500, 4000, 9000, 20000, 45000, 60000, 30000, 8000, 900}
	// Under the race detector, one of the kinds (the builds and the
	// validation run on the same goroutines for each).
	devs := testutil.NewDeviations(t, "measured FP against the formula")
	defer devs.Check()
	for _, kind := range testutil.RacePick([]filters.Kind{filters.Bloom, filters.CBF, filters.Blocked}, 1, seed) {
		classes := randomClasses(t, seed, sizes)
		c, _ := ParseClassing("round")
		b, err := Build(Meta{Kind: kind, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "tconst", ClassCol: "averageRating", KeyType: "string", Classing: c}, classes)
		testutil.Check(t, err)
		v, err := Validate(b, classes, 0)
		testutil.Check(t, err)
		total := 0
		for _, n := range sizes {
			total += n
		}
		if v.Keys != int64(total) {
			t.Errorf("%s: %d distinct keys, want %d", kind, v.Keys, total)
		}
		for i, r := range v.Classes {
			if r.Label != fmt.Sprint(i+1) {
				t.Fatalf("%s: class %d is %q: not in order", kind, i, r.Label)
			}
			if r.FN != 0 {
				t.Errorf("%s class %s: %d false negatives", kind, r.Label, r.FN)
			}
			if r.Trials != int64(total-r.N) {
				t.Errorf("%s class %s: %d trials, want N - n = %d", kind, r.Label, r.Trials, total-r.N)
			}
			// Against the formula where the sd holds the spread of fills;
			// else (blocked: a few blocks make a small filter's fill stray
			// far) against the filter's own fill rate, exactly binomial.
			z, against := r.Z, "formula"
			if !r.Spread {
				z, against = r.ZFill, "fill"
				if r.Fill == 0 {
					t.Errorf("%s: no fill rate", kind)
				}
			}
			devs.Add(z, "%s class %s (n=%d, m=%d, k=%d): measured %.5f, formula %.5f, fill %.5f: z against the %s", kind, r.Label, r.N, r.Bits, r.K, r.Measured, r.Formula, r.Fill, against)
			if kind != filters.Blocked && !r.Spread {
				t.Errorf("%s: no fill spread", kind)
			}
		}
	}
}

// TestValidateKeyInTwoClasses: a key of two classes is a member of both
// (never a false positive of either) and counted once.
func TestValidateKeyInTwoClasses(t *testing.T) {
	a := mapSet{"x": true, "shared": true}
	b := mapSet{"y": true, "shared": true}
	c := mapSet{"z": true}
	classes := []ClassKeys{{"1", a}, {"2", b}, {"3", c}}
	cl, _ := ParseClassing("value")
	bk, err := Build(Meta{Kind: filters.CBF, Sizing: filters.Sizing{BitsPerKey: 400}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
	testutil.Check(t, err)
	v, err := Validate(bk, classes, 2)
	testutil.Check(t, err)
	if v.Keys != 4 {
		t.Errorf("%d distinct keys, want 4", v.Keys)
	}
	want := map[string]int64{"1": 2, "2": 2, "3": 3}
	for _, r := range v.Classes {
		if r.Trials != want[r.Label] || r.Hits != 0 || r.FN != 0 {
			t.Errorf("class %s: %d hits / %d trials, %d FN; want 0 / %d, 0", r.Label, r.Hits, r.Trials, r.FN, want[r.Label])
		}
	}
}

func TestValidateRefusesOtherKeys(t *testing.T) {
	classes := randomClasses(t, 1, []int{50, 60})
	cl, _ := ParseClassing("value")
	b, err := Build(Meta{Kind: filters.Bloom, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
	testutil.Check(t, err)
	other := randomClasses(t, 2, []int{50, 60})
	if _, err := Validate(b, other, 0); err == nil || !errors.Is(err, ErrBank) || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("validate with other keys: %v", err)
	}
	fewer := randomClasses(t, 1, []int{50, 59})
	if _, err := Validate(b, fewer, 0); err == nil || !strings.Contains(err.Error(), "59") {
		t.Errorf("validate with a key fewer: %v", err)
	}
	extra := append(randomClasses(t, 1, []int{50, 60}), ClassKeys{"9", mapSet{"q": true}})
	if _, err := Validate(b, extra, 0); err == nil || !strings.Contains(err.Error(), `"9"`) {
		t.Errorf("validate with a class the bank lacks: %v", err)
	}
}

// TestApplyEqualsRebuild swaps keys between classes (and chains a key's
// moves) and compares the bank with its classes rebuilt from the moved
// sets at the bank's sizes: byte for byte for cbf and acbf, in counts,
// fingerprints and membership for cuckoo.
func TestApplyEqualsRebuild(t *testing.T) {
	seed := testutil.Seed(t)
	for _, kind := range []filters.Kind{filters.CBF, filters.ACBF, filters.Cuckoo} {
		classes := randomClasses(t, seed, []int{2000, 3000, 1000})
		cl, _ := ParseClassing("round")
		meta := Meta{Kind: kind, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}
		b, err := Build(meta, classes)
		testutil.Check(t, err)
		orig := make([]filters.Built, len(b.Classes))
		for i, c := range b.Classes {
			orig[i] = *c.Built
		}
		r := testutil.Rand(seed + 1)
		var moves []Move
		take := func(c int) string {
			for k := range classes[c].Keys.(mapSet) {
				delete(classes[c].Keys.(mapSet), k)
				return k
			}
			panic("empty class")
		}
		put := func(c int, k string) { classes[c].Keys.(mapSet)[k] = true }
		mv := func(k string, from, to int) {
			moves = append(moves, Move{Key: []byte(k), Text: k, From: fmt.Sprint(from + 1), To: fmt.Sprint(to + 1), Line: int64(len(moves) + 1)})
		}
		for range 250 { // swaps: a from x to y, b from y to x
			x := r.IntN(3)
			y := (x + 1 + r.IntN(2)) % 3
			a, bk := take(x), take(y)
			put(y, a)
			put(x, bk)
			mv(a, x, y)
			mv(bk, y, x)
		}
		a, c := take(0), take(2) // a chain: a 1 -> 2 -> 3, c 3 -> 1
		put(2, a)
		put(0, c)
		mv(a, 0, 1)
		mv(c, 2, 0)
		mv(a, 1, 2)
		back := take(1) // there and back: nothing to do
		put(1, back)
		mv(back, 1, 0)
		mv(back, 0, 1)
		// A key taken twice chains; the model's answer: keys whose last
		// class differs from their first.
		first, last := map[string]string{}, map[string]string{}
		for _, m := range moves {
			if _, ok := first[string(m.Key)]; !ok {
				first[string(m.Key)] = m.From
			}
			last[string(m.Key)] = m.To
		}
		wantMoved := 0
		for k := range first {
			if first[k] != last[k] {
				wantMoved++
			}
		}
		st, err := b.Apply(moves, "moves.csv")
		testutil.Check(t, err)
		if st.Moved != wantMoved || st.Unchanged != len(first)-wantMoved || st.Unchanged == 0 {
			t.Errorf("%s: %+v, want %d moved, %d unchanged", kind, st, wantMoved, len(first)-wantMoved)
		}
		for i, cls := range b.Classes {
			keys := classes[i].Keys.Keys()
			if cls.Built.N != len(keys) || cls.Built.KeysFingerprint != filters.KeysFingerprint(keys) {
				t.Errorf("%s class %s: n %d, want %d; or another fingerprint", kind, cls.Label, cls.Built.N, len(keys))
			}
			if cls.Built.FPP != orig[i].FPP {
				t.Errorf("%s class %s: FPP %g, was %g with as many keys", kind, cls.Label, cls.Built.FPP, orig[i].FPP)
			}
			var rebuilt filters.Filter
			switch kind {
			case filters.CBF:
				rebuilt, _, _, err = cls.Built.Spec.Build(orig[i].Params, keys)
			case filters.ACBF:
				p := orig[i].Summary
				rebuilt, err = acbf.Build(acbf.Config{Counters: p.M, Capacity: uint64(orig[i].N), K: p.K, FirstLevel: p.FirstLevelBits}, keys)
			}
			testutil.Check(t, err)
			if rebuilt != nil {
				var got, want bytes.Buffer
				testutil.Check(t, cls.Built.Spec.Encode(cls.Built.Filter, &got))
				testutil.Check(t, cls.Built.Spec.Encode(rebuilt, &want))
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%s class %s: the updated filter differs from the one rebuilt at its size", kind, cls.Label)
				}
			}
		}
		if _, err := Validate(b, classes, 0); err != nil {
			t.Errorf("%s: the updated bank does not validate against the moved keys: %v", kind, err)
		}
	}
}

func TestApplyRefusals(t *testing.T) {
	classes := randomClasses(t, 3, []int{100, 100})
	cl, _ := ParseClassing("value")
	b, err := Build(Meta{Kind: filters.Bloom, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
	testutil.Check(t, err)
	k := classes[0].Keys.Keys()[0]
	if _, err := b.Apply([]Move{{Key: k, From: "1", To: "2", Line: 1}}, "m"); err == nil || !strings.Contains(err.Error(), "cannot move") {
		t.Errorf("bloom bank moved a key: %v", err)
	}
	b, err = Build(Meta{Kind: filters.CBF, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
	testutil.Check(t, err)
	for _, tc := range []struct {
		mv   Move
		want string
	}{
		{Move{Key: k, Text: "k", From: "1", To: "7", Line: 3}, `m:3: bank: no class "7"`},
		{Move{Key: k, Text: "k", From: "9", To: "2", Line: 4}, `no class "9"`},
		{Move{Key: []byte("absent-key"), Text: "absent-key", From: "1", To: "2", Line: 5}, `key absent-key is not in class "1"`},
	} {
		if _, err := b.Apply([]Move{tc.mv}, "m"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("move %+v: %v, want %q", tc.mv, err, tc.want)
		}
	}
}

// TestApplySharedKey: a key may be in several classes; a move into a class
// that holds it already leaves that class unchanged (it said "1 keys moved"
// and counted the key twice there, and the bank refused its own key file
// afterwards), and a move out of a class that does not hold it is refused
// exactly for such a key. The bank equals its classes rebuilt from the
// moved sets, and validates against them, before and after a round trip
// through its file.
func TestApplySharedKey(t *testing.T) {
	for _, kind := range []filters.Kind{filters.CBF, filters.ACBF, filters.Cuckoo} {
		t.Run(string(kind), func(t *testing.T) {
			model := []mapSet{{"x": true, "s": true, "t": true}, {"y": true, "s": true}, {"z": true, "t": true}}
			classes := func() []ClassKeys {
				var out []ClassKeys
				for i, m := range model {
					out = append(out, ClassKeys{fmt.Sprint(i + 1), maps.Clone(m)})
				}
				return out
			}
			cl, _ := ParseClassing("value")
			meta := Meta{Kind: kind, Sizing: filters.Sizing{BitsPerKey: 64}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}
			if kind == filters.ACBF {
				meta.Sizing = meta.Sizing.With(filters.OptionACBFCapacity, 8) // room for a key more
			}
			b, err := Build(meta, classes())
			testutil.Check(t, err)
			if want := map[string][]int{"s": {0, 1}, "t": {0, 2}}; !maps.EqualFunc(b.Shared, want, slices.Equal) {
				t.Fatalf("shared keys %v, want %v", b.Shared, want)
			}
			mv := func(k, from, to string) Move {
				return Move{Key: []byte(k), Text: k, From: from, To: to, Line: 2}
			}
			// s: 1 -> 2, where it is already.
			st, err := b.Apply([]Move{mv("s", "1", "2")}, "m")
			testutil.Check(t, err)
			delete(model[0], "s")
			if st.Moved != 1 || st.Joined != 1 {
				t.Errorf("stats %+v, want 1 moved, 1 joined", st)
			}
			// t: 1 -> 2, where it is not; it stays in 3.
			_, err = b.Apply([]Move{mv("t", "1", "2")}, "m")
			testutil.Check(t, err)
			delete(model[0], "t")
			model[1]["t"] = true
			if want := map[string][]int{"t": {1, 2}}; !maps.EqualFunc(b.Shared, want, slices.Equal) {
				t.Errorf("shared keys %v, want %v", b.Shared, want)
			}
			if _, err := Validate(b, classes(), 0); err != nil {
				t.Errorf("the updated bank refuses the moved keys: %v", err)
			}
			var buf bytes.Buffer
			_, err = b.WriteTo(&buf)
			testutil.Check(t, err)
			back, err := Decode(buf.Bytes(), "b.bin")
			testutil.Check(t, err)
			if !back.SharedKnown || !maps.EqualFunc(back.Shared, b.Shared, slices.Equal) {
				t.Errorf("shared keys read back %v (known %v), wrote %v", back.Shared, back.SharedKnown, b.Shared)
			}
			if _, err := Validate(back, classes(), 0); err != nil {
				t.Errorf("the bank read back refuses the moved keys: %v", err)
			}
			// t is in 2 and 3, not 1: refused, exactly, naming its classes.
			if _, err := back.Apply([]Move{mv("t", "1", "3")}, "m"); err == nil || !strings.Contains(err.Error(), `key t is not in class "1" (it is in classes "2", "3")`) {
				t.Errorf("a move of a shared key from a class without it: %v", err)
			}
		})
	}
}

// TestApplyChains: a key's moves are followed in order on its set of
// classes, exactly for a key of several classes (the moves chained into
// one, first class to last, kept a class the key had left, and refused a
// valid file). The cases of an adversarial run; the model's sets are what
// the key file says after each key-level move.
func TestApplyChains(t *testing.T) {
	for _, c := range []struct {
		name   string
		moves  [][2]string // from, to of key k
		before []string    // k's classes
		after  []string
		joined int
	}{
		{"into a class that holds it, then on", [][2]string{{"a", "b"}, {"b", "c"}}, []string{"a", "b"}, []string{"c"}, 1},
		{"out and back", [][2]string{{"b", "c"}, {"c", "b"}}, []string{"b", "c", "e"}, []string{"b", "e"}, 1},
		{"into a class that holds it from the other", [][2]string{{"b", "a"}, {"a", "c"}}, []string{"a", "b"}, []string{"c"}, 1},
		{"two steps", [][2]string{{"e", "b"}, {"b", "a"}}, []string{"b", "c", "e"}, []string{"a", "c"}, 1},
		{"two classes to one", [][2]string{{"b", "a"}, {"c", "a"}}, []string{"b", "c", "e"}, []string{"a", "e"}, 1},
		{"one class, a chain", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}}, []string{"a"}, []string{"d"}, 0},
		{"one class, there and back", [][2]string{{"a", "b"}, {"b", "a"}}, []string{"a"}, []string{"a"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			labels := []string{"a", "b", "c", "d", "e"}
			model := map[string]mapSet{}
			for i, l := range labels {
				model[l] = mapSet{fmt.Sprintf("x%d", i): true}
			}
			for _, l := range c.before {
				model[l]["k"] = true
			}
			classes := func() []ClassKeys {
				var out []ClassKeys
				for _, l := range labels {
					out = append(out, ClassKeys{l, maps.Clone(model[l])})
				}
				return out
			}
			cl, _ := ParseClassing("value")
			b, err := Build(Meta{Kind: filters.CBF, Sizing: filters.Sizing{BitsPerKey: 64}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes())
			testutil.Check(t, err)
			var mvs []Move
			for i, m := range c.moves {
				mvs = append(mvs, Move{Key: []byte("k"), Text: "k", From: m[0], To: m[1], Line: int64(i + 2)})
			}
			st, err := b.Apply(mvs, "m")
			testutil.Check(t, err)
			for _, l := range c.before {
				delete(model[l], "k")
			}
			for _, l := range c.after {
				model[l]["k"] = true
			}
			if _, err := Validate(b, classes(), 0); err != nil {
				t.Errorf("the bank refuses the key file with the moves made: %v", err)
			}
			if st.Joined != c.joined {
				t.Errorf("%+v, want %d into a class that held the key", st, c.joined)
			}
		})
	}
}

// TestVersion1: a bank file of format 1 (no shared keys, each kind's
// sizing field in its place) is read, its sizing as options, filters and
// validates, but cannot move keys nor be written again.
func TestVersion1(t *testing.T) {
	classes := randomClasses(t, 7, []int{50, 60})
	cl, _ := ParseClassing("value")
	sz := filters.Sizing{BitsPerKey: 24}.With(filters.OptionK, 5)
	b, err := Build(Meta{Kind: filters.CBF, Sizing: sz, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
	testutil.Check(t, err)
	var buf bytes.Buffer
	_, err = b.WriteTo(&buf)
	testutil.Check(t, err)
	// Version 1: the version field 1; the sizing of versions 1 and 2
	// (bits per key, k, fpp, bucket size, fingerprint bits, initial
	// capacity, growth, tightening) for version 3's (bits per key, fpp,
	// one option: k); no shared-key section (a count of 0, 8 bytes, before
	// the CRC); the CRC-32C recomputed.
	data := buf.Bytes()
	at := 6
	for range 5 { // kind, key column, class column, key type, classing
		at += 2 + int(binary.LittleEndian.Uint16(data[at:]))
	}
	v3sizing := 8 + 8 + 8 + 4 + (2 + len(filters.OptionK) + 8)
	v1 := bytes.Clone(data[:at])
	binary.LittleEndian.PutUint16(v1[4:], 1)
	v1 = binary.LittleEndian.AppendUint64(v1, math.Float64bits(24))
	v1 = binary.LittleEndian.AppendUint32(v1, 5)
	v1 = append(v1, make([]byte, 8+4+4+8+8+8)...)
	v1 = append(v1, data[at+v3sizing:len(data)-12]...)
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.Checksum(v1, crc32.MakeTable(crc32.Castagnoli)))
	old, err := Decode(v1, "v1.bin")
	testutil.Check(t, err)
	if old.SharedKnown || old.FileVersion != 1 {
		t.Errorf("a version 1 file: shared keys known %v, version %d", old.SharedKnown, old.FileVersion)
	}
	if !old.Sizing.Equal(sz) {
		t.Errorf("version 1 sizing read as %+v, written %+v", old.Sizing, sz)
	}
	if _, err := Validate(old, classes, 0); err != nil {
		t.Errorf("validate a version 1 bank: %v", err)
	}
	k := classes[0].Keys.Keys()[0]
	if _, err := old.Apply([]Move{{Key: k, Text: "k", From: "1", To: "2", Line: 2}}, "m"); err == nil || !strings.Contains(err.Error(), "rebuild it") {
		t.Errorf("a move in a version 1 bank: %v", err)
	}
	if _, err := old.WriteTo(&bytes.Buffer{}); err == nil {
		t.Error("a version 1 bank written as version 2")
	}
}

// TestApplyChecks: a move within one class still needs the key there (3,a,a
// was accepted for a key of c), and a failed add names the line of the move
// that added the key, not its first.
func TestApplyChecks(t *testing.T) {
	cl, _ := ParseClassing("value")
	classes := []ClassKeys{{"a", mapSet{"x": true}}, {"b", mapSet{"y": true}}, {"c", mapSet{"k": true}}}
	b, err := Build(Meta{Kind: filters.ACBF, Sizing: filters.Sizing{BitsPerKey: 64}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
	testutil.Check(t, err)
	if _, err := b.Apply([]Move{{Key: []byte("k"), Text: "k", From: "a", To: "a", Line: 2}}, "m"); err == nil || !strings.Contains(err.Error(), `m:2: bank: key k is not in class "a"`) {
		t.Errorf("a move within a class without the key: %v", err)
	}
	// c -> a -> b: the add into b (line 3) finds b full (an acbf built
	// for exactly its keys).
	mvs := []Move{{Key: []byte("k"), Text: "k", From: "c", To: "a", Line: 2}, {Key: []byte("k"), Text: "k", From: "a", To: "b", Line: 3}}
	if _, err := b.Apply(mvs, "m"); err == nil || !strings.Contains(err.Error(), `m:3: bank: adding key k to class "b"`) {
		t.Errorf("a full class: %v", err)
	}
}

func TestReadMoves(t *testing.T) {
	mv, err := ReadMoves(strings.NewReader("key,from,to\n42,1,2\n0043,2,3\n"), "m.csv", key.Int)
	testutil.Check(t, err)
	if len(mv) != 2 || mv[1].Line != 3 || mv[1].From != "2" || mv[1].To != "3" || mv[1].Text != "0043" {
		t.Fatalf("moves %+v", mv)
	}
	if mv2, _ := ReadMoves(strings.NewReader("42,1,2\n"), "m.csv", key.Int); len(mv2) != 1 {
		t.Errorf("a file without header: %+v", mv2)
	}
	for in, want := range map[string]string{
		"key,from,to\nx,1,2\n":   `m.csv:2: key "x"`,
		"key,from,to\n42,,2\n":   "m.csv:2: field 2 (from) is empty",
		"key,from\n":             "m.csv:1: 2 fields, want 3",
		"key,from,to\n1,2,3,4\n": "m.csv:2",
	} {
		if _, err := ReadMoves(strings.NewReader(in), "m.csv", key.Int); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	for _, kind := range []filters.Kind{filters.Bloom, filters.Blocked, filters.CBF, filters.ACBF, filters.Cuckoo, filters.Scalable} {
		classes := randomClasses(t, 5, []int{300, 20, 1})
		cl, _ := ParseClassing("cut:2,3")
		b, err := Build(Meta{Kind: kind, Sizing: filters.Sizing{FPP: 0.02}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
		testutil.Check(t, err)
		var buf bytes.Buffer
		_, err = b.WriteTo(&buf)
		testutil.Check(t, err)
		got, err := Decode(buf.Bytes(), "b.bin")
		testutil.Check(t, err)
		if got.Kind != kind || got.Classing.String() != "cut:2,3" || !got.Sizing.Equal(b.Sizing) || len(got.Classes) != 3 {
			t.Fatalf("%s: read back %+v", kind, got)
		}
		for i, c := range got.Classes {
			w := b.Classes[i]
			if c.Label != w.Label || c.Built.N != w.Built.N || c.Built.KeysFingerprint != w.Built.KeysFingerprint || c.Built.FPP != w.Built.FPP || c.Built.MemoryBits != w.Built.MemoryBits {
				t.Errorf("%s class %s: %+v, wrote %+v", kind, c.Label, c.Built.Params, w.Built.Params)
			}
			for _, k := range classes[i].Keys.Keys() {
				if !c.Built.Filter.Contains(k) {
					t.Fatalf("%s class %s: a key lost in the round trip", kind, c.Label)
				}
			}
		}
		// Every truncation and a flipped byte are errors, not panics.
		data := buf.Bytes()
		for n := 0; n < len(data); n += 1 + len(data)/97 {
			if _, err := Decode(data[:n], "b.bin"); err == nil {
				t.Errorf("%s: %d of %d bytes read as a bank", kind, n, len(data))
			}
		}
		bad := bytes.Clone(data)
		bad[len(bad)/2] ^= 0x40
		if _, err := Decode(bad, "b.bin"); err == nil || !errors.Is(err, ErrBank) {
			t.Errorf("%s: a flipped byte: %v", kind, err)
		}
		if _, err := Decode(append(bytes.Clone(data), 0), "b.bin"); err == nil || !strings.Contains(err.Error(), "trailing") {
			t.Errorf("%s: a trailing byte: %v", kind, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	classes := []ClassKeys{{"1", mapSet{"a": true, "b": true}}, {"2", mapSet{"c": true}}}
	cl, _ := ParseClassing("round")
	for _, kind := range []filters.Kind{filters.Bloom, filters.CBF, filters.Cuckoo} {
		b, err := Build(Meta{Kind: kind, Sizing: filters.Sizing{FPP: 0.1}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		b.WriteTo(&buf)
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Decode(data, "fuzz")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if _, err := b.WriteTo(&buf); (err != nil) == b.SharedKnown {
			t.Fatalf("a bank read (shared keys known: %v) written: %v", b.SharedKnown, err)
		}
		for _, c := range b.Classes {
			c.Built.Filter.Contains([]byte("probe"))
		}
	})
}

func TestBuildRefusals(t *testing.T) {
	cl, _ := ParseClassing("value")
	meta := Meta{Kind: filters.Exact, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}
	if _, err := Build(meta, randomClasses(t, 1, []int{3})); err == nil {
		t.Error("a bank of exact filters")
	}
	meta.Kind = filters.Bloom
	// A key file of no rows: a bank of no classes, written and read back.
	empty, err := Build(meta, nil)
	if err != nil || len(empty.Classes) != 0 {
		t.Fatalf("a bank of no classes: %v", err)
	}
	var buf bytes.Buffer
	if _, err := empty.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if back, err := Decode(buf.Bytes(), "e.bank"); err != nil || len(back.Classes) != 0 {
		t.Errorf("a bank of no classes read back: %v", err)
	}
	dup := []ClassKeys{{"1", mapSet{"a": true}}, {"1", mapSet{"b": true}}}
	if _, err := Build(meta, dup); err == nil {
		t.Error("a class twice")
	}
}

func TestFillSpreadMatchesSimulation(t *testing.T) {
	testutil.SkipUnderRace(t)
	// The closed-form spread of a Bloom filter's fill rate against 400
	// filters of random keys: their rates' sample variance within 4
	// standard errors of it. The standard error is the sample variance's
	// own, from the rates' fourth central moment (Var(s^2) = (m4 -
	// s^4 (n-3)/(n-1))/n): the rates are not normal, and the 30% bound
	// this test had (2.5 standard errors of 200 draws, not 3) failed once
	// in CI at ratio 1.33, seed 1795885282847969377.
	seed := testutil.Seed(t)
	n := 1000
	const filtersN = 400
	p, err := mustSpec(t, filters.Bloom).Size(uint64(n), filters.Sizing{FPP: 0.01})
	testutil.Check(t, err)
	var rates []float64
	for i := range filtersN {
		keys := testutil.Keys(seed+uint64(i)*1e6, uint64(n))
		bt, err := filters.Build(filters.Bloom, keys, filters.Sizing{FPP: 0.01})
		testutil.Check(t, err)
		rates = append(rates, bt.Spec.FillFPP(bt.Filter))
	}
	var mean, v, m4 float64
	for _, r := range rates {
		mean += r
	}
	nf := float64(len(rates))
	mean /= nf
	for _, r := range rates {
		d := (r - mean) * (r - mean)
		v += d
		m4 += d * d
	}
	v /= nf - 1
	m4 /= nf
	se := math.Sqrt(math.Max(m4-v*v*(nf-3)/(nf-1), 0) / nf)
	want := mustSpec(t, filters.Bloom).FillSpread(p, uint64(n))
	if se > want/4 {
		t.Fatalf("the test cannot tell: standard error %.3g of a variance of %.3g", se, want)
	}
	if math.Abs(v-want) > 4*se {
		t.Errorf("fill variance over %d filters %.3g, closed form %.3g (ratio %.2f, %.1f standard errors)",
			filtersN, v, want, v/want, (v-want)/se)
	}
}

func mustSpec(t *testing.T, k filters.Kind) *filters.Spec {
	sp, err := filters.Lookup(string(k))
	testutil.Check(t, err)
	return sp
}

// TestBudgetIsTheBank's: a Sizing.Budget sizes the bank, not each class:
// the classes' filters together stay within it, each in its keys' share
// (it gave every class the whole budget: 6 classes of 64 KiB each).
func TestBudgetIsTheBanks(t *testing.T) {
	classes := randomClasses(t, 1, []int{4000, 2000, 1000, 500, 300, 200})
	cl, err := ParseClassing("value")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []filters.Kind{filters.Bloom, filters.CBF, filters.Cuckoo, filters.Fuse} {
		b, err := Build(Meta{Kind: kind, Sizing: filters.Sizing{Budget: 64 << 10}, KeyCol: "K", ClassCol: "C", KeyType: "string", Classing: cl}, classes)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		mem, _ := b.Bytes()
		if mem > 64<<10 || mem < 32<<10 {
			t.Errorf("%s: %d bytes of filters for a 64 KiB budget", kind, mem)
		}
	}
}
