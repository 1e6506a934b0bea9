package filters

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/blocked"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// TestRegistry: every kind is complete, found by its name, listed once in
// report order; an unknown name is refused naming the kinds.
func TestRegistry(t *testing.T) {
	want := []string{"none", "exact", "bloom", "cbf", "acbf", "acbf1", "acbf2", "acbf3", "cuckoo", "scalable", "blocked", "fuse"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	for _, sp := range Kinds() {
		t.Run(string(sp.Kind), func(t *testing.T) {
			if got, err := Lookup(string(sp.Kind)); err != nil || got != sp {
				t.Fatalf("Lookup(%q) = %v, %v", sp.Kind, got, err)
			}
			if sp.Doc == "" {
				t.Fatalf("no Doc: %+v", sp)
			}
			for _, o := range sp.Options {
				if o.Doc == "" || !(o.Min <= o.Max) || !sp.Uses(o.Name) {
					t.Fatalf("option %+v: no Doc, no values, or not used", o)
				}
			}
			// What a kind says it does, it does: a sized kind takes keys
			// after it is built, and a kind removes keys if it Deletes.
			b, err := Build(sp.Kind, testutil.Keys(0, 100), Sizing{})
			if err != nil {
				t.Fatal(err)
			}
			// (an ACBF or a cuckoo table may be full: not ErrNoUpdate)
			if err := sp.Add(b.Filter, []byte("added")); errors.Is(err, ErrNoUpdate) == sp.CanAdd() {
				t.Fatalf("CanAdd %v, Add: %v", sp.CanAdd(), err)
			}
			if err := sp.Remove(b.Filter, testutil.Keys(0, 1)[0]); (err == nil) != sp.Deletes || (err != nil && !errors.Is(err, ErrNoUpdate)) {
				t.Fatalf("Deletes %v, Remove: %v", sp.Deletes, err)
			}
			if !strings.HasPrefix(b.Spell(), string(sp.Kind)) || sp.Sized && !strings.HasPrefix(b.Spell(), string(sp.Kind)+"(") {
				t.Fatalf("parameters spelled %q", b.Spell())
			}
		})
	}
	_, err := Lookup("quotient")
	if !errors.Is(err, ErrUnknownKind) || err.Error() != `filters: unknown filter kind "quotient" (want one of none, exact, bloom, cbf, acbf, acbf1, acbf2, acbf3, cuckoo, scalable, blocked, fuse)` {
		t.Fatalf("Lookup(quotient) = %v", err)
	}
}

// TestBuild: every kind keeps every key (no false negatives), has the memory
// of the comparison, its encoding decodes to a filter that answers the same,
// and its measured false positive rate on 200,000 non-keys is within 4
// binomial sd of its formula.
func TestBuild(t *testing.T) {
	const n = 20000
	keys := testutil.Keys(0, n)
	for _, sp := range Kinds() {
		t.Run(string(sp.Kind), func(t *testing.T) {
			b, err := Build(sp.Kind, keys, Sizing{})
			if err != nil {
				t.Fatal(err)
			}
			data, err := b.Marshal()
			if err != nil || int64(len(data)) != b.SerializedBytes {
				t.Fatalf("Marshal: %d bytes, %v; SerializedBytes %d", len(data), err, b.SerializedBytes)
			}
			dec, err := Decode(sp.Kind, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range keys {
				if !b.Filter.Contains(key) || !dec.Contains(key) {
					t.Fatalf("false negative for %x", key)
				}
			}
			// The memory of the comparison: 32 bits per key, the counting
			// kinds at k = round(8 ln 2) = 6, the Bloom filter at its own
			// best k for 32 bits; the others as their sizing says, which
			// Size predicts exactly.
			if sp.Sized {
				p, err := sp.Size(n, Sizing{})
				if err != nil || p.Summary().MemoryBits != b.MemoryBits || p.String() != b.Spell() {
					t.Errorf("Size predicted %d bits (%s), %v; built %d (%s)", p.Summary().MemoryBits, p, err, b.MemoryBits, b.Spell())
				}
				wantK := map[Kind]int{Bloom: 22, CBF: 6, ACBF: 6, ACBF1: 6, ACBF2: 6, ACBF3: 6, Blocked: blocked.OptimalK(32)}
				switch k, ok := wantK[sp.Kind]; {
				case ok && (b.MemoryBits != 32*n || b.K != k):
					t.Errorf("%d bits, k = %d; want 32 bits per key, k = %d", b.MemoryBits, b.K, k)
				case sp.Kind == Cuckoo && (b.MemoryBits > 32*n || b.MemoryBits < 28*n):
					t.Errorf("cuckoo: %d bits, want the fingerprints that fit in 32 bits per key", b.MemoryBits)
				}
			}
			// Under -race, a tenth of the probes: they run on this
			// goroutine (the builds of 2^18 probes and more do not).
			probes := testutil.RaceSize(200000.0, 20000)
			var probe [8]byte
			fp := 0
			for i := 0; i < int(probes); i++ {
				key := testutil.Key(probe[:], 1<<40+uint64(i))
				got := b.Filter.Contains(key)
				if got != dec.Contains(key) {
					t.Fatalf("Contains(%x) = %v, decoded copy says %v", key, got, !got)
				}
				if got {
					fp++
				}
			}
			// A kind that tests keys in batches answers as Contains does,
			// for members and non-members, in batches of every size.
			if bf, ok := dec.(BatchFilter); ok {
				var mixed [][]byte
				for i := range 3000 {
					if i%3 == 0 {
						mixed = append(mixed, keys[i])
					} else {
						mixed = append(mixed, testutil.Key(make([]byte, 8), 1<<41+uint64(i)))
					}
				}
				out := make([]bool, len(mixed))
				for _, size := range []int{1, 7, 64, 65, 3000} {
					for lo := 0; lo < len(mixed); lo += size {
						hi := min(lo+size, len(mixed))
						bf.ContainsBatch(mixed[lo:hi], out[lo:hi])
					}
					for i, k := range mixed {
						if out[i] != dec.Contains(k) {
							t.Fatalf("batches of %d: ContainsBatch says %v for %x, Contains %v", size, out[i], k, !out[i])
						}
					}
				}
			}
			got := float64(fp) / probes
			if sp.HasFillFPP() {
				fill := sp.FillFPP(b.Filter)
				if sd := math.Sqrt(fill * (1 - fill) / probes); math.Abs(got-fill) > 4*sd+1.0/probes {
					t.Errorf("measured FP %.5f, this filter's fill gives %.5f", got, fill)
				}
				if fill2 := sp.FillFPP(dec); fill2 != fill {
					t.Errorf("FillFPP %v, of the decoded copy %v", fill, fill2)
				}
			}
			sd := math.Sqrt(b.FPP * (1 - b.FPP) / probes)
			t.Logf("m=%d k=%d m1=%d bytes=%d FP %.5f formula %.5f", b.M, b.K, b.FirstLevelBits, b.SerializedBytes, got, b.FPP)
			if math.Abs(got-b.FPP) > 4*sd+1.0/probes {
				t.Errorf("measured FP %.5f, formula %.5f", got, b.FPP)
			}
		})
	}
}

// TestSizing: sizing by a formula FP gives at most that FP; bad values name
// their Sizing field; an ACBF whose counters do not fit wraps acbf.ErrConfig;
// a filter above MaxFilterBytes is refused before it is allocated.
func TestSizing(t *testing.T) {
	testutil.SkipUnderRace(t)
	keys := testutil.Keys(0, 10000)
	for _, sp := range Kinds() {
		if !sp.Sized {
			continue
		}
		t.Run(string(sp.Kind), func(t *testing.T) {
			b, err := Build(sp.Kind, keys, Sizing{FPP: 0.001})
			if err != nil {
				t.Fatal(err)
			}
			if b.FPP > 0.001 {
				t.Errorf("sized for 0.001, formula FP %.5f", b.FPP)
			}
			// No keys: an empty filter that passes nothing, formula FP 0.
			empty, err := Build(sp.Kind, nil, Sizing{})
			if err != nil || empty.N != 0 || empty.FPP != 0 || empty.Filter.Contains(keys[0]) || empty.Filter.Contains([]byte("x")) {
				t.Errorf("no keys: %v %+v", err, empty)
			}
		})
	}
	for _, tc := range []struct {
		kind Kind
		s    Sizing
		want string
	}{
		{CBF, Sizing{FPP: 1}, "filters: Sizing.FPP 1: want a rate between 0 and 1"},
		{CBF, Sizing{FPP: -1}, "filters: Sizing.FPP -1: want a rate between 0 and 1"},
		{CBF, Sizing{BitsPerKey: -2}, "filters: Sizing.BitsPerKey -2: want a positive number of bits per key"},
		{CBF, Sizing{BitsPerKey: 0.0001}, "filters: Sizing.BitsPerKey 0.0001: 0.0001 bits per key for 10000 keys is less than 4 bits in all"},
		{CBF, Sizing{BitsPerKey: math.NaN()}, "filters: Sizing.BitsPerKey NaN: want a positive number"},
		{CBF, Sizing{}.With(OptionK, 65), "filters: Sizing.k 65: want a whole number from 1 to 64"},
		{Bloom, Sizing{BitsPerKey: 1e12}, "filters: Sizing.BitsPerKey 1e+12: 1e+12 bits per key for 10000 keys is 1.11 PiB, above the 1 GiB a filter may take (at most 858993 bits per key for 10000 keys)"},
		{ACBF, Sizing{BitsPerKey: 40}.With(OptionK, 40), "filters: Sizing.BitsPerKey 40: 40 bits per key cannot hold k = 40 counter bits per key"},
		{ACBF2, Sizing{BitsPerKey: 8}.With(OptionK, 6), "filters: Sizing.BitsPerKey 8: k = 6 counter bits per key do not fit beside a first level of 2*m bits: at least 12 bits per key"},
		{Blocked, Sizing{}.With(OptionK, 17), "filters: Sizing.k 17: the blocked filter takes a whole number from 1 to 16"},
		{Blocked, Sizing{FPP: 1e-40}, "filters: Sizing.FPP 1e-40: no blocked filter of 10000 keys reaches it"},
		{Cuckoo, Sizing{}.With(OptionFingerprintBits, 33), "filters: Sizing.fingerprint-bits 33: want a whole number from 1 to 32"},
		{Cuckoo, Sizing{}.With(OptionBucketSize, 3), "filters: Sizing.bucket-size 3: want 1, 2, 4 or 8"},
		{Fuse, Sizing{}.With(OptionFingerprintBits, 12), "filters: Sizing.fingerprint-bits 12: the fuse filter takes 8, 16 or 32"},
		{Fuse, Sizing{FPP: 1e-6}.With(OptionFingerprintBits, 8), "filters: Sizing.FPP 1e-06: the fuse filter of these options (f=8) has a formula FP of 0.00391, above the target"},
		{Cuckoo, Sizing{FPP: 1e-6}.With(OptionFingerprintBits, 8), "filters: Sizing.FPP 1e-06: the cuckoo filter of these options (b=4 f=8) has a formula FP of"},
		{Fuse, Sizing{BitsPerKey: 4}, "filters: Sizing.BitsPerKey 4: a fuse filter takes at least 9 bits a key (8-bit fingerprints in 1.125 slots a key; 10000 keys take 10.2)"},
		{Cuckoo, Sizing{FPP: 1e-12}.With(OptionBucketSize, 8), "filters: Sizing.FPP 1e-12: a cuckoo filter of 10000 keys with buckets of 8 reaches at best 3.65e-09"},
		{Scalable, Sizing{}.With(OptionGrowth, 0.5), "filters: Sizing.growth 0.5: want a factor from 1 to 1024"},
		{Scalable, Sizing{}.With(OptionTightening, 1), "filters: Sizing.tightening 1: want a ratio between 0 and 1"},
		{Scalable, Sizing{BitsPerKey: 2000}, "filters: Sizing.BitsPerKey 2000: a scalable filter's first error"},
		{Scalable, Sizing{FPP: 5e-324}, "filters: Sizing.FPP 5e-324: a scalable filter reaches at best about 1e-300"},
		{Scalable, Sizing{FPP: 1e-310}, "filters: Sizing.FPP 1e-310: a scalable filter reaches at best about 1e-300"},
		{Scalable, Sizing{}.With(OptionInitialCapacity, 1).With(OptionGrowth, 1), "filters: Sizing.initial-capacity 1: 10000 keys need more sub-filters"},
		{Cuckoo, Sizing{}.With("quotient-bits", 3), "filters: Sizing.quotient-bits 3: no kind has this option"},
		{Blocked, Sizing{}.With(OptionK, 2.5), "filters: Sizing.k 2.5: want a whole number from 1 to 64"},
	} {
		_, err := Build(tc.kind, keys, tc.s)
		if err == nil || !errors.Is(err, ErrSizing) || !bytes.HasPrefix([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%s %+v: %v, want %q", tc.kind, tc.s, err, tc.want)
		}
		if k, _ := tc.s.Option(OptionK); tc.kind == ACBF && k == 40 && !errors.Is(err, acbf.ErrConfig) {
			t.Errorf("%v does not wrap acbf.ErrConfig", err)
		}
	}
}

// FuzzDecode: every kind's decoder refuses or accepts arbitrary bytes without
// panicking; what it accepts answers Contains and encodes to bytes that decode
// to the same encoding (a fixed point), and for the kinds whose format is
// canonical (all but exact, whose keys may come in any order) to the input.
func FuzzDecode(f *testing.F) {
	keys := testutil.Keys(0, 50)
	kinds := Kinds()
	for i, sp := range kinds {
		b, err := Build(sp.Kind, keys, Sizing{})
		if err != nil {
			f.Fatal(err)
		}
		data, err := b.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	// The exact set of integer keys (decodeExact64's input) and near misses.
	var ints [][]byte
	for v := range uint64(40) {
		ints = append(ints, binary.BigEndian.AppendUint64(nil, v*v))
	}
	if b, err := Build(Exact, ints, Sizing{}); err == nil {
		if data, err := b.Marshal(); err == nil {
			exact := uint8(slices.IndexFunc(kinds, func(sp *Spec) bool { return sp.Kind == Exact }))
			f.Add(exact, data)
			f.Add(exact, append(slices.Clone(data[9:18]), data[:9]...)) // out of order
			f.Add(exact, data[:len(data)-1])
		}
	}
	// A bitmap's compact form, and near misses: cut, a byte more, a count
	// too large, a gap past 2^64.
	var dense [][]byte
	for v := range uint64(300) {
		dense = append(dense, binary.BigEndian.AppendUint64(nil, 1<<40+3*v))
	}
	if b, err := Build(Exact, dense, Sizing{}); err == nil {
		if data, err := b.Marshal(); err == nil {
			exact := uint8(slices.IndexFunc(kinds, func(sp *Spec) bool { return sp.Kind == Exact }))
			f.Add(exact, data)
			f.Add(exact, data[:len(data)-1])
			f.Add(exact, append(slices.Clone(data), 0))
			f.Add(exact, []byte{0x80, 0x00, 0x7f, 0x01})
			f.Add(exact, []byte{0x80, 0x00, 0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01})
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		sp := kinds[int(k)%len(kinds)]
		flt, err := sp.Decode(data)
		if err != nil {
			return
		}
		flt.Contains([]byte("probe"))
		var enc bytes.Buffer
		if err := sp.Encode(flt, &enc); err != nil {
			t.Fatalf("%s: Encode of a decoded filter: %v", sp.Kind, err)
		}
		again, err := sp.Decode(enc.Bytes())
		if err != nil {
			t.Fatalf("%s: its own encoding does not decode: %v", sp.Kind, err)
		}
		var enc2 bytes.Buffer
		sp.Encode(again, &enc2)
		if !bytes.Equal(enc.Bytes(), enc2.Bytes()) {
			t.Fatalf("%s: encoding is not a fixed point", sp.Kind)
		}
		if sp.Kind != Exact && !bytes.Equal(enc.Bytes(), data) {
			t.Fatalf("%s: decoded %d bytes, encodes to %d others", sp.Kind, len(data), enc.Len())
		}
	})
}

// TestExactForms: the exact kind picks a bitmap for dense 8-byte keys, a
// table for sparse ones and a map otherwise; each answers exactly as a Go
// map of the keys on members, near misses and the edges, and decodes from
// an unsorted list with repeats.
func TestExactForms(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	u64 := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	dense, sparse, mixed := [][]byte{u64(1<<63 + 3000000)}, [][]byte{u64(0), u64(1<<64 - 1)}, [][]byte{[]byte("a"), u64(7)}
	for range 5000 {
		dense = append(dense, u64(1<<63+3000000+uint64(rng.IntN(3_000_000))))
		sparse = append(sparse, u64(rng.Uint64()))
		mixed = append(mixed, []byte(fmt.Sprint(rng.IntN(1e9))))
	}
	for _, tc := range []struct {
		name string
		keys [][]byte
		want string
	}{{"dense", dense, "*filters.keyBitmap"}, {"sparse", sparse, "*filters.keyTable64"}, {"mixed", mixed, "*filters.keySet"}} {
		t.Run(tc.name, func(t *testing.T) {
			slices.SortFunc(tc.keys, bytes.Compare)
			keys := slices.CompactFunc(tc.keys, bytes.Equal)
			b, err := Build(Exact, keys, Sizing{})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%T", b.Filter); got != tc.want {
				t.Fatalf("form %s, want %s", got, tc.want)
			}
			set := map[string]bool{}
			for _, k := range keys {
				set[string(k)] = true
			}
			probes := [][]byte{u64(0), u64(1), u64(1<<64 - 1), u64(1<<63 + 2999999), u64(1<<63 + 6000001), []byte("a"), nil, []byte("0123456789")}
			for _, k := range keys {
				v := binary.BigEndian.Uint64(append(make([]byte, 8-min(8, len(k))), k[:min(8, len(k))]...))
				probes = append(probes, k, u64(v+1), u64(v-1))
			}
			for _, k := range probes {
				if got := b.Filter.Contains(k); got != set[string(k)] {
					t.Fatalf("Contains(%x) = %v, want %v", k, got, !got)
				}
			}
			// Encode, decode, and decode an unsorted list with repeats.
			data, err := b.Marshal()
			if err != nil || int64(len(data)) != b.SerializedBytes {
				t.Fatalf("Marshal: %d bytes, %v; SerializedBytes %d", len(data), err, b.SerializedBytes)
			}
			var general []byte // the general encoder's bytes: exactValues' must be the same
			for _, k := range exactKeys(b.Filter) {
				general = binary.AppendUvarint(general, uint64(len(k)))
				general = append(general, k...)
			}
			if tc.name == "dense" {
				// A bitmap's compact form: the magic, the count, the first
				// value, the gaps less one.
				want := append(compactMagic[:0:0], compactMagic[:]...)
				want = binary.AppendUvarint(want, uint64(len(keys)))
				for i, k := range keys {
					v := binary.BigEndian.Uint64(k)
					if i > 0 {
						v -= binary.BigEndian.Uint64(keys[i-1]) + 1
					}
					want = binary.AppendUvarint(want, v)
				}
				if !bytes.Equal(data, want) {
					t.Fatalf("encoding is not the compact form (%d bytes, want %d)", len(data), len(want))
				}
				if len(data)*4 > len(general) {
					t.Fatalf("compact form of %d bytes against the key list's %d", len(data), len(general))
				}
			} else if !bytes.Equal(data, general) {
				t.Fatalf("encoding differs from the general encoder's (%d and %d bytes)", len(data), len(general))
			}
			var messy []byte
			for i := len(keys) - 1; i >= 0; i-- {
				for range 1 + i%2 {
					messy = binary.AppendUvarint(messy, uint64(len(keys[i])))
					messy = append(messy, keys[i]...)
				}
			}
			for _, d := range [][]byte{data, messy, general} { // general: the form files of earlier versions hold
				f, err := Decode(Exact, d)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range probes {
					if f.Contains(k) != set[string(k)] {
						t.Fatalf("decoded: Contains(%x) = %v, want %v", k, !set[string(k)], set[string(k)])
					}
				}
				// The same form whichever decoder read it (decodeExact64
				// takes sorted 8-byte keys, the general one the rest).
				if got := fmt.Sprintf("%T", f); got != tc.want {
					t.Fatalf("decoded form %s, want %s", got, tc.want)
				}
			}
			if _, fast := decodeExact64(general); fast != (tc.name != "mixed") {
				t.Errorf("decodeExact64 took the key list: %v", fast)
			}
			t.Logf("%d keys: %T, %d bits in memory, %d bytes encoded", len(keys), b.Filter, b.MemoryBits, b.SerializedBytes)
		})
	}
}

// TestCuckooSmallSets: a cuckoo filter builds for every small key set at the
// default and common sizings (a table of a few buckets once failed to take
// 24 keys in 32 slots), with no false negative.
func TestCuckooSmallSets(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, s := range []Sizing{{}, {FPP: 0.01}, {BitsPerKey: 16}} {
		for n := 1; n <= 200; n++ {
			keys := make([][]byte, n)
			for i := range keys {
				keys[i] = []byte(fmt.Sprintf("key-%d-%d", n, i))
			}
			b, err := Build(Cuckoo, keys, s)
			if err != nil {
				t.Fatalf("n = %d, %+v: %v", n, s, err)
			}
			for _, k := range keys {
				if !b.Filter.Contains(k) {
					t.Fatalf("n = %d: false negative %s", n, k)
				}
			}
		}
	}
}

// TestOrderFree: every kind builds the same bytes from the same key set in
// any order (the build's keys come from a map: cuckoo and scalable filter
// files differed from run to run).
func TestOrderFree(t *testing.T) {
	keys := testutil.Keys(0, 3000)
	shuffled := slices.Clone(keys)
	testutil.Rand(testutil.Seed(t)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, sp := range Kinds() {
		a, err := Build(sp.Kind, keys, Sizing{BitsPerKey: 12})
		testutil.Check(t, err)
		b, err := Build(sp.Kind, shuffled, Sizing{BitsPerKey: 12})
		testutil.Check(t, err)
		ea, _ := a.Marshal()
		eb, _ := b.Marshal()
		if !bytes.Equal(ea, eb) {
			t.Errorf("%s: another order of the same keys built other bytes", sp.Kind)
		}
	}
}

// TestOptionFixesMemory: an option that fixes a filter's memory (a fuse
// filter's fingerprint bits) sizes it whatever the default bits a key
// would give: 9e8 keys at 8 bits a fingerprint fit (32 bits a key would
// not), and were refused for --bits-per-key 32, which no one gave.
func TestOptionFixesMemory(t *testing.T) {
	sp, _ := Lookup(string(Fuse))
	p, err := sp.Size(9e8, Sizing{}.With(OptionFingerprintBits, 8))
	if err != nil || p.Summary().MemoryBits/8 > MaxFilterBytes {
		t.Fatalf("9e8 keys, f=8: %v, %v", p, err)
	}
	if _, err := sp.Size(9e8, Sizing{}); err == nil {
		t.Errorf("9e8 keys at 32 bits a key: no error")
	}
}

// TestBudget: sizing by a budget of bytes gives every sized kind the most
// memory within it: at most the budget, and 2% more bits a key would not
// fit; a budget below a kind's least filter is refused naming
// Sizing.Budget; Budget with another sizing is refused.
func TestBudget(t *testing.T) {
	testutil.SkipUnderRace(t)
	const n = 10_000
	for _, sp := range Kinds() {
		if !sp.Sized {
			continue
		}
		// 8 MiB: past the most some kinds can lay out (the scalable
		// filter's first error underflows near 2,500 bits a key), which the
		// search must stop below, not refuse (a budget of 5 MiB and more
		// was refused for scalable).
		for _, budget := range []int64{10, 4_000, 20_000, 64 << 10, 8 << 20} {
			p, err := sp.Size(n, Sizing{Budget: budget})
			var oe *option.Error
			switch {
			case err != nil && budget < 20_000 && errors.As(err, &oe) && oe.Name == "Sizing.Budget":
				continue // below this kind's least filter (cuckoo: 5.6 bits a key)
			case err != nil:
				t.Errorf("%s budget %d: %v", sp.Kind, budget, err)
				continue
			}
			mem := int64(p.Summary().MemoryBits / 8)
			if mem > budget {
				t.Errorf("%s budget %d: %s takes %d bytes", sp.Kind, budget, p, mem)
			}
			bpk := 8 * float64(mem) / n
			if q, err := sp.Size(n, Sizing{BitsPerKey: bpk * 1.02}); err == nil && int64(q.Summary().MemoryBits/8) <= budget && q.Summary().MemoryBits > p.Summary().MemoryBits {
				t.Errorf("%s budget %d: %s (%d bytes) fits too, and is larger than %s (%d)", sp.Kind, budget, q, q.Summary().MemoryBits/8, p, mem)
			}
		}
	}
	for _, s := range []Sizing{{Budget: 100, FPP: 0.1}, {Budget: 100, BitsPerKey: 3}, {Budget: -1}, {Budget: MaxFilterBytes + 1}} {
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "Sizing.Budget") {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// TestParseKinds: all, a list in its order, and the refusals.
func TestParseKinds(t *testing.T) {
	all, err := ParseKinds(" all ")
	if err != nil || len(all) != len(Kinds()) {
		t.Fatalf("all: %v, %v", all, err)
	}
	got, err := ParseKinds("fuse, bloom")
	if err != nil || fmt.Sprint(got) != "[fuse bloom]" {
		t.Fatalf("a list: %v, %v", got, err)
	}
	if _, err := ParseKinds("bloom,quotient"); !errors.Is(err, ErrUnknownKind) || !strings.HasPrefix(err.Error(), `"quotient": unknown filter (want all, or some of none,`) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := ParseKinds("bloom,bloom"); err == nil || err.Error() != "bloom is given twice" {
		t.Errorf("twice: %v", err)
	}
	if _, err := ParseKinds(""); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("empty: %v", err)
	}
}

// TestSizeAll: a row a kind with its memory and rate, a refusal's error in
// the caller's words, and the table's line of sizing.
func TestSizeAll(t *testing.T) {
	rows := SizeAll(1000, Sizing{FPP: 0.01}, []Kind{Bloom, Cuckoo, "quotient"}, func(err error) string { return "E: " + err.Error() })
	if len(rows) != 3 || rows[0].Params == "" || rows[0].FPP > 0.01 || rows[0].Bytes*8 < uint64(rows[0].BitsPerKey*1000) || !rows[1].Deletes || !strings.HasPrefix(rows[2].Err, "E: ") {
		t.Fatalf("%+v", rows)
	}
	var b bytes.Buffer
	WriteSizes(&b, 1000, Sizing{FPP: 0.01}, rows)
	if out := b.String(); !strings.Contains(out, "sized for a formula FP of at most 0.01") || strings.Count(out, "\n| ") != 4 || !strings.Contains(out, "cannot: E: ") {
		t.Fatalf("%s", out)
	}
}

// TestKeysFingerprintParts: the fingerprint of 2^17 keys, summed in parts
// on several goroutines, is the one-goroutine sum's, and any order of the
// keys gives it.
func TestKeysFingerprintParts(t *testing.T) {
	keys := testutil.Keys(7, 1<<17)
	want := keysFingerprint(keylist.Of(keys))
	if got := KeysFingerprint(keys); got != want {
		t.Fatalf("%x, want %x", got, want)
	}
	rev := slices.Clone(keys)
	slices.Reverse(rev)
	if got := KeysFingerprint(rev[:len(rev)-1]); got == want {
		t.Fatal("one key fewer, the same fingerprint")
	}
	if got := KeysFingerprint(rev); got != want {
		t.Fatalf("reversed: %x, want %x", got, want)
	}
}

// TestExactBytesBound: the bound auto tests the budget with is at least
// what the exact filter then takes (its encoding and a bitmap's memory
// beyond it), and for a table and a map the key list's bytes exactly:
// dense, sparse, bunched and spread integer keys of 1 to 20,000, and text.
func TestExactBytesBound(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	u64 := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	for _, n := range []int{1, 2, 3, 100, 20_000} {
		for name, gen := range map[string]func(i int) []byte{
			"consecutive": func(i int) []byte { return u64(1<<63 + uint64(i)) },
			"dense":       func(int) []byte { return u64(1<<63 + rng.Uint64N(uint64(4*n))) },
			"spread":      func(int) []byte { return u64(1<<63 + rng.Uint64N(uint64(200*n))) },
			"two runs":    func(i int) []byte { return u64(uint64(i%2)*uint64(60*n) + uint64(i)) },
			"sparse":      func(int) []byte { return u64(rng.Uint64()) },
			"text":        func(int) []byte { return []byte(fmt.Sprint(rng.IntN(1e9))) },
		} {
			keys := make([][]byte, n)
			for i := range keys {
				keys[i] = gen(i)
			}
			slices.SortFunc(keys, bytes.Compare)
			keys = slices.CompactFunc(keys, bytes.Equal)
			b, err := Build(Exact, keys, Sizing{})
			if err != nil {
				t.Fatal(err)
			}
			payload := int64(exactPayload(b.Filter))
			takes := payload + ExactCopyExtra(b.Filter)
			bound := ExactBytesBound(keylist.Of(keys))
			if bound < takes {
				t.Fatalf("%s, %d keys (%T): bound %d below the %d bytes it takes", name, len(keys), b.Filter, bound, takes)
			}
			if _, bitmap := b.Filter.(*keyBitmap); !bitmap && bound != payload {
				t.Fatalf("%s, %d keys (%T): bound %d, want the key list's %d", name, len(keys), b.Filter, bound, payload)
			}
			table, isTable := b.Filter.(*keyTable64)
			if got, table := ExactBound(keylist.Of(keys)); got != bound || table != isTable {
				t.Fatalf("%s, %d keys (%T): ExactBound %d, table %v; ExactBytesBound %d", name, len(keys), b.Filter, got, table, bound)
			}
			// The stand-in of a subset: the whole table's memory, the
			// subset's keys and no other of the keys.
			sub := keys[:(len(keys)+2)/3]
			var clock time.Duration
			f, alloc, adds, ok := ExactStandIn(keylist.Of(sub), len(keys), func() time.Duration { clock += time.Millisecond; return clock })
			if ok != !slices.ContainsFunc(sub, func(k []byte) bool { return len(k) != 8 }) {
				t.Fatalf("%s, %d keys: ExactStandIn ok %v", name, len(keys), ok)
			}
			if !ok {
				continue
			}
			if alloc != time.Millisecond || adds != time.Millisecond {
				t.Fatalf("%s: stand-in timed %v and %v by a clock that moves 1 ms a read", name, alloc, adds)
			}
			if isTable && f.(*keyTable64).MemoryBits() != table.MemoryBits() {
				t.Fatalf("%s, %d keys: stand-in of %d bits, the table %d", name, len(keys), f.(*keyTable64).MemoryBits(), table.MemoryBits())
			}
			for i, k := range keys {
				if got := f.Contains(k); got != (i < len(sub)) {
					t.Fatalf("%s, %d keys: stand-in Contains(key %d) %v, %d keys held", name, len(keys), i, got, len(sub))
				}
			}
			if _, _, _, ok := ExactStandIn(keylist.Of(keys), len(keys)-1, func() time.Duration { return 0 }); ok {
				t.Fatalf("%s: a stand-in of %d keys for %d", name, len(keys), len(keys)-1)
			}
		}
	}
}
