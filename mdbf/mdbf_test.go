package mdbf

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/acbfjoin/acbfjoin/cuckoo"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// randTuples returns n distinct random tuples of types and the components
// they were made of: small domains, so that values repeat across tuples and
// new combinations of present values exist; strings may hold 0x00 and 0xFF.
func randTuples(rng *rand.Rand, types []tuple.Type, n, domain int) [][]byte {
	space := 1
	for range types {
		space = min(space*domain, 1<<20)
	}
	n = min(n, space/2+1) // distinct tuples exist; drawing them stays quick
	seen := map[string]bool{}
	var out [][]byte
	for len(out) < n {
		key := randTuple(rng, types, domain)
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, key)
		}
	}
	return out
}

func randTuple(rng *rand.Rand, types []tuple.Type, domain int) []byte {
	var key []byte
	for _, t := range types {
		v := rng.IntN(domain)
		if t == tuple.Int {
			key = tuple.AppendInt(key, int64(v)-int64(domain/2))
			continue
		}
		s := fmt.Appendf(nil, "v%d", v)
		switch v % 5 {
		case 0:
			s = append(s, 0)
		case 1:
			s = append([]byte{0, 0xFF, 1}, s...)
		case 2:
			s = s[:0] // the empty string is a value too
		}
		key = tuple.AppendString(key, s)
	}
	return key
}

func randTypes(rng *rand.Rand) []tuple.Type {
	types := make([]tuple.Type, 1+rng.IntN(4))
	for i := range types {
		types[i] = tuple.Type(rng.IntN(2))
	}
	return types
}

// TestContainsModel: for every kind, Contains equals the AND of the
// columns' filters on the split components (the model), on keys, on new
// combinations of present values and on random tuples; no key is ever
// rejected; the wrapper's parameters are the columns'.
func TestContainsModel(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for _, sp := range filters.Kinds() {
		t.Run(string(sp.Kind), func(t *testing.T) {
			for round := range 4 {
				types := randTypes(rng)
				domain := 5 + rng.IntN(60)
				keys := randTuples(rng, types, 1+rng.IntN(150), domain)
				// 8 bits a key: false positives happen, so the model's
				// answers are not all "no".
				sz := filters.Sizing{BitsPerKey: 8}
				switch sp.Kind {
				case filters.Cuckoo:
					sz.BitsPerKey = 16 // a small cuckoo table at 8 bits a key can be too full to build
				case filters.Fuse:
					sz.BitsPerKey = 9 // its least (8-bit fingerprints); fewer is refused
				}
				b, err := Build(sp.Kind, types, keys, sz)
				if errors.Is(err, cuckoo.ErrFull) {
					// The cuckoo kind's sizing of a few dozen keys can leave
					// a table too full to build: the kind's limit, not ours.
					t.Logf("round %d: %v", round, err)
					continue
				}
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				f := b.Filter.(*Filter)
				cols := Columns(b)
				if len(cols) != len(types) || b.N != len(keys) || b.KeysFingerprint != filters.KeysFingerprint(keys) {
					t.Fatalf("%d columns, N %d, fingerprint %x", len(cols), b.N, b.KeysFingerprint)
				}
				fpp := 1.0
				var mem uint64
				for _, c := range cols {
					fpp *= c.FPP
					mem += c.MemoryBits
				}
				if b.FPP != fpp || b.MemoryBits != mem || b.Kind() != sp.Kind {
					t.Fatalf("FPP %g (columns' product %g), memory %d (sum %d), kind %s", b.FPP, fpp, b.MemoryBits, mem, b.Kind())
				}
				model := func(key []byte) bool {
					parts, _, err := tuple.Split(key, types, nil, nil)
					if err != nil {
						t.Fatalf("model: %v", err)
					}
					for i, p := range parts {
						if !cols[i].Filter.Contains(p) {
							return false
						}
					}
					return true
				}
				for _, key := range keys {
					if !f.Contains(key) {
						t.Fatalf("false negative for key %x (types %v)", key, types)
					}
				}
				pos := 0
				for range 2000 {
					q := randTuple(rng, types, 2*domain)
					got, want := f.Contains(q), model(q)
					if got != want {
						t.Fatalf("Contains(%x) = %v, model %v", q, got, want)
					}
					if got {
						pos++
					}
				}
				if sp.Kind != filters.None && pos == 0 {
					t.Logf("round %d: no query passed", round)
				}
			}
		})
	}
}

