package columnar

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// arrowType is the Type of an Arrow data type, or an error naming what a
// join does not read (nested types, intervals, durations).
func arrowType(dt arrow.DataType) (Type, error) {
	switch t := dt.(type) {
	case *arrow.Int8Type:
		return Type{Kind: Int, Width: 8}, nil
	case *arrow.Int16Type:
		return Type{Kind: Int, Width: 16}, nil
	case *arrow.Int32Type:
		return Type{Kind: Int, Width: 32}, nil
	case *arrow.Int64Type:
		return Type{Kind: Int, Width: 64}, nil
	case *arrow.Uint8Type:
		return Type{Kind: Uint, Width: 8}, nil
	case *arrow.Uint16Type:
		return Type{Kind: Uint, Width: 16}, nil
	case *arrow.Uint32Type:
		return Type{Kind: Uint, Width: 32}, nil
	case *arrow.Uint64Type:
		return Type{Kind: Uint, Width: 64}, nil
	case *arrow.Float16Type, *arrow.Float32Type:
		return Type{Kind: Float, Width: 32}, nil
	case *arrow.Float64Type:
		return Type{Kind: Float, Width: 64}, nil
	case *arrow.BooleanType:
		return Type{Kind: Bool}, nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType, *arrow.NullType:
		return Type{Kind: String}, nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.FixedSizeBinaryType:
		return Type{Kind: Binary}, nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return Type{Kind: Date}, nil
	case *arrow.TimestampType:
		return Type{Kind: Timestamp, Unit: arrowUnit(t.Unit), UTC: t.TimeZone != ""}, nil
	case *arrow.Time32Type:
		return Type{Kind: Time, Unit: arrowUnit(t.Unit)}, nil
	case *arrow.Time64Type:
		return Type{Kind: Time, Unit: arrowUnit(t.Unit)}, nil
	case *arrow.Decimal128Type:
		return Type{Kind: Decimal, Precision: int(t.Precision), Scale: int(t.Scale)}, nil
	case *arrow.DictionaryType:
		return arrowType(t.ValueType)
	}
	return Type{}, fmt.Errorf("type %s, which a join does not read (flat integers, floats, booleans, text, bytes, dates, times, timestamps and decimals)", dt)
}

func arrowUnit(u arrow.TimeUnit) TimeUnit {
	switch u {
	case arrow.Millisecond:
		return Milli
	case arrow.Microsecond:
		return Micro
	case arrow.Nanosecond:
		return Nano
	}
	return Second
}

