package columnar

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"
)

// CanonicalInt is f as an int64 when f is one written as strconv.FormatInt
// writes it: digits, an optional '-', no '+', no leading zero, not "-0",
// within int64 (7, -7, 0; not 007, +7, -0). The one rule of a CSV field
// that is an integer, for the Parquet output's typing and the predicates'
// values (package where). O(len(f)), no allocation.
func CanonicalInt(f []byte) (int64, bool) {
	d := f
	neg := len(d) > 0 && d[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 19 || d[0] == '0' && (len(d) > 1 || neg) {
		return 0, false
	}
	var v uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	switch {
	case !neg && v <= math.MaxInt64:
		return int64(v), true
	case neg && v <= 1<<63:
		return int64(-v), true // -(1<<63) wraps to itself
	}
	return 0, false
}

// ParseDecimal is f as a float64 when f is a finite decimal with a point
// or an exponent, in the form DuckDB's CSV reader types DOUBLE:
// -?(0|[1-9][0-9]*)?(.[0-9]*)?([eE][+-]?[0-9]+)? with a digit before the
// exponent (.097, -.5, 1., 1.50, 2e3). An integer (7, 007, +7) is never
// one, so zip codes and other digit strings stay text. Its double may
// print back as another text (0.097, 1.5, 2000). O(len(f)).
func ParseDecimal(f []byte) (float64, bool) {
	i := 0
	if i < len(f) && f[i] == '-' {
		i++
	}
	start := i
	for i < len(f) && f[i] >= '0' && f[i] <= '9' {
		i++
	}
	digits := i - start
	if digits > 1 && f[start] == '0' {
		return 0, false // a leading zero: 007.5
	}
	point := i < len(f) && f[i] == '.'
	if point {
		i++
		s := i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		digits += i - s
	}
	if digits == 0 {
		return 0, false
	}
	exp := i < len(f) && (f[i] == 'e' || f[i] == 'E')
	if exp {
		i++
		if i < len(f) && (f[i] == '+' || f[i] == '-') {
			i++
		}
		s := i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		if i == s {
			return 0, false
		}
	}
	if i != len(f) || !point && !exp {
		return 0, false
	}
	v, err := strconv.ParseFloat(unsafe.String(&f[0], len(f)), 64)
	return v, err == nil && !math.IsInf(v, 0)
}

// appendInt appends v in decimal, as strconv.AppendInt(dst, v, 10) does
// (FuzzAppendInt), by appendUint after the sign.
func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		return appendUint(append(dst, '-'), -uint64(v)) // -MinInt64 as a uint64 is its magnitude
	}
	return appendUint(dst, uint64(v))
}

// appendUint appends v in decimal, as strconv.AppendUint(dst, v, 10)
// does: its length found first (bits.Len64's floor(log10) estimate and
// one comparison, the method of Lemire's "counting digits"), dst grown
// once, and two digits a step written in place from the end (digits2), so
// that no buffer is copied after. On the AMD EPYC family 25, a value of
// the NBER key side's integer columns took 10-16 ns against strconv's
// 18-25 (its digits made in an array and copied by a call to memmove). O(digits).
func appendUint(dst []byte, v uint64) []byte {
	// Values under 10,000 (most of a table's counts, years, codes: the
	// flights' delays and distances) in one append of their digits: the
	// general path's length estimate and its grow call were 9 ns of such a
	// value's 10 (BenchmarkAppendUint).
	if v < 100 {
		if v < 10 {
			return append(dst, byte('0'+v))
		}
		return append(dst, digits2[2*v], digits2[2*v+1])
	}
	if v < 10000 {
		hi, lo := v/100, 2*(v%100)
		if hi < 10 {
			return append(dst, byte('0'+hi), digits2[lo], digits2[lo+1])
		}
		return append(dst, digits2[2*hi], digits2[2*hi+1], digits2[lo], digits2[lo+1])
	}
	t := bits.Len64(v|1) * 1233 >> 12 // floor(log10(v)) or one more: 1233/4096 ~ log10(2)
	n := t + 1
	if v|1 < pow10u[t] {
		n = t
	}
	l := len(dst)
	dst = slices.Grow(dst, n)[:l+n]
	b := dst[l:]
	i := n
	for v >= 100 {
		q := v / 100
		r := (v - q*100) * 2
		i -= 2
		b[i+1] = digits2[r+1]
		b[i] = digits2[r]
		v = q
	}
	if v >= 10 {
		b[1] = digits2[2*v+1]
		b[0] = digits2[2*v]
	} else {
		b[0] = byte('0' + v)
	}
	return dst
}

// pow10u[i] is 10^i.
var pow10u = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}
