package hashing

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spaolacci/murmur3"

	"github.com/acbfjoin/acbfjoin/internal/cpuswitch"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// sum8IntsRef is Sum8Ints by the library: murmur3.Sum128 of each value's
// key.Of bytes (big-endian, the sign bit flipped).
func sum8IntsRef(vals []int64) (h1s, h2s []uint64) {
	for _, v := range vals {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(v)^1<<63)
		h1, h2 := murmur3.Sum128(b[:])
		h1s, h2s = append(h1s, h1), append(h2s, h2)
	}
	return h1s, h2s
}

// checkSum8Ints compares Sum8Ints on vals, with the CPU's path and with
// the portable one, against the library.
func checkSum8Ints(t *testing.T, vals []int64) {
	t.Helper()
	w1, w2 := sum8IntsRef(vals)
	defer func(was string) { intsPath = was }(intsPath)
	for _, asm := range intsPaths {
		intsPath = asm
		h1s, h2s := make([]uint64, len(vals)+1), make([]uint64, len(vals)+1)
		h1s[len(vals)], h2s[len(vals)] = 7, 7 // past the end: untouched
		Sum8Ints(vals, h1s, h2s)
		for i := range vals {
			if h1s[i] != w1[i] || h2s[i] != w2[i] {
				t.Fatalf("path %s, %d values: value %d (%d) hashed to %x %x, murmur3 %x %x", asm, len(vals), i, vals[i], h1s[i], h2s[i], w1[i], w2[i])
			}
		}
		if h1s[len(vals)] != 7 || h2s[len(vals)] != 7 {
			t.Fatalf("path %s, %d values: wrote past the values", asm, len(vals))
		}
	}
}

// TestSum8Ints: every path the CPU has (AVX-512, AVX2, Go) gives
// murmur3's hashes of the values' key.Of bytes, at every length around
// the eight- and four-value steps, at int64's ends and at random values.
func TestSum8Ints(t *testing.T) {
	t.Logf("paths on this CPU: %v", intsPaths)
	rng := testutil.Rand(testutil.Seed(t))
	for n := range 70 {
		vals := make([]int64, n)
		for i := range vals {
			switch rng.IntN(4) {
			case 0:
				vals[i] = []int64{0, -1, 1, math.MinInt64, math.MaxInt64}[rng.IntN(5)]
			case 1:
				vals[i] = rng.Int64N(10_000_000)
			default:
				vals[i] = int64(rng.Uint64())
			}
		}
		checkSum8Ints(t, vals)
	}
	checkSum8Ints(t, nil)
}

// FuzzSum8Ints: the paths agree with murmur3 on any values (8 bytes each
// of the input, the tail dropped).
func FuzzSum8Ints(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef01234567"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals := make([]int64, len(data)/8)
		for i := range vals {
			vals[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
		checkSum8Ints(t, vals)
	})
}

// TestSum8IntsShortOutput: outputs shorter than the values panic before
// any work (a caller's bug, never silent).
func TestSum8IntsShortOutput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for short outputs")
		}
	}()
	Sum8Ints(make([]int64, 9), make([]uint64, 8), make([]uint64, 9))
}

// TestSum8IntsShortOutputCapacity: an output shorter than the values
// panics before anything is written even where its capacity would hold
// them (two outputs carved from one buffer, the first short: reslicing it
// to the values' length within its capacity wrote its last hash over the
// second's first), on either path, at lengths about the eight-value step.
func TestSum8IntsShortOutputCapacity(t *testing.T) {
	defer func(was string) { intsPath = was }(intsPath)
	for _, asm := range intsPaths {
		intsPath = asm
		for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 16, 17} {
			for _, short := range []string{"h1s", "h2s"} {
				buf := make([]uint64, 2*n)
				h1s, h2s := buf[:n], buf[n:]
				if short == "h1s" {
					h1s = buf[:n-1] // capacity 2n
				} else {
					h1s, h2s = buf[:n:n], buf[n:2*n-1] // capacity n
				}
				panicked := func() (p bool) {
					defer func() { p = recover() != nil }()
					Sum8Ints(make([]int64, n), h1s, h2s)
					return false
				}()
				if !panicked {
					t.Errorf("path %s, %d values, %s %d long: no panic", asm, n, short, n-1)
				}
				if i := slices.IndexFunc(buf, func(v uint64) bool { return v != 0 }); i >= 0 {
					t.Errorf("path %s, %d values, %s %d long: %d written", asm, n, short, n-1, i)
				}
			}
		}
	}
}

func BenchmarkSum8Ints(b *testing.B) {
	vals := make([]int64, 256)
	for i := range vals {
		vals[i] = int64(i) * 7919
	}
	h1s, h2s := make([]uint64, 256), make([]uint64, 256)
	defer func(was string) { intsPath = was }(intsPath)
	for _, path := range intsPaths {
		b.Run(path, func(b *testing.B) {
			intsPath = path
			for b.Loop() {
				Sum8Ints(vals, h1s, h2s)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(vals)), "ns/key")
		})
	}
}

// TestIntsPathSwitch runs this test binary again with ACBFJOIN_CPU set, so
// that the package's init reads it: "portable" (or a typo) takes the Go
// path, "native" and "" the CPU's. It checks which code runs, not how fast.
func TestIntsPathSwitch(t *testing.T) {
	if os.Getenv("HASHING_CPU_CHILD") == "1" {
		t.Skip("the child's own run")
	}
	native := intsPaths[len(intsPaths)-1]
	for _, c := range []struct{ env, path string }{{"portable", "portable"}, {"native", native}, {"", native}, {"portabel", "portable"}} {
		out, _ := testutil.Child(t, "TestIntsPathChild", "HASHING_CPU_CHILD=1", cpuswitch.Env+"="+c.env)
		if want := "path=" + c.path + "\n"; !strings.Contains(out, want) {
			t.Errorf("%s=%q: the child says %q, want %q", cpuswitch.Env, c.env, out, want)
		}
	}
}

// TestIntsPathChild is TestIntsPathSwitch's child: it prints IntsPath.
func TestIntsPathChild(t *testing.T) {
	if os.Getenv("HASHING_CPU_CHILD") != "1" {
		t.Skip("run by TestIntsPathSwitch")
	}
	fmt.Printf("path=%s\n", IntsPath())
}
