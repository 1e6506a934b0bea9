package columnar

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// cellTypes are the types whose values NativeValue may carry, and some it
// leaves to text.
var cellTypes = []Type{
	{Kind: Int, Width: 8}, {Kind: Int, Width: 16}, {Kind: Int, Width: 32}, {Kind: Int, Width: 64},
	{Kind: Uint, Width: 8}, {Kind: Uint, Width: 32}, {Kind: Uint, Width: 64},
	{Kind: Float, Width: 32}, {Kind: Float, Width: 64}, {Kind: Bool}, {Kind: Date},
	{Kind: Timestamp, Unit: Second}, {Kind: Timestamp, Unit: Milli}, {Kind: Timestamp, Unit: Micro, UTC: true}, {Kind: Timestamp, Unit: Nano},
	{Kind: Time, Unit: Second}, {Kind: Time, Unit: Milli}, {Kind: Time, Unit: Micro}, {Kind: Time, Unit: Nano},
	{Kind: Decimal, Precision: 10, Scale: 2}, {Kind: String},
}

// randomValue is a random value of t in a one-row column, edges often.
func randomValue(rng *rand.Rand, t Type) *Column {
	c := &Column{Type: t, n: 1}
	edge := func(vs ...int64) int64 {
		if rng.IntN(4) == 0 {
			return vs[rng.IntN(len(vs))]
		}
		return rng.Int64()
	}
	switch t.Kind {
	case Int:
		v := edge(0, -1, math.MinInt64, math.MaxInt64)
		c.ints = []int64{v >> (64 - t.Width)} // within the width
	case Uint:
		v := uint64(edge(0, -1, math.MaxInt64))
		c.ints = []int64{int64(v >> (64 - t.Width))}
	case Float:
		v := math.Float64frombits(uint64(edge(0, math.MinInt64, 0x7ff0000000000000, -0x10000000000000, 0x7ff8000000000001))) // 0, -0, +Inf, -Inf, a NaN
		if rng.IntN(2) == 0 {
			v = rng.NormFloat64() * math.Pow10(rng.IntN(40)-20)
		}
		if t.Width == 32 {
			v = float64(float32(v))
		}
		c.floats = []float64{v}
	case Bool:
		c.ints = []int64{rng.Int64N(3)} // 2: a nonzero other than 1
	case Date:
		c.ints = []int64{edge(0, -1, math.MinInt32, math.MaxInt32, math.MaxInt32+1)}
		if rng.IntN(2) == 0 {
			c.ints[0] = randomDay(rng)
		}
	case Timestamp:
		c.ints = []int64{edge(0, -1, math.MinInt64, math.MaxInt64)}
	case Time:
		day := 86400 * int64(math.Pow10(int(t.Unit)))
		c.ints = []int64{edge(0, -1, day-1, day)}
		if rng.IntN(2) == 0 {
			c.ints[0] = rng.Int64N(day)
		}
	case Decimal:
		c.ints = []int64{rng.Int64N(1e10) - 5e9}
	case String:
		c.offs, c.data = []int{0, 3}, []byte(`a,"`)
	}
	return c
}