// TestNewCombination: a tuple of present values in a new combination passes
// whatever the filter, even the exact kind: the layout's blind spot.
func TestNewCombination(t *testing.T) {
	types := []tuple.Type{tuple.String, tuple.Int}
	key := func(s string, v int64) []byte { return tuple.AppendInt(tuple.AppendString(nil, []byte(s)), v) }
	keys := [][]byte{key("a", 1), key("b", 2)}
	for _, kind := range []filters.Kind{filters.Exact, filters.Bloom, filters.Cuckoo} {
		b, err := Build(kind, types, keys, filters.Sizing{})
		if err != nil {
			t.Fatal(err)
		}
		if !b.Filter.Contains(key("a", 2)) || !b.Filter.Contains(key("b", 1)) {
			t.Errorf("%s: a new combination of present values was rejected", kind)
		}
		if kind == filters.Exact && (b.Filter.Contains(key("c", 1)) || b.Filter.Contains(key("a", 3))) {
			t.Errorf("exact: an absent value passed")
		}
	}
}

// TestMalformed: a key that is not a tuple of the types passes (no false
// negative); Build refuses it.
func TestMalformed(t *testing.T) {
	types := []tuple.Type{tuple.Int, tuple.String}
	keys := [][]byte{tuple.AppendString(tuple.AppendInt(nil, 1), []byte("x"))}
	b, err := Build(filters.Exact, types, keys, filters.Sizing{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}, tuple.AppendInt(nil, 1), append(bytes.Clone(keys[0]), 9), tuple.AppendString(tuple.AppendInt(nil, 1), []byte("x"))[:10]} {
		if !b.Filter.Contains(bad) {
			t.Errorf("malformed key %x rejected", bad)
		}
	}
	if _, err := Build(filters.Bloom, types, [][]byte{{1, 2}}, filters.Sizing{}); !errors.Is(err, ErrKeys) || !errors.Is(err, tuple.ErrMalformed) {
		t.Errorf("Build of a malformed key: %v", err)
	}
	if b, err := Build(filters.Bloom, types, nil, filters.Sizing{}); err != nil || b.Filter.Contains(keys[0]) {
		t.Errorf("Build of no keys: %v, or it passes a key", err)
	}
	if _, err := Build(filters.Exact, types, nil, filters.Sizing{}); err != nil {
		t.Errorf("Build of no keys, exact: %v", err)
	}
	if _, err := Build("quotient", types, keys, filters.Sizing{}); !errors.Is(err, filters.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := Build(filters.Bloom, nil, keys, filters.Sizing{}); !errors.Is(err, ErrKeys) {
		t.Errorf("no types: %v", err)
	}
	if _, err := Build(filters.Bloom, []tuple.Type{7}, keys, filters.Sizing{}); !errors.Is(err, ErrKeys) {
		t.Errorf("type 7: %v", err)
	}
}

// TestNoAlloc: Contains does not allocate on keys without an escaped 0x00.
func TestNoAlloc(t *testing.T) {
	rng := testutil.Rand(1)
	types := []tuple.Type{tuple.String, tuple.Int, tuple.String}
	var keys [][]byte
	for i := range 1000 {
		keys = append(keys, tuple.AppendString(tuple.AppendInt(tuple.AppendString(nil, fmt.Appendf(nil, "a%d", i)), int64(i)), fmt.Appendf(nil, "c%d", rng.IntN(50))))
	}
	for _, kind := range []filters.Kind{filters.Bloom, filters.CBF, filters.Exact} {
		b, err := Build(kind, types, keys, filters.Sizing{})
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		if a := testing.AllocsPerRun(1000, func() { b.Filter.Contains(keys[i%len(keys)]); i++ }); a != 0 {
			t.Errorf("%s: %v allocations a Contains", kind, a)
		}
	}
}

// TestEncodeDecode: every kind's per-column filter encodes to
// SerializedBytes, decodes to a filter that answers as the built one, and
// re-encodes to the same bytes (but exact, whose key order may change);
// FillFPP is the product of the columns'; Decode refuses truncations and
// trailing bytes.
func TestEncodeDecode(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	types := []tuple.Type{tuple.String, tuple.Int, tuple.String}
	keys := randTuples(rng, types, 500, 40)
	for _, sp := range filters.Kinds() {
		t.Run(string(sp.Kind), func(t *testing.T) {
			b, err := Build(sp.Kind, types, keys, filters.Sizing{BitsPerKey: 16})
			if errors.Is(err, cuckoo.ErrFull) {
				t.Skipf("the cuckoo kind could not hold a column: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := b.Marshal()
			if err != nil || int64(len(data)) != b.SerializedBytes {
				t.Fatalf("Marshal: %d bytes, %v; SerializedBytes %d", len(data), err, b.SerializedBytes)
			}
			dec, err := b.Spec.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			for range 3000 {
				q := randTuple(rng, types, 80)
				if dec.Contains(q) != b.Filter.Contains(q) {
					t.Fatalf("decoded filter answers %x differently", q)
				}
			}
			var again bytes.Buffer
			if err := b.Spec.Encode(dec, &again); err != nil {
				t.Fatal(err)
			}
			if sp.Kind != filters.Exact && !bytes.Equal(again.Bytes(), data) {
				t.Fatalf("re-encoding differs")
			}
			if fill := b.Spec.FillFPP(dec); sp.HasFillFPP() {
				want := 1.0
				for _, c := range Columns(b) {
					want *= sp.FillFPP(c.Filter)
				}
				if math.Abs(fill-want) > 1e-12*want {
					t.Fatalf("FillFPP %g, columns' product %g", fill, want)
				}
			}
			if b.Spec.FPP(b.Params, uint64(b.N)) != b.FPP || b.Spec.Deletes || b.Spec.Kind != sp.Kind {
				t.Fatalf("spec: FPP %g, Deletes %v, kind %s", b.Spec.FPP(b.Params, 0), b.Spec.Deletes, b.Spec.Kind)
			}
			for _, cut := range []int{0, 3, 4, 5, 4 + len(types), 12, len(data) / 2, len(data) - 1} {
				if _, err := b.Spec.Decode(data[:cut]); err == nil {
					t.Fatalf("a truncation to %d of %d bytes decoded", cut, len(data))
				}
			}
			if _, err := b.Spec.Decode(append(bytes.Clone(data), 0)); err == nil {
				t.Fatalf("a trailing byte decoded")
			}
		})
	}
}

// FuzzDecode: the per-column decoder of every kind refuses or accepts
// arbitrary bytes without panicking; what it accepts answers Contains and
// encodes to bytes that decode to the same encoding (a fixed point), equal
// to the input for the kinds whose format is canonical (all but exact).
func FuzzDecode(f *testing.F) {
	kinds := filters.Kinds()
	types := []tuple.Type{tuple.Int, tuple.String}
	var keys [][]byte
	for i := range 20 {
		keys = append(keys, tuple.AppendString(tuple.AppendInt(nil, int64(i%7)), fmt.Appendf(nil, "s%d", i%5)))
	}
	specs := make([]*filters.Spec, len(kinds))
	for i, sp := range kinds {
		b, err := Build(sp.Kind, types, keys, filters.Sizing{})
		if err != nil {
			f.Fatal(err)
		}
		specs[i] = b.Spec
		data, err := b.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	f.Add(uint8(2), []byte{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(2), []byte{17, 0, 0, 0})
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		i := int(k) % len(specs)
		sp := specs[i]
		flt, err := sp.Decode(data)
		if err != nil {
			return
		}
		flt.Contains([]byte("probe"))
		flt.Contains(keys[0])
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
		if sp.Kind != filters.Exact && !bytes.Equal(enc.Bytes(), data) {
			t.Fatalf("%s: decoded %d bytes, encodes to %d others", sp.Kind, len(data), enc.Len())
		}
		sp.FillFPP(flt)
	})
}

// TestConcurrentReaders: goroutines share one Filter (run with -race).
func TestConcurrentReaders(t *testing.T) {
	rng := testutil.Rand(3)
	types := []tuple.Type{tuple.String, tuple.String}
	keys := randTuples(rng, types, 300, 30)
	b, err := Build(filters.CBF, types, keys, filters.Sizing{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range keys {
				if !b.Filter.Contains(k) {
					t.Error("false negative")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestNewPanics: New refuses mismatched or out-of-range arguments.
func TestNewPanics(t *testing.T) {
	for _, tc := range []struct {
		types []tuple.Type
		n     int
	}{{nil, 0}, {[]tuple.Type{tuple.Int}, 2}, {make([]tuple.Type, MaxColumns+1), MaxColumns + 1}, {[]tuple.Type{9}, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%v, %d filters) did not panic", tc.types, tc.n)
				}
			}()
			New(tc.types, make([]filters.Filter, tc.n))
		}()
	}
}

// TestBudgetIsTheLayouts: a Sizing.Budget is the whole layout's: the
// columns' filters together stay within it (each took the whole budget).
func TestBudgetIsTheLayouts(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(3)
	types := []tuple.Type{tuple.Int, tuple.String, tuple.Int}
	keys := randTuples(rng, types, 3000, 100000)
	for _, kind := range []filters.Kind{filters.Bloom, filters.Blocked, filters.Cuckoo} {
		b, err := Build(kind, types, keys, filters.Sizing{Budget: 8 << 10})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if mem := b.Summary.MemoryBits / 8; mem > 8<<10 || mem < 4<<10 {
			t.Errorf("%s: %d bytes for an 8 KiB budget (%s)", kind, mem, b.Params)
		}
	}
}
