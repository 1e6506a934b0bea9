package tuple

import (
	"bytes"
	"cmp"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// comp is a model component: an int or a string.
type comp struct {
	t Type
	i int64
	s []byte
}

func encode(cs []comp) []byte {
	var b []byte
	for _, c := range cs {
		if c.t == Int {
			b = AppendInt(b, c.i)
		} else {
			b = AppendString(b, c.s)
		}
	}
	return b
}

func compare(a, b []comp) int {
	for i := range a {
		var c int
		if a[i].t == Int {
			c = cmp.Compare(a[i].i, b[i].i)
		} else {
			c = bytes.Compare(a[i].s, b[i].s)
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// randTuple draws components from small alphabets, so that equal, prefix
// and 0x00/0x01/0xFF-holding strings are common.
func randTuple(r *rand.Rand, types []Type) []comp {
	cs := make([]comp, len(types))
	alphabet := []byte{0, 1, 0xFF, 'a', 'b'}
	for i, t := range types {
		cs[i].t = t
		if t == Int {
			cs[i].i = int64(r.IntN(7)) - 3
			if r.IntN(4) == 0 {
				cs[i].i = int64(r.Uint64())
			}
			continue
		}
		s := make([]byte, r.IntN(4))
		for j := range s {
			s[j] = alphabet[r.IntN(len(alphabet))]
		}
		cs[i].s = s
	}
	return cs
}

func randTypes(r *rand.Rand) []Type {
	ts := make([]Type, 1+r.IntN(4))
	for i := range ts {
		ts[i] = Type(r.IntN(2))
	}
	return ts
}

// TestModel checks against a model of tuples: Split inverts the encoding,
// and byte order of encodings is the tuples' order (so equal bytes iff equal
// tuples: injective).
func TestModel(t *testing.T) {
	seed := testutil.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	var parts [][]byte
	var scratch []byte
	for range 20000 {
		types := randTypes(r)
		a, b := randTuple(r, types), randTuple(r, types)
		ea, eb := encode(a), encode(b)
		if got, want := cmp.Compare(bytes.Compare(ea, eb), 0), compare(a, b); got != want {
			t.Fatalf("types %v: %v vs %v: bytes compare %d, tuples %d (% x, % x)", types, a, b, got, want, ea, eb)
		}
		var err error
		parts, scratch, err = Split(ea, types, parts, scratch)
		if err != nil {
			t.Fatalf("Split(% x, %v): %v", ea, types, err)
		}
		for i, c := range a {
			want := c.s
			if c.t == Int {
				want = AppendInt(nil, c.i)
				if DecodeInt(parts[i]) != c.i {
					t.Fatalf("DecodeInt: %d, want %d", DecodeInt(parts[i]), c.i)
				}
			}
			if !bytes.Equal(parts[i], want) {
				t.Fatalf("Split(% x) part %d = % x, want % x", ea, i, parts[i], want)
			}
		}
	}
}

func TestDistinguishesSplits(t *testing.T) {
	s := func(v ...string) []byte {
		var b []byte
		for _, x := range v {
			b = AppendString(b, []byte(x))
		}
		return b
	}
	if bytes.Equal(s("1", "23"), s("12", "3")) {
		t.Fatal(`("1","23") and ("12","3") encode alike`)
	}
	if bytes.Equal(s("a\x00", ""), s("a", "\x00")) {
		t.Fatal("NUL bytes make two tuples alike")
	}
	if !(bytes.Compare(s("a", "z"), s("ab", "a")) < 0) {
		t.Fatal(`("a","z") does not sort before ("ab","a")`)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, c := range []struct {
		key   []byte
		types []Type
	}{
		{[]byte{1, 2, 3}, []Type{Int}},
		{[]byte("abc"), []Type{String}},
		{[]byte("a\x00\x02"), []Type{String}},
		{append(AppendString(nil, []byte("a")), 'x'), []Type{String}},
		{AppendInt(nil, 1), []Type{Int, Int}},
		{AppendInt(nil, 1), []Type{Type(9)}},
	} {
		if _, _, err := Split(c.key, c.types, nil, nil); !errors.Is(err, ErrMalformed) {
			t.Errorf("Split(% x, %v) = %v, want ErrMalformed", c.key, c.types, err)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	key := AppendString(AppendInt(nil, 42), []byte("abc"))
	types := []Type{Int, String}
	parts := make([][]byte, 0, 2)
	if n := testing.AllocsPerRun(100, func() {
		_, _, _ = Split(key, types, parts, nil)
		_ = AppendString(AppendInt(key[:0:cap(key)], 1), []byte("abc"))
	}); n != 0 {
		t.Fatalf("%v allocations a Split and encode, want 0", n)
	}
}

// FuzzSplit: Split never panics, and what it accepts re-encodes to the same
// bytes (the encoding is canonical).
func FuzzSplit(f *testing.F) {
	f.Add(AppendString(AppendInt(nil, -5), []byte("a\x00b")), uint8(0b10), uint8(2))
	f.Add([]byte{0, 1, 0, 0xFF, 0, 1}, uint8(0b11), uint8(2))
	f.Fuzz(func(t *testing.T, key []byte, mask, n uint8) {
		types := make([]Type, 1+n%4)
		for i := range types {
			types[i] = Type(mask >> i & 1)
		}
		parts, _, err := Split(key, types, nil, nil)
		if err != nil {
			return
		}
		var re []byte
		for i, p := range parts {
			if types[i] == Int {
				re = AppendIntKey(re, p)
			} else {
				re = AppendString(re, p)
			}
		}
		if !bytes.Equal(re, key) {
			t.Fatalf("Split(% x, %v) re-encodes to % x", key, types, re)
		}
	})
}