// TestNativeValue: a value carried natively is the Value that Type.Value
// reads from its text, of the physical type the sink writes (a float32's
// bits, not the double's), and a value whose text Type.Value refuses is
// never carried natively (the text path reports it).
func TestNativeValue(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	natives := 0
	for range 20000 {
		ty := cellTypes[rng.IntN(len(cellTypes))]
		c := randomValue(rng, ty)
		tag, bits, ok := c.NativeValue(0)
		text := c.AppendText(nil, 0)
		want, err := ty.Value(text)
		if !ok {
			continue
		}
		natives++
		if err != nil {
			t.Fatalf("%s %q: carried natively, but its text is refused: %v", ty, text, err)
		}
		var b [8]byte
		for k := range b {
			b[k] = byte(bits >> (8 * k))
		}
		got := CellValue(tag, b[:])
		p, _ := ty.Physical()
		same := got.I == want.I
		switch p {
		case PhysFloat:
			same = tag == CellFloat && math.Float32bits(float32(got.F)) == math.Float32bits(float32(want.F))
		case PhysDouble:
			same = tag == CellFloat && math.Float64bits(got.F) == math.Float64bits(want.F)
		case PhysBool:
			same = tag == CellInt && (got.I != 0) == (want.I != 0)
		case PhysInt32:
			same = tag == CellInt && int32(got.I) == int32(want.I)
		case PhysBytes, PhysFixed:
			same = false // never native
		}
		if !same {
			t.Fatalf("%s %q: native %+v, its text reads %+v", ty, text, got, want)
		}
	}
	if natives < 10000 {
		t.Fatalf("only %d of 20000 values carried natively", natives)
	}
}

// TestCellsRoundTrip: AppendCells' cells read back (NextCell) as the row:
// a NULL as CellNull, a native value's 8 bytes, other values as
// AppendText's text; a row cut short is an error, never a panic.
func TestCellsRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 8))
	for range 2000 {
		n := rng.IntN(6)
		cols := make([]*Column, n)
		native := make([]bool, n)
		for j := range cols {
			cols[j] = randomValue(rng, cellTypes[rng.IntN(len(cellTypes))])
			if rng.IntN(5) == 0 {
				cols[j].valid = []bool{false}
			}
			if rng.IntN(7) == 0 {
				cols[j] = nil
			}
			native[j] = rng.IntN(4) > 0
		}
		row := AppendCells([]byte("x"), cols, 0, native)[1:]
		rest := row
		for j, c := range cols {
			tag, v, more, err := NextCell(rest)
			if err != nil {
				t.Fatalf("cell %d of %q: %v", j, row, err)
			}
			rest = more
			switch {
			case c == nil || c.Null(0):
				if tag != CellNull {
					t.Fatalf("cell %d: a NULL as tag %d", j, tag)
				}
			case tag == CellText:
				if want := c.AppendText(nil, 0); !bytes.Equal(v, want) {
					t.Fatalf("cell %d (%s): text %q, want %q", j, c.Type, v, want)
				}
				if _, _, ok := c.NativeValue(0); ok && native[j] {
					t.Fatalf("cell %d (%s): a native value as text", j, c.Type)
				}
			default:
				_, bits, ok := c.NativeValue(0)
				if !ok || !native[j] || len(v) != 8 || !bytes.Equal(v, u64(bits)) {
					t.Fatalf("cell %d (%s): tag %d %x", j, c.Type, tag, v)
				}
			}
		}
		if len(rest) != 0 {
			t.Fatalf("%d bytes after the row's cells", len(rest))
		}
		for cut := range len(row) {
			b := row[:cut]
			for len(b) > 0 {
				var err error
				if _, _, b, err = NextCell(b); err != nil {
					break
				}
			}
		}
	}
	if _, _, _, err := NextCell([]byte{9}); err == nil {
		t.Fatal("tag 9 read")
	}
}

func u64(bits uint64) []byte {
	var b [8]byte
	for k := range b {
		b[k] = byte(bits >> (8 * k))
	}
	return b[:]
}

// FuzzNextCell: any bytes read as cells end in an error or in cells that
// lie within them, never a panic.
func FuzzNextCell(f *testing.F) {
	f.Add(AppendTextBytes(AppendCells(nil, []*Column{{Type: Type{Kind: Int, Width: 64}, n: 1, ints: []int64{5}}}, 0, []bool{true}), []byte("ab")))
	f.Add([]byte{CellText, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			tag, v, rest, err := NextCell(b)
			if err != nil {
				return
			}
			if len(rest) >= len(b) || len(v) > len(b) || tag > CellFloat {
				t.Fatalf("cell %d of %d bytes, %d left of %d", tag, len(v), len(rest), len(b))
			}
			b = rest
		}
	})
}
