package columnar

import (
	"math"
	"strconv"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// appendFloatRef is AppendFloat without its fast path: strconv's shortest
// digits, plain or with an exponent by the value's size.
func appendFloatRef(dst []byte, v float64, bits int) []byte {
	if a := math.Abs(v); a == 0 || a >= 1e-7 && a < 1e21 {
		return strconv.AppendFloat(dst, v, 'f', -1, bits)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bits)
}

// TestAppendShortFloat checks AppendFloat's fast path against strconv on
// the values it is for (short decimals, integers), on the boundaries of its
// range, and on random floats of every size (which it must leave alone or
// write the same).
func TestAppendShortFloat(t *testing.T) {
	r := testutil.Rand(testutil.Seed(t))
	check := func(v float64) {
		t.Helper()
		got, want := string(AppendFloat([]byte("x"), v, 64)), string(appendFloatRef([]byte("x"), v, 64))
		if got != want {
			t.Fatalf("AppendFloat(%v (bits %#x)) = %q, strconv %q", v, math.Float64bits(v), got, want)
		}
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.1, 0.2, 0.1 + 0.2, 1.0 / 3, 29.75, 0.375,
		8.6667, 0.1667, 1e-6, 1e-7, 5e-7, 4.9e-7, 0.000001, 0.0000015, 999999.999999, 1 << 26, 1<<26 - 1,
		1<<26 - 0.5, 1<<26 - 1.0/64, math.Nextafter(1<<26, 0), 67108863.999999, 12345678.123456,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 1e21, 1e20} {
		check(v)
		check(-v)
	}
	for range 200000 {
		// A short decimal: n / 10^d of up to 6 fraction digits.
		d := r.IntN(8)
		n := r.Int64N(1 << uint(r.IntN(60)+1))
		v := float64(n) / math.Pow(10, float64(d))
		check(v)
		check(-v)
		// Any float: random bits, and random values under 2^26.
		check(math.Float64frombits(r.Uint64()))
		check(r.Float64() * float64(uint64(1)<<uint(r.IntN(30))))
		// A neighbour of a short decimal, which must not print as it.
		check(math.Nextafter(v, math.Inf(1)))
		check(math.Nextafter(v, 0))
	}
	// Every float32 width goes through strconv unchanged.
	for range 10000 {
		v := float64(math.Float32frombits(r.Uint32()))
		if got, want := string(AppendFloat(nil, v, 32)), string(appendFloatRef(nil, v, 32)); got != want {
			t.Fatalf("AppendFloat(%v, 32) = %q, strconv %q", v, got, want)
		}
	}
}

// FuzzAppendFloat: AppendFloat writes what strconv writes, for any float64
// and for the short decimal the fuzzer's integer and digit count make.
func FuzzAppendFloat(f *testing.F) {
	f.Add(math.Float64bits(0.375), int64(375), uint8(3))
	f.Add(math.Float64bits(-0.0), int64(-5), uint8(6))
	f.Add(math.Float64bits(1<<26), int64(1<<26-1), uint8(0))
	f.Fuzz(func(t *testing.T, bits uint64, n int64, d uint8) {
		for _, v := range []float64{math.Float64frombits(bits), float64(n) / math.Pow(10, float64(d%8))} {
			if got, want := string(AppendFloat(nil, v, 64)), string(appendFloatRef(nil, v, 64)); got != want {
				t.Fatalf("AppendFloat(%v (bits %#x)) = %q, strconv %q", v, math.Float64bits(v), got, want)
			}
		}
	})
}

// BenchmarkAppendFloat times AppendFloat on values of the NBER key side's
// float columns (0.375, 29.75, 8.6667) and on values it leaves to strconv.
func BenchmarkAppendFloat(b *testing.B) {
	for _, c := range []struct {
		name string
		vs   []float64
	}{{"short", []float64{0.375, 29.75, 8.6667, 0, 36, 0.1667}}, {"long", []float64{1.0 / 3, 2.0 / 7, math.Pi, 1e-9}}} {
		b.Run(c.name, func(b *testing.B) {
			var buf []byte
			for i := 0; i < b.N; i++ {
				buf = AppendFloat(buf[:0], c.vs[i%len(c.vs)], 64)
			}
		})
		b.Run(c.name+"/strconv", func(b *testing.B) {
			var buf []byte
			for i := 0; i < b.N; i++ {
				buf = appendFloatRef(buf[:0], c.vs[i%len(c.vs)], 64)
			}
		})
	}
}

// FuzzAppendInt: appendInt and appendUint write what strconv writes, for
// any int64 and uint64, after any prefix (the destination's bytes kept),
// and TestAppendIntEdges at every value under 20,000 (the short paths) and
// every power of ten and its neighbours, where the digit count's estimate
// changes.
func FuzzAppendInt(f *testing.F) {
	f.Add(int64(0), uint64(0), []byte(nil))
	f.Add(int64(math.MinInt64), uint64(math.MaxUint64), []byte("x,"))
	f.Add(int64(-1963), uint64(3858241), []byte("abc"))
	f.Fuzz(func(t *testing.T, v int64, u uint64, prefix []byte) {
		if got, want := string(appendInt(prefix[:len(prefix):len(prefix)], v)), string(strconv.AppendInt(prefix[:len(prefix):len(prefix)], v, 10)); got != want {
			t.Fatalf("appendInt(%q, %d) = %q, strconv %q", prefix, v, got, want)
		}
		if got, want := string(appendUint(prefix, u)), string(strconv.AppendUint(prefix, u, 10)); got != want {
			t.Fatalf("appendUint(%q, %d) = %q, strconv %q", prefix, u, got, want)
		}
	})
}

func TestAppendIntEdges(t *testing.T) {
	for u := range uint64(20000) { // every value of the short paths, and past them
		if got, want := string(appendUint([]byte("<"), u)), string(strconv.AppendUint([]byte("<"), u, 10)); got != want {
			t.Fatalf("appendUint(%d) = %q, strconv %q", u, got, want)
		}
		if got, want := string(appendInt(nil, -int64(u))), strconv.FormatInt(-int64(u), 10); got != want {
			t.Fatalf("appendInt(%d) = %q, strconv %q", -int64(u), got, want)
		}
	}
	p := uint64(1)
	for range 20 {
		for _, u := range []uint64{p - 1, p, p + 1, 2*p - 1, 9*p + (p - 1)} {
			if got, want := string(appendUint([]byte("<"), u)), string(strconv.AppendUint([]byte("<"), u, 10)); got != want {
				t.Fatalf("appendUint(%d) = %q, strconv %q", u, got, want)
			}
			if v := int64(u); v >= 0 {
				if got, want := string(appendInt(nil, -v)), strconv.FormatInt(-v, 10); got != want {
					t.Fatalf("appendInt(%d) = %q, strconv %q", -v, got, want)
				}
			}
		}
		if p > math.MaxUint64/10 {
			break
		}
		p *= 10
	}
	for _, u := range []uint64{math.MaxUint64, math.MaxUint64 - 1, 1<<63 - 1, 1 << 63} {
		if got, want := string(appendUint(nil, u)), strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint(%d) = %q, strconv %q", u, got, want)
		}
	}
}
