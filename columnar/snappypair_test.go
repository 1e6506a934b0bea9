package columnar

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// pairWant is what snappyPair must give for a and b: the strict
// reference's blocks, or an error where either does not decode.
func pairWant(a, b []byte) (wa, wb []byte, ok bool) {
	wa, ea := snappy.DecodeStrict(nil, a)
	wb, eb := snappy.DecodeStrict(nil, b)
	return wa, wb, ea == nil && eb == nil
}

// checkPair runs snappyPair on a and b (outputs of their headers'
// lengths, where those parse) against the reference.
func checkPair(t *testing.T, a, b []byte) {
	t.Helper()
	na, ea := snappy.DecodedLen(a)
	nb, eb := snappy.DecodedLen(b)
	if ea == nil && eb == nil && (na > 1<<24 || nb > 1<<24) {
		return // the reference would allocate the header's length (up to 4 GiB)
	}
	wa, wb, ok := pairWant(a, b)
	if ea != nil || eb != nil {
		if ok {
			t.Fatalf("the reference decoded blocks whose lengths do not parse")
		}
		return
	}
	// Guard bytes after each output: the assembly must not write past it.
	da, db := make([]byte, na+64), make([]byte, nb+64)
	for i := range da {
		da[i] = 0xA5
	}
	for i := range db {
		db[i] = 0x5A
	}
	err := snappyPair(da[:na], a, db[:nb], b)
	if ok != (err == nil) {
		t.Fatalf("snappyPair: %v, the reference decoded both: %v (%d and %d bytes in)", err, ok, len(a), len(b))
	}
	if ok && (!bytes.Equal(da[:na], wa) || !bytes.Equal(db[:nb], wb)) {
		t.Fatalf("snappyPair's blocks differ from the reference's")
	}
	for _, c := range da[na:] {
		if c != 0xA5 {
			t.Fatalf("snappyPair wrote past block A's end")
		}
	}
	for _, c := range db[nb:] {
		if c != 0x5A {
			t.Fatalf("snappyPair wrote past block B's end")
		}
	}
}