// fromArrow copies an Arrow array of type t (arrowType's) into a Column.
func fromArrow(a arrow.Array, t Type) (*Column, error) {
	n := a.Len()
	c := &Column{Type: t, n: n}
	if a.NullN() > 0 {
		c.valid = make([]bool, n)
		for i := range n {
			c.valid[i] = a.IsValid(i)
		}
	}
	ints := func(get func(i int) int64) {
		c.ints = make([]int64, n)
		for i := range n {
			if a.IsValid(i) {
				c.ints[i] = get(i)
			}
		}
	}
	bytesOf := func(get func(i int) []byte) {
		c.offs = make([]int, n+1)
		for i := range n {
			if a.IsValid(i) {
				c.data = append(c.data, get(i)...)
			}
			c.offs[i+1] = len(c.data)
		}
	}
	switch v := a.(type) {
	case *array.Int8:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Int16:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Int32:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Int64:
		ints(func(i int) int64 { return v.Value(i) })
	case *array.Uint8:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Uint16:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Uint32:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Uint64:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Boolean:
		ints(func(i int) int64 {
			if v.Value(i) {
				return 1
			}
			return 0
		})
	case *array.Date32:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Date64:
		// The day a date64's milliseconds fall in (floored: Arrow asks
		// for whole days, and -1 ms is in 1969-12-31, not 1970-01-01).
		ints(func(i int) int64 { return floorDiv(int64(v.Value(i)), 86_400_000) })
	case *array.Timestamp:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Time32:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Time64:
		ints(func(i int) int64 { return int64(v.Value(i)) })
	case *array.Float16:
		c.floats = make([]float64, n)
		for i := range n {
			c.floats[i] = float64(v.Value(i).Float32())
		}
	case *array.Float32:
		c.floats = make([]float64, n)
		for i := range n {
			c.floats[i] = float64(v.Value(i))
		}
	case *array.Float64:
		c.floats = make([]float64, n)
		for i := range n {
			c.floats[i] = v.Value(i)
		}
	case *array.String:
		bytesOf(func(i int) []byte { return []byte(v.Value(i)) })
	case *array.LargeString:
		bytesOf(func(i int) []byte { return []byte(v.Value(i)) })
	case *array.StringView: // Polars' default Arrow output
		bytesOf(func(i int) []byte { return []byte(v.Value(i)) })
	case *array.Binary:
		bytesOf(v.Value)
	case *array.BinaryView:
		bytesOf(v.Value)
	case *array.LargeBinary:
		bytesOf(v.Value)
	case *array.FixedSizeBinary:
		bytesOf(v.Value)
	case *array.Null:
		c.valid = make([]bool, n)
		c.offs = make([]int, n+1)
	case *array.Decimal128:
		if t.Precision <= 18 {
			ints(func(i int) int64 { return v.Value(i).BigInt().Int64() })
		} else {
			bytesOf(func(i int) []byte { return twos(v.Value(i).BigInt(), 16) })
		}
	case *array.Dictionary:
		if t.Kind == String || t.Kind == Binary { // the entries, not a copy a row
			d, err := arrowDict(v, t)
			if err != nil {
				return nil, err
			}
			return d.Column(nil), nil
		}
		dict, err := fromArrow(v.Dictionary(), t)
		if err != nil {
			return nil, err
		}
		return dict.gather(v, n), nil
	default:
		return nil, fmt.Errorf("an array of %s, which a join does not read", a.DataType())
	}
	return c, nil
}

// arrowDict is a dictionary array of text or bytes (t) as a Dict: its
// dictionary's values once, and each row's index (-1 where the row, or
// the entry it points to, is NULL).
func arrowDict(a *array.Dictionary, t Type) (*Dict, error) {
	vals, err := fromArrow(a.Dictionary(), t)
	if err != nil {
		return nil, err
	}
	d := &Dict{Values: vals, Rows: make([]int32, a.Len())}
	for i := range d.Rows {
		d.Rows[i] = -1
		if a.IsValid(i) {
			if e := a.GetValueIndex(i); !vals.Null(e) {
				d.Rows[i] = int32(e)
			}
		}
	}
	return d, nil
}

// gather makes the column of a dictionary array's values.
func (c *Column) gather(d *array.Dictionary, n int) *Column {
	out := &Column{Type: c.Type, n: n, valid: make([]bool, n)}
	switch {
	case c.ints != nil:
		out.ints = make([]int64, n)
	case c.floats != nil:
		out.floats = make([]float64, n)
	default:
		out.offs = make([]int, n+1)
	}
	for i := range n {
		if d.IsValid(i) && !c.Null(d.GetValueIndex(i)) {
			j := d.GetValueIndex(i)
			out.valid[i] = true
			switch {
			case c.ints != nil:
				out.ints[i] = c.ints[j]
			case c.floats != nil:
				out.floats[i] = c.floats[j]
			default:
				out.data = append(out.data, c.Bytes(j)...)
			}
		}
		if out.offs != nil {
			out.offs[i+1] = len(out.data)
		}
	}
	return out
}

// twos is v as a big-endian two's complement of size bytes.
func twos(v *big.Int, size int) []byte {
	b := make([]byte, size)
	if v.Sign() >= 0 {
		return v.FillBytes(b)
	}
	m := new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*size)))
	return m.FillBytes(b)
}

// floorDiv is a / b rounded toward minus infinity (b > 0). O(1).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
