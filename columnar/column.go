package columnar

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/acbfjoin/acbfjoin/key"
)

// Column is the values of one column in one chunk of a table (a Parquet
// row group, an Arrow record batch), decoded: integers and the types made
// of them in ints, floats in floats, text and bytes in data at offs. It is
// read by one goroutine at a time.
type Column struct {
	Type   Type
	n      int
	valid  []bool    // nil: every value is present
	ints   []int64   // Int, Uint (the bits of a uint64), Bool (0, 1), Date, Timestamp, Time, Decimal of up to 18 digits
	floats []float64 // Float
	offs   []int     // String, Binary, Decimal of more than 18 digits (big-endian two's complement): value i is data[offs[i]:offs[i+1]]
	data   []byte
	nulls  int      // HasNulls' answer: 0 not yet known, 1 none, 2 some
	strs   [][]byte // a JSON lines column's strings while it is built (jsonl.go)
	// dict and idx hold a String or Binary column as a dictionary's entries
	// (Dict.Column): value i is dict's value idx[i], a NULL where idx[i]
	// < 0 (valid says so too); offs and data are then nil.
	dict *Column
	idx  []int32
	// pooled says ints or floats came from the read buffers' pool
	// (pool.go): Release gives them back, ints as intsBase where it is
	// set (ints a part of it: readFixed's head before the values).
	pooled   bool
	intsBase []int64
}

// Select returns a column of c's values at rows (indexes into c): value j
// is c's value rows[j]. O(len(rows)) and their bytes.
func (c *Column) Select(rows []int) *Column {
	out := &Column{Type: c.Type, n: len(rows)}
	if c.valid != nil {
		out.valid = make([]bool, len(rows))
		for j, r := range rows {
			out.valid[j] = c.valid[r]
		}
	}
	if c.ints != nil {
		out.ints = make([]int64, len(rows))
		for j, r := range rows {
			out.ints[j] = c.ints[r]
		}
	}
	if c.floats != nil {
		out.floats = make([]float64, len(rows))
		for j, r := range rows {
			out.floats[j] = c.floats[r]
		}
	}
	if c.idx != nil {
		out.dict, out.idx = c.dict, make([]int32, len(rows))
		for j, r := range rows {
			out.idx[j] = c.idx[r]
		}
	}
	if c.offs != nil {
		out.offs = make([]int, len(rows)+1)
		for j, r := range rows {
			out.data = append(out.data, c.Bytes(r)...)
			out.offs[j+1] = len(out.data)
		}
	}
	return out
}

// Len is the number of values.
func (c *Column) Len() int { return c.n }

// Size is the bytes the decoded values take (a stream chunk's size, where
// no file says one).
func (c *Column) Size() int64 {
	n := int64(8*len(c.ints) + 8*len(c.floats) + 8*len(c.offs) + len(c.data) + len(c.valid) + 4*len(c.idx))
	if c.dict != nil {
		n += c.dict.Size()
	}
	return n
}

// Null reports whether value i is NULL.
func (c *Column) Null(i int) bool { return c.valid != nil && !c.valid[i] }

// HasNulls reports whether any value is NULL: O(Len) the first time, then
// O(1).
func (c *Column) HasNulls() bool {
	if c.nulls == 0 {
		c.nulls = 1
		for _, v := range c.valid {
			if !v {
				c.nulls = 2
				break
			}
		}
	}
	return c.nulls == 2
}

// Int64 is value i of an integer column (Int, Uint up to 63 bits).
func (c *Column) Int64(i int) int64 { return c.ints[i] }

// Int64s is rows lo to hi-1 of an integer column as int64s: the column's
// own values, not a copy (read them only, and not after Release). O(1).
func (c *Column) Int64s(lo, hi int) []int64 { return c.ints[lo:hi:hi] }

// Bytes is value i of a String or Binary column.
func (c *Column) Bytes(i int) []byte {
	if c.idx != nil {
		return c.dictBytes(i)
	}
	return c.data[c.offs[i]:c.offs[i+1]]
}

// dictBytes is Bytes of a column of dictionary entries: nil for a NULL.
func (c *Column) dictBytes(i int) []byte {
	if e := c.idx[i]; e >= 0 {
		return c.dict.Bytes(int(e))
	}
	return nil
}