// int64Page is n INT64s of a PLAIN page like the NBER twins' (patent
// numbers near 3-6 million, sorted or not), Snappy-encoded.
func int64Page(r *rand.Rand, n int, sorted bool) []byte {
	raw := make([]byte, 8*n)
	v := int64(3_000_000 + r.IntN(1000))
	for i := range n {
		if sorted {
			v += int64(r.IntN(3)) // runs of one value: long copies at offset 8
		} else {
			v = int64(3_000_000 + r.IntN(3_000_000))
		}
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return snappy.Encode(nil, raw)
}

// mixedBlock is a Snappy block of text-like data: runs, repeats at every
// distance, literals of every length (as klauspost's encoder writes
// them).
func mixedBlock(r *rand.Rand, n int) []byte {
	raw := make([]byte, 0, n)
	for len(raw) < n {
		switch r.IntN(4) {
		case 0: // a run of one byte: copies at offset 1
			c := byte(r.IntN(256))
			for range r.IntN(100) {
				raw = append(raw, c)
			}
		case 1: // random bytes: literals
			for range r.IntN(200) {
				raw = append(raw, byte(r.IntN(256)))
			}
		default: // a repeat of something earlier
			if len(raw) > 0 {
				at := r.IntN(len(raw))
				k := min(r.IntN(80), len(raw)-at)
				raw = append(raw, raw[at:at+k]...)
			}
		}
	}
	return snappy.Encode(nil, raw[:n])
}

// TestSnappyPair holds snappyPair to the strict reference on pairs of
// pages like the twins', text-like blocks, empty and tiny blocks, blocks
// of every length near the assembly's margins, and crafted blocks of
// every tag kind at its edges (an offset of 0, 7, 8, the output's
// length and one past it; literals of 16, 32, 33, 60 and more bytes; a
// copy past the declared length; a block cut short).
func TestSnappyPair(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	var blocks [][]byte
	blocks = append(blocks, int64Page(r, 20000, false), int64Page(r, 20000, true), int64Page(r, 333, false))
	for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 64, 65, 100, 1000, 5000} {
		blocks = append(blocks, mixedBlock(r, n))
	}
	// Crafted: a 40-byte literal, then one copy of each kind.
	lit := func(b []byte) []byte {
		n := len(b) - 1
		if n < 60 {
			return append([]byte{byte(n << 2)}, b...)
		}
		return append([]byte{60 << 2, byte(n)}, b...)
	}
	head := make([]byte, 40)
	for i := range head {
		head[i] = byte(i + 1)
	}
	for _, off := range []int{0, 1, 7, 8, 9, 39, 40, 41} {
		for _, n := range []int{1, 4, 11, 12, 16, 17, 32, 33, 64} {
			body := lit(head)
			if n >= 4 && n <= 11 && off < 2048 {
				body = append(body, byte(1|(n-4)<<2|(off>>8)<<5), byte(off))
			} else {
				body = append(body, byte(2|(n-1)<<2), byte(off), byte(off>>8))
			}
			body = append(body, byte(3|(n-1)<<2), byte(off), byte(off>>8), 0, 0)
			body = append(body, lit(head[:33])...)
			for _, total := range []int{40 + 2*n + 33, 40 + 2*n + 32, 40 + 2*n + 34} {
				blocks = append(blocks, append(binary.AppendUvarint(nil, uint64(total)), body...))
			}
		}
	}
	// A copy as the block's last tag, after 80 bytes of literals: where a
	// long one reaches the output's end.
	for _, n := range []int{4, 16, 32, 33, 40, 57, 64} {
		for _, off := range []int{8, 13, 80} {
			body := append(lit(head), lit(head)...)
			body = append(body, byte(2|(n-1)<<2), byte(off), byte(off>>8))
			blocks = append(blocks, append(binary.AppendUvarint(nil, uint64(80+n)), body...))
			// then k one-byte copies of 5 input bytes each: input enough
			// for the assembly's margin, output of only k bytes more.
			for _, k := range []int{1, 6, 7} {
				more := body
				for range k {
					more = append(more, 3, 1, 0, 0, 0)
				}
				blocks = append(blocks, append(binary.AppendUvarint(nil, uint64(80+n+k)), more...))
			}
		}
	}
	for _, b := range blocks[:len(blocks):len(blocks)] {
		for cut := 1; cut < 8 && cut < len(b); cut++ { // cut short
			blocks = append(blocks, b[:len(b)-cut])
		}
	}
	partners := [][]byte{blocks[0], blocks[1], mixedBlock(r, 3000), {0}}
	if testutil.Race { // the race detector's checks of each byte: two partners
		partners = partners[2:]
	}
	for _, a := range blocks {
		for _, b := range partners {
			checkPair(t, a, b)
			checkPair(t, b, a)
		}
	}
	// Many random pairs of the twins' kind and of mixed data.
	for range testutil.RaceSize(200, 10) {
		checkPair(t, int64Page(r, 1+r.IntN(3000), r.IntN(2) == 0), mixedBlock(r, r.IntN(4000)))
	}
}

// TestSnappyPairDamaged flips bytes of valid pairs: every damage must
// end in the reference's verdict (an error, or the same bytes).
func TestSnappyPairDamaged(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for range testutil.RaceSize(3000, 100) {
		a, b := int64Page(r, 1+r.IntN(500), r.IntN(2) == 0), mixedBlock(r, r.IntN(2000))
		for range 1 + r.IntN(3) {
			x := a
			if r.IntN(2) == 0 {
				x = b
			}
			if len(x) > 0 {
				x[r.IntN(len(x))] = byte(r.IntN(256))
			}
		}
		checkPair(t, a, b)
	}
}

func FuzzSnappyPair(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	f.Add(int64Page(r, 100, false), int64Page(r, 100, true))
	f.Add(mixedBlock(r, 300), mixedBlock(r, 50))
	f.Add([]byte{0}, []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkPair(t, a, b)
	})
}

// BenchmarkSnappyPair decodes two pages of the twins' kind alone (s2,
// arrow-go's codec) and as a pair.
func BenchmarkSnappyPair(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	pa, pb := int64Page(r, 122880, false), int64Page(r, 122880, false)
	na, _ := snappy.DecodedLen(pa)
	nb, _ := snappy.DecodedLen(pb)
	da, db := make([]byte, na), make([]byte, nb)
	b.Run("alone", func(b *testing.B) {
		b.SetBytes(int64(na + nb))
		for b.Loop() {
			snappy.Decode(da, pa)
			snappy.Decode(db, pb)
		}
	})
	b.Run("pair", func(b *testing.B) {
		b.SetBytes(int64(na + nb))
		for b.Loop() {
			if err := snappyPair(da, pa, db, pb); err != nil {
				b.Fatal(err)
			}
		}
	})
}
