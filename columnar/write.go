package columnar

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Writing a typed column back: the inverse of reading one. A table side's
// columns reach the output as canonical text (Column.AppendText); a Parquet
// output writes them as their own types again, so a join of Parquet files
// keeps their schema. ParquetNode is the column's schema node; Value reads
// the text back as the value Parquet stores.
//
// Where Parquet has no exact twin the nearest lossless type is written: a
// timestamp or time in seconds (Arrow has them, Parquet does not) is
// written in milliseconds; a UUID (read as its 8-4-4-4-12 text) as a
// string; a float16 (read as float32) as a float32; Int96 timestamps as
// INT64 nanoseconds. Every value reads back as the text it was written from.

// Physical is where a Value of a column of its type is kept: the Parquet
// physical type its ParquetNode declares.
type Physical int

const (
	PhysInt32 Physical = iota
	PhysInt64
	PhysFloat
	PhysDouble
	PhysBool
	PhysBytes
	PhysFixed
)

// Physical is the Parquet physical type ParquetNode gives a column of type
// t; fixedLen is the byte length of a PhysFixed (a decimal of more than 18
// digits).
func (t Type) Physical() (p Physical, fixedLen int) {
	switch t.Kind {
	case Int, Uint:
		if t.Width <= 32 {
			return PhysInt32, 0
		}
		return PhysInt64, 0
	case Float:
		if t.Width <= 32 {
			return PhysFloat, 0
		}
		return PhysDouble, 0
	case Bool:
		return PhysBool, 0
	case Date:
		return PhysInt32, 0
	case Timestamp:
		return PhysInt64, 0
	case Time:
		if t.parquetUnit() == Milli {
			return PhysInt32, 0
		}
		return PhysInt64, 0
	case Decimal:
		switch {
		case t.Precision <= 9:
			return PhysInt32, 0
		case t.Precision <= 18:
			return PhysInt64, 0
		}
		return PhysFixed, decimalBytes(t.Precision)
	}
	return PhysBytes, 0 // String, Binary, Text
}

// decimalBytes is the fewest bytes of two's complement that hold every
// unscaled value of precision digits: the Parquet specification's
// FIXED_LEN_BYTE_ARRAY length for a decimal.
func decimalBytes(precision int) int {
	// 10^precision - 1 needs ceil(precision*log2(10)) + 1 bits with a sign.
	bits := int(math.Ceil(float64(precision)*math.Log2(10))) + 1
	return (bits + 7) / 8
}

// parquetUnit is the unit a Timestamp or Time is written in: Parquet has
// milliseconds, microseconds and nanoseconds, not seconds.
func (t Type) parquetUnit() TimeUnit {
	if t.Unit == Second {
		return Milli
	}
	return t.Unit
}

func schemaUnit(u TimeUnit) schema.TimeUnitType {
	switch u {
	case Micro:
		return schema.TimeUnitMicros
	case Nano:
		return schema.TimeUnitNanos
	}
	return schema.TimeUnitMillis
}

// ParquetNode returns the schema node of an optional (nullable) Parquet
// column named name holding values of type t: parquetType of the node is
// t again, but for the substitutions above. Text is written as a string.
func ParquetNode(name string, t Type) (schema.Node, error) {
	rep := parquet.Repetitions.Optional
	p, fixed := t.Physical()
	switch t.Kind {
	case Int, Uint:
		phys := parquet.Types.Int64
		if p == PhysInt32 {
			phys = parquet.Types.Int32
		}
		return schema.NewPrimitiveNodeLogical(name, rep, schema.NewIntLogicalType(int8(t.Width), t.Kind == Int), phys, -1, -1)
	case Float:
		if p == PhysFloat {
			return schema.NewPrimitiveNode(name, rep, parquet.Types.Float, -1, -1)
		}
		return schema.NewPrimitiveNode(name, rep, parquet.Types.Double, -1, -1)
	case Bool:
		return schema.NewPrimitiveNode(name, rep, parquet.Types.Boolean, -1, -1)
	case Date:
		return schema.NewPrimitiveNodeLogical(name, rep, schema.DateLogicalType{}, parquet.Types.Int32, -1, -1)
	case Timestamp:
		return schema.NewPrimitiveNodeLogical(name, rep, schema.NewTimestampLogicalTypeForce(t.UTC, schemaUnit(t.parquetUnit())), parquet.Types.Int64, -1, -1)
	case Time:
		phys := parquet.Types.Int64
		if p == PhysInt32 {
			phys = parquet.Types.Int32
		}
		return schema.NewPrimitiveNodeLogical(name, rep, schema.NewTimeLogicalType(t.UTC, schemaUnit(t.parquetUnit())), phys, -1, -1)
	case Decimal:
		lt := schema.NewDecimalLogicalType(int32(t.Precision), int32(t.Scale))
		switch p {
		case PhysInt32:
			return schema.NewPrimitiveNodeLogical(name, rep, lt, parquet.Types.Int32, -1, -1)
		case PhysInt64:
			return schema.NewPrimitiveNodeLogical(name, rep, lt, parquet.Types.Int64, -1, -1)
		}
		return schema.NewPrimitiveNodeLogical(name, rep, lt, parquet.Types.FixedLenByteArray, fixed, -1)
	case Binary:
		return schema.NewPrimitiveNode(name, rep, parquet.Types.ByteArray, -1, -1)
	}
	return schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
}