func (c *Column) bigDecimal() bool { return c.Type.Kind == Decimal && c.offs != nil }

// AppendText appends value i as canonical text, the form every reader of
// the type reads back as the same value: an integer in decimal, a float in
// the fewest digits that read back as it (AppendFloat), true or false,
// text and bytes as they are, a date 2006-01-02, a timestamp
// 2006-01-02T15:04:05.999999999 (trailing zeros dropped; with Z when it is
// UTC), a time 15:04:05.999999999, a decimal with its scale's digits. A
// NULL appends nothing. O(1) but for text and big decimals.
func (c *Column) AppendText(dst []byte, i int) []byte {
	if c.Null(i) {
		return dst
	}
	t := c.Type
	switch t.Kind {
	case Int:
		return appendInt(dst, c.ints[i])
	case Uint:
		return appendUint(dst, uint64(c.ints[i]))
	case Float:
		return AppendFloat(dst, c.floats[i], t.Width)
	case Bool:
		return strconv.AppendBool(dst, c.ints[i] != 0)
	case String, Binary, Text:
		return append(dst, c.Bytes(i)...)
	case Date:
		return appendDay(dst, c.ints[i])
	case Timestamp:
		s, ns := split(c.ints[i], t.Unit)
		dst = appendStamp(dst, s, ns)
		if t.UTC {
			dst = append(dst, 'Z')
		}
		return dst
	case Time:
		s, ns := split(c.ints[i], t.Unit)
		return appendTimeOfDay(dst, s, ns)
	case Decimal:
		if c.bigDecimal() {
			return appendDecimal(dst, bigFromTwos(c.Bytes(i)), t.Scale)
		}
		return appendDecimal(dst, big.NewInt(c.ints[i]), t.Scale)
	}
	return dst
}

// AppendFloat appends v as the fewest digits that read back as it (as a
// float of bits bits), in plain decimal when 1e-7 <= |v| < 1e21 or v is
// zero (0.5, 100000, -0) and with an exponent beyond (1e-08, 2.5e+300):
// the rule JavaScript's Number printing and most CSV writers follow, so a
// number a CSV file holds in plain form prints back as the same text.
//
// A float64 that is a decimal of at most 6 fraction digits under 2^26 (a
// measurement, a ratio, a price: most values a table holds) is written
// without strconv's shortest-digits search (appendShortFloat; on the Intel
// Xeon of bench/results/intel-xeon, BenchmarkAppendFloat: 13 ns against
// strconv's 26, and 4 ns more, 52 against 48, for a value it leaves to
// strconv); the text is the same (TestAppendShortFloat, FuzzAppendFloat).
func AppendFloat(dst []byte, v float64, bits int) []byte {
	if bits == 64 {
		if out, ok := appendShortFloat(dst, v); ok {
			return out
		}
	}
	if a := math.Abs(v); a == 0 || a >= 1e-7 && a < 1e21 {
		return strconv.AppendFloat(dst, v, 'f', -1, bits)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bits)
}

// appendShortFloat appends v as strconv.AppendFloat(dst, v, 'f', -1, 64)
// does when |v| < 2^26 and v is the float64 nearest to a decimal of at
// most 6 fraction digits, and reports whether it did; otherwise dst is
// returned as it was. O(1): a product, a rounding, at most one division.
//
// Why the text is strconv's (the shortest digits that read back as v,
// printed without an exponent):
//   - below 2^26 a float's spacing is at most 2^-27, under 10^-6, so at
//     most one decimal of 6 fraction digits reads back as v, and any
//     shorter decimal that does is that one with trailing zeros: the
//     shortest is it with its trailing zeros cut;
//   - its n (the decimal is n/10^6) is the rounded |v|*10^6: that
//     product's error (under 2^-52 of it) and v's distance to the decimal
//     (half a spacing, times 10^6) are far under 0.5, and together under
//     2^-51 of the product, the test that lets a value with no short
//     decimal out after one product;
//   - n/10^6, with n < 2^53 and 10^6 exact, is computed correctly rounded
//     (Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990:
//     one IEEE division of two exact values), so n/10^6 == |v| proves
//     that the decimal reads back as v.
func appendShortFloat(dst []byte, v float64) ([]byte, bool) {
	a := math.Abs(v)
	if !(a < 1<<26) { // NaN too
		return dst, false
	}
	if a == 0 {
		if math.Signbit(v) {
			return append(dst, '-', '0'), true
		}
		return append(dst, '0'), true
	}
	x := a * 1e6
	n := math.Round(x)
	if n == 0 || math.Abs(x-n) > x*0x1p-51 || n/1e6 != a {
		return dst, false
	}
	if v < 0 {
		dst = append(dst, '-')
	}
	u := uint64(n)
	dst = appendUint(dst, u/1e6)
	f, d := u%1e6, 6
	if f == 0 {
		return dst, true
	}
	for f%10 == 0 {
		f, d = f/10, d-1
	}
	dst = append(dst, '.')
	for lim := pow10u[d-1]; f < lim; lim /= 10 {
		dst = append(dst, '0') // the fraction's leading zeros
	}
	return appendUint(dst, f), true
}

