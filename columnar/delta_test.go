package columnar

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// encodeDelta is a DELTA_BINARY_PACKED encoder written from
// parquet-format's Encodings.md for the tests: blocks of blockSize values
// in minis miniblocks, each bit width the least that holds its deltas
// over the block's min, the deltas wrapping (width bits: 32 for an
// INT32's, whose arithmetic wraps at 32 bits, else 64); the unused
// miniblocks of the last block have a width byte of junk and no body.
func encodeDelta(vals []int64, blockSize, minis, width int, junk byte) []byte {
	zig := func(b []byte, v int64) []byte { return binary.AppendUvarint(b, uint64(v<<1)^uint64(v>>63)) }
	wrap := func(v int64) int64 {
		if width == 32 {
			return int64(int32(v))
		}
		return v
	}
	b := binary.AppendUvarint(nil, uint64(blockSize))
	b = binary.AppendUvarint(b, uint64(minis))
	b = binary.AppendUvarint(b, uint64(len(vals)))
	first := int64(0)
	if len(vals) > 0 {
		first = vals[0]
	}
	b = zig(b, first)
	perMini := blockSize / minis
	for lo := 1; lo < len(vals); lo += blockSize {
		hi := min(lo+blockSize, len(vals))
		deltas := make([]int64, hi-lo)
		for j := range deltas {
			deltas[j] = wrap(vals[lo+j] - vals[lo+j-1])
		}
		minDelta := slices.Min(deltas)
		b = zig(b, minDelta)
		widthsAt := len(b)
		b = append(b, make([]byte, minis)...)
		for m := range minis {
			if m*perMini >= len(deltas) {
				b[widthsAt+m] = junk
				continue
			}
			rel := make([]uint64, perMini) // padded with 0
			for j := range rel {
				if k := m*perMini + j; k < len(deltas) {
					rel[j] = uint64(deltas[k] - minDelta)
					if width == 32 {
						rel[j] = uint64(uint32(deltas[k] - minDelta))
					}
				}
			}
			w := 0
			for _, r := range rel {
				w = max(w, 64-bitsLeadingZeros(r))
			}
			b[widthsAt+m] = byte(w)
			out := make([]byte, perMini*w/8)
			for j, r := range rel {
				for bit := range w {
					if r>>bit&1 == 1 {
						at := j*w + bit
						out[at/8] |= 1 << (at % 8)
					}
				}
			}
			b = append(b, out...)
		}
	}
	return b
}

func bitsLeadingZeros(v uint64) int {
	n := 0
	for ; n < 64 && v&(1<<63>>n) == 0; n++ {
	}
	return n
}

// TestDeltaInts: deltaInts reads back what encodeDelta wrote (values of
// every size, both widths' wrapping, block and miniblock sizes, unused
// miniblocks with junk widths), leaves the bytes after the stream as
// rest, and reads Encodings.md's two examples (with a block of 128: 8 is
// refused); a damaged header or block is an error, never a panic.
func TestDeltaInts(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for trial := range 3000 {
		n := rng.IntN(700)
		if trial < 3 {
			n = trial // no values, one, two
		}
		int32s := rng.IntN(2) == 0
		vals := make([]int64, n)
		shift := rng.IntN(64)
		for j := range vals {
			v := rng.Int64() >> shift
			switch rng.IntN(12) {
			case 0:
				v = []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
			case 1:
				if j > 0 {
					v = vals[j-1] // runs: zero deltas
				}
			}
			if int32s {
				v = int64(int32(v))
			}
			vals[j] = v
		}
		blockSize := 128 * (1 + rng.IntN(3))
		minis := []int{1, 2, 4}[rng.IntN(3)]
		if (blockSize/minis)%32 != 0 {
			minis = 1
		}
		width := 64
		if int32s {
			width = 32
		}
		enc := encodeDelta(vals, blockSize, minis, width, byte(rng.IntN(256)))
		tail := []byte("after")
		got, rest, err := deltaInts(append(enc, tail...), int32s, n, n, nil)
		if err != nil {
			t.Fatalf("trial %d (%d values, block %d/%d, int32 %v): %v", trial, n, blockSize, minis, int32s, err)
		}
		if int32s {
			for j := range got {
				got[j] = int64(int32(got[j]))
			}
		}
		if !slices.Equal(got, vals) {
			j := 0
			for j < min(len(got), len(vals)) && got[j] == vals[j] {
				j++
			}
			t.Fatalf("trial %d (%d values, block %d/%d, int32 %v): %d values, the first different at %d", trial, n, blockSize, minis, int32s, len(got), j)
		}
		if !bytes.Equal(rest, tail) {
			t.Fatalf("trial %d: %q left after the stream, want %q", trial, rest, tail)
		}
		for range 5 { // damaged: an error or values, and no panic
			bad := slices.Clone(enc)
			if len(bad) > 0 {
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			}
			if vs, _, err := deltaInts(bad[:rng.IntN(len(bad)+1)], int32s, 0, n, nil); err == nil && len(vs) > n {
				t.Fatalf("trial %d: %d values of a damaged stream of %d", trial, len(vs), n)
			}
		}
	}
	// Encodings.md's examples, at a block of 128 values in 1 miniblock.
	for _, vals := range [][]int64{{1, 2, 3, 4, 5}, {7, 5, 3, 1, 2, 3, 4, 5}} {
		got, _, err := deltaInts(encodeDelta(vals, 128, 1, 64, 0), false, len(vals), len(vals), nil)
		if err != nil || !slices.Equal(got, vals) {
			t.Errorf("%v: %v, %v", vals, got, err)
		}
	}
	for _, bad := range [][]byte{
		{8, 1, 5, 2},             // a block of 8 values
		{128, 1, 3, 2},           // a block of 128 (0x80 0x01) in 3 miniblocks
		{128, 1, 0, 3, 2},        // in 0 miniblocks
		{128, 1, 1, 200, 2},      // 328 values, more than the page's 100
		{128, 1, 1, 2, 0},        // 2 values and no block
		{128, 1, 1, 2, 2, 0, 65}, // a bit width of 65
	} {
		if vs, _, err := deltaInts(bad, false, 0, 100, nil); err == nil {
			t.Errorf("% x: %v, no error", bad, vs)
		}
	}
}

