package csvscan

import (
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// parseLast8Naive is parseLast8's reference: strconv on each field, up to
// the first that is not 1 to 8 ASCII digits or whose 8-byte load from its
// start would pass the end of full.
func parseLast8Naive(full []byte, recs []batchRec, out []int64) int {
	for j, e := range recs {
		fs, fe := int(e.fs), int(e.fe)
		w := fe - fs
		if w < 1 || w > 8 || fs+8 > len(full) {
			return j
		}
		for _, c := range full[fs:fe] {
			if c < '0' || c > '9' {
				return j
			}
		}
		v, err := strconv.ParseInt(string(full[fs:fe]), 10, 64)
		if err != nil {
			return j
		}
		out[j] = v
	}
	return len(recs)
}

// checkParseLast8 runs parseLast8 on recs with the AVX2 path (where the
// CPU has it) and without, against parseLast8Naive: the same count, the
// same values before it, and nothing written past it.
func checkParseLast8(t *testing.T, full []byte, recs []batchRec) {
	t.Helper()
	want := make([]int64, len(recs))
	nw := parseLast8Naive(full, recs, want)
	for _, asm := range []bool{true, false} {
		withBlockAsm(t, asm)
		got := make([]int64, len(recs)+1)
		const canary = -0x5a5a5a5a
		for i := range got {
			got[i] = canary
		}
		n := parseLast8(full, recs, got[:len(recs)])
		if n != nw {
			t.Fatalf("asm %v: parsed %d of %d records, want %d (full %q, recs %v)", asm && hasBlockAsm, n, len(recs), nw, full, recs)
		}
		for j := range n {
			if got[j] != want[j] {
				t.Fatalf("asm %v: record %d (%q) is %d, want %d", asm && hasBlockAsm, j, full[recs[j].fs:recs[j].fe], got[j], want[j])
			}
		}
		if got[len(recs)] != canary {
			t.Fatalf("asm %v: written past the records", asm && hasBlockAsm)
		}
	}
}

// TestParseLast8: fields of 0 to 10 bytes, mostly digits (every width
// and digit value, leading zeros), some with a byte next to a digit's
// ('/', ':', ' ', 0x80+'0', ...) at any place, at the end of the buffer
// (the 8-byte load past it refused), in runs of 0 to 40 records (the
// groups of four and the rest), from the AVX2 path and the portable loop
// against strconv. Seeds logged (testutil.Seed).
func TestParseLast8(t *testing.T) {
	r := testutil.Rand(testutil.Seed(t))
	bad := []byte{'/', ':', ' ', '-', '+', 0x80 + '0', 0x80 + '9', 0, 0xff, 'a'}
	for range 20000 {
		n := r.IntN(41)
		var full []byte
		recs := make([]batchRec, n)
		for j := range recs {
			full = append(full, "12,"[:r.IntN(4)]...)
			fs := len(full)
			w := 1 + r.IntN(8)
			switch r.IntN(20) {
			case 0:
				w = 0
			case 1:
				w = 9 + r.IntN(2)
			}
			for range w {
				full = append(full, byte('0'+r.IntN(10)))
			}
			if r.IntN(30) == 0 && w > 0 {
				full[fs+r.IntN(w)] = bad[r.IntN(len(bad))]
			}
			recs[j] = batchRec{rs: int32(fs), re: int32(len(full)), fs: int32(fs), fe: int32(len(full))}
			full = append(full, '\n')
		}
		if r.IntN(4) != 0 {
			full = append(full, make([]byte, r.IntN(9))...) // room for the last load, or not
		}
		checkParseLast8(t, full, recs)
	}
}

// FuzzParseLast8: any bytes as full and any field bounds (within full)
// parse the same on the AVX2 path, the portable loop and strconv.
func FuzzParseLast8(f *testing.F) {
	f.Add([]byte("3858241,956203\n3858241,1324234\n3858241,3398406\n3858242,3557384\n"), []byte{8, 14, 23, 30, 39, 46, 55, 62})
	f.Add([]byte("1,2\n3,4\n5,6\n7,x\n9,10\n"), []byte{2, 3, 6, 7, 10, 11, 14, 15, 18, 20})
	f.Fuzz(func(t *testing.T, full, bounds []byte) {
		if len(full) == 0 {
			return
		}
		var recs []batchRec
		for len(bounds) >= 2 && len(recs) < 64 {
			a, b := int(bounds[0])%len(full), int(bounds[1])%(len(full)+1)
			if b < a {
				a, b = b, a
			}
			recs = append(recs, batchRec{rs: int32(a), re: int32(b), fs: int32(a), fe: int32(b)})
			bounds = bounds[2:]
		}
		checkParseLast8(t, full, recs)
	})
}

// BenchmarkParseLast8: 4,096 NBER-like records (7-digit citing, 7-digit
// cited), the last field parsed, with the CPU's path and the portable one.
func BenchmarkParseLast8(b *testing.B) {
	var full []byte
	var recs []batchRec
	for i := range 4096 {
		full = strconv.AppendInt(full, int64(3000000+i*7919%999999), 10)
		full = append(full, ',')
		fs := len(full)
		full = strconv.AppendInt(full, int64(1000000+i*104729%8999999), 10)
		recs = append(recs, batchRec{fs: int32(fs), fe: int32(len(full))})
		full = append(full, '\n')
	}
	full = binary.LittleEndian.AppendUint64(full, 0)
	out := make([]int64, len(recs))
	for _, c := range []struct {
		name string
		asm  bool
	}{{"native", true}, {"portable", false}} {
		b.Run(c.name, func(b *testing.B) {
			withBlockAsm(b, c.asm)
			for b.Loop() {
				if parseLast8(full, recs, out) != len(recs) {
					b.Fatal("short")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
		})
	}
}