// split is v of unit u as seconds and nanoseconds (nanoseconds >= 0).
func split(v int64, u TimeUnit) (int64, int64) {
	// Each unit's divisor a constant, which the compiler divides by with
	// a multiplication: math.Pow10 and a division by a variable were a
	// fifth of a timestamp column's rendering (the flights' dates).
	var s, f, per, scale int64
	switch u {
	case Second:
		return v, 0
	case Milli:
		s, f, per, scale = v/1e3, v%1e3, 1e3, 1e6
	case Micro:
		s, f, per, scale = v/1e6, v%1e6, 1e6, 1e3
	case Nano:
		s, f, per, scale = v/1e9, v%1e9, 1e9, 1
	default:
		per = int64(math.Pow10(int(u)))
		s, f, scale = v/per, v%per, int64(math.Pow10(9-int(u)))
	}
	if f < 0 {
		s, f = s-1, f+per
	}
	return s, f * scale
}

// bigFromTwos reads a big-endian two's complement integer.
func bigFromTwos(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// appendDecimal appends unscaled/10^scale with exactly scale fraction
// digits.
func appendDecimal(dst []byte, unscaled *big.Int, scale int) []byte {
	s := unscaled.String()
	neg := s[0] == '-'
	if neg {
		s = s[1:]
		dst = append(dst, '-')
	}
	if scale <= 0 {
		return append(dst, s...)
	}
	for len(s) <= scale {
		s = "0" + s
	}
	dst = append(dst, s[:len(s)-scale]...)
	return append(append(dst, '.'), s[len(s)-scale:]...)
}

// ErrKey is wrapped by AppendKey's errors: a value that is no key of the
// type asked for.
var ErrKey = fmt.Errorf("not a join key")

// AppendKey appends the join key of value i (not NULL) compared as kt:
// an integer's key.Of bytes (of any width; a uint64 above 2^63-1 is an
// error), text's bytes, an integer's decimal text when compared as a
// string, text parsed as an integer when compared as one.
func (c *Column) AppendKey(dst []byte, i int, kt key.Type) ([]byte, error) {
	switch k := c.Type.Kind; {
	case (k == Int || k == Uint) && kt == key.Int:
		v := c.ints[i]
		if k == Uint && c.Type.Width == 64 && v < 0 {
			return dst, fmt.Errorf("%w: %d is beyond the integers a key holds (int64)", ErrKey, uint64(v))
		}
		return binary.BigEndian.AppendUint64(dst, uint64(v)^1<<63), nil
	case k == Int || k == Uint:
		return c.AppendText(dst, i), nil
	case (k == String || k == Binary || k == Text) && kt == key.String:
		return append(dst, c.Bytes(i)...), nil
	case k == String || k == Binary || k == Text:
		var kb [8]byte
		b, err := key.Of(key.Int, kb[:], c.Bytes(i))
		if err != nil {
			return dst, err
		}
		return append(dst, b...), nil
	case kt == key.String:
		// A float, a date, a timestamp, a decimal, a boolean compared as
		// text, asked for: its canonical text (AppendText).
		return c.AppendText(dst, i), nil
	}
	return dst, fmt.Errorf("%w: a %s column is no join key (join on an integer or a string column, or compare its text: the key type string)", ErrKey, c.Type)
}