// TestDeltaBytes: both byte array encodings, written from the spec's
// examples, read back; a prefix longer than the value before it is an
// error.
func TestDeltaBytes(t *testing.T) {
	lens := func(ls ...int64) []byte { return encodeDelta(ls, 128, 1, 32, 0) }
	words := []string{"axis", "axle", "babble", "babyhood"}
	dlba := append(lens(4, 4, 6, 8), "axisaxlebabblebabyhood"...)
	dba := append(append(lens(0, 2, 0, 3), lens(4, 2, 6, 5)...), "axislebabbleyhood"...)
	for _, c := range []struct {
		prefixed bool
		data     []byte
	}{{false, dlba}, {true, dba}} {
		vals, pos, _, _, err := deltaBytes(c.prefixed, c.data, 4, 4, nil, nil, nil)
		if err != nil {
			t.Fatalf("prefixed %v: %v", c.prefixed, err)
		}
		var got []string
		for j := range 4 {
			got = append(got, string(vals[pos[j]:pos[j+1]]))
		}
		if !slices.Equal(got, words) {
			t.Errorf("prefixed %v: %q, want %q", c.prefixed, got, words)
		}
	}
	bad := append(append(lens(0, 9, 0, 3), lens(4, 2, 6, 5)...), "axislebabbleyhood"...)
	if _, _, _, _, err := deltaBytes(true, bad, 4, 4, nil, nil, nil); err == nil {
		t.Error("a prefix of 9 bytes of a value of 4: no error")
	}
	short := append(lens(4, 4, 6, 80), "axisaxlebabblebabyhood"...)
	if _, _, _, _, err := deltaBytes(false, short, 4, 4, nil, nil, nil); err == nil {
		t.Error("a value of 80 bytes with 8 left: no error")
	}
}

// FuzzDeltaBytes: any bytes are read to values within the page's count
// and sizes, or to an error; never a panic.
func FuzzDeltaBytes(f *testing.F) {
	f.Add(true, append(encodeDelta([]int64{0, 2}, 128, 1, 32, 0), append(encodeDelta([]int64{3, 1}, 128, 1, 32, 0), "abcd"...)...))
	f.Add(false, append(encodeDelta([]int64{3, 1}, 128, 4, 32, 7), "abcd"...))
	f.Fuzz(func(t *testing.T, prefixed bool, data []byte) {
		vals, pos, _, _, err := deltaBytes(prefixed, data, 1, 64, nil, nil, nil)
		if err != nil {
			return
		}
		if len(pos) < 2 || pos[len(pos)-1] > len(vals) || len(vals) > maxPageBytes {
			t.Fatalf("%d offsets over %d bytes", len(pos), len(vals))
		}
	})
}