// Value is a value read back from its text: I for the integer physical
// types and booleans (0, 1), F for floats, B for bytes (String, Binary,
// Text, and a big decimal's two's complement).
type Value struct {
	I int64
	F float64
	B []byte
}

// Value reads back text that AppendText wrote for a value of type t (not
// NULL: the caller writes an empty field as NULL), as the Parquet physical
// value of ParquetNode's column. Text that no value of t prints as is an
// error naming the type. O(len(text)).
func (t Type) Value(text []byte) (Value, error) {
	bad := func() (Value, error) { return Value{}, fmt.Errorf("%q is not a %s as a join writes one", text, t) }
	switch t.Kind {
	case Int:
		v, err := strconv.ParseInt(string(text), 10, t.Width)
		if err != nil {
			return bad()
		}
		return Value{I: v}, nil
	case Uint:
		v, err := strconv.ParseUint(string(text), 10, t.Width)
		if err != nil {
			return bad()
		}
		return Value{I: int64(v)}, nil // an INT64 column of UINT_64 holds the bits; an INT32 one of UINT_32 the low 32
	case Float:
		v, err := strconv.ParseFloat(string(text), t.Width)
		if err != nil {
			return bad()
		}
		return Value{F: v}, nil
	case Bool:
		switch string(text) {
		case "true":
			return Value{I: 1}, nil
		case "false":
			return Value{I: 0}, nil
		}
		return bad()
	case Date:
		// A DATE is an INT32 of days (an Arrow date64's days beyond it
		// wrapped round where the caller narrowed them).
		day, ok := parseDate(text)
		if !ok {
			d, err := time.Parse("2006-01-02", string(text))
			if err != nil {
				return bad()
			}
			day = d.Unix() / 86400
		}
		if day < math.MinInt32 || day > math.MaxInt32 {
			return bad()
		}
		return Value{I: day}, nil
	case Timestamp:
		s := text
		if t.UTC {
			if !bytes.HasSuffix(s, []byte("Z")) {
				return bad()
			}
			s = s[:len(s)-1]
		}
		if sec, ns, ok := parseStamp(s); ok {
			if v, ok := inUnit(sec, int(ns), t.parquetUnit()); ok {
				return Value{I: v}, nil
			}
			return bad()
		}
		d, err := time.Parse("2006-01-02T15:04:05.999999999", string(s))
		if err != nil {
			return bad()
		}
		if v, ok := inUnit(d.Unix(), d.Nanosecond(), t.parquetUnit()); ok {
			return Value{I: v}, nil
		}
		return bad()
	case Time:
		if string(text) == "24:00:00" { // the day's end (appendTimeOfDay)
			if v, ok := inUnit(86400, 0, t.parquetUnit()); ok {
				return Value{I: v}, nil
			}
		}
		if sec, ns, ok := parseClock(text); ok {
			if v, ok := inUnit(sec, int(ns), t.parquetUnit()); ok {
				return Value{I: v}, nil
			}
			return bad()
		}
		d, err := time.Parse("15:04:05.999999999", string(text))
		if err != nil {
			return bad()
		}
		secs := int64(d.Hour()*3600 + d.Minute()*60 + d.Second())
		if v, ok := inUnit(secs, d.Nanosecond(), t.parquetUnit()); ok {
			return Value{I: v}, nil
		}
		return bad()
	case Decimal:
		u, ok := unscaled(text, t.Scale)
		if !ok {
			return bad()
		}
		if p, n := t.Physical(); p == PhysFixed {
			b, ok := toTwos(u, n)
			if !ok {
				return bad()
			}
			return Value{B: b}, nil
		}
		if !u.IsInt64() {
			return bad()
		}
		return Value{I: u.Int64()}, nil
	}
	return Value{B: text}, nil
}

// inUnit is s seconds and ns nanoseconds (0 <= ns < 1e9) in unit u, and
// false where that is beyond int64 (a timestamp of year 1 in nanoseconds:
// it wrapped round to another instant, silently, before).
func inUnit(s int64, ns int, u TimeUnit) (int64, bool) {
	per := int64(math.Pow10(int(u)))
	q := int64(ns) / int64(math.Pow10(9-int(u))) // 0 <= q < per
	if s > math.MinInt64/per && s < math.MaxInt64/per {
		return s*per + q, true // |s*per| at least per inside int64: q cannot carry it out
	}
	// The edges (the least instant of a unit has s one below
	// MinInt64/per and q > 0): exactly.
	v := new(big.Int).Mul(big.NewInt(s), big.NewInt(per))
	v.Add(v, big.NewInt(q))
	if !v.IsInt64() {
		return 0, false
	}
	return v.Int64(), true
}

// unscaled reads a decimal written with exactly scale fraction digits
// (appendDecimal) as its unscaled integer.
func unscaled(text []byte, scale int) (*big.Int, bool) {
	s := string(text)
	if scale > 0 {
		dot := len(s) - scale - 1
		if dot < 1 || s[dot] != '.' {
			return nil, false
		}
		s = s[:dot] + s[dot+1:]
	}
	if s == "" || s == "-" || s[0] == '+' {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 10)
	return v, ok
}

// toTwos writes v as n bytes of big-endian two's complement; ok is false
// when it does not fit.
func toTwos(v *big.Int, n int) ([]byte, bool) {
	if v.BitLen() >= 8*n {
		return nil, false
	}
	m := v
	if v.Sign() < 0 {
		m = new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	}
	return m.FillBytes(make([]byte, n)), true
}
