package csvscan

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestBatchStepAlignment: the last column read by lastBlocks (the AVX2
// block scanner's 64-byte steps) gives what Next gives for lines of every
// length from 1 to 140 bytes, starting at every offset of a step, with
// CRLFs and "\r\n" lines among them, in files past the reader's first
// buffer (which fill then moves, making the masks stale), read whole and
// in small reads, with ScanInts and batches of 256 (checkInts); of two
// columns, and of one (no separator: a "\r\n" line is blank, not a record).
func TestBatchStepAlignment(t *testing.T) {
	withBlockAsm(t, true)
	if !blockAsm {
		t.Skip("no block scanner on this CPU")
	}
	for L := 1; L <= 140; L += 3 {
		for shift := 0; shift < 64; shift += 7 {
			cols := 2 - shift/7%2
			var b bytes.Buffer
			b.WriteString("A,B\n"[4-2*cols:])
			b.WriteString(strings.Repeat("\n", shift%3))
			b.WriteString(strings.Repeat("y", shift) + ",1\n"[3-cols:])
			size := 4000
			if L%20 == 1 && shift == 0 {
				size = 3 * readSize // past the first buffer
			}
			for i := 0; b.Len() < size; i++ {
				f := fmt.Sprint(i * 7919 % 100000000)
				if cols == 1 {
					b.WriteString(strings.Repeat("1", max(0, L-len(f))) + f)
				} else {
					b.WriteString(strings.Repeat("x", max(1, L-len(f)-1)) + "," + f)
				}
				if i%3 == 0 {
					b.WriteByte('\r')
				}
				b.WriteByte('\n')
				if i%97 == 0 {
					b.WriteString("\r\n")
				}
			}
			data := b.Bytes()
			for _, chunk := range []int{0, 333} {
				want, werr := viaNext(data, cols-1, false, false, cols, chunk, ',')
				got, gerr := viaBatchWith(data, cols-1, false, false, cols, chunk, ',', true, func() int { return 256 })
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
					t.Fatalf("%d columns, lines of %d bytes, shift %d, chunk %d: %v %d records, Next %v %d: %s", cols, L, shift, chunk, gerr, len(got), werr, len(want), firstRecDiff(got, want))
				}
			}
		}
	}
}

// TestDigits8: digits8 of the n (1 to 8) low bytes of a word is their
// value and true when they are all digits, else false, whatever the
// other bytes (the masked shift counts).
func TestDigits8(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	alphabet := []byte("0123456789/:+- \x00\xff")
	for range 200000 {
		var w [8]byte
		for i := range w {
			if rng.IntN(4) == 0 {
				w[i] = byte(rng.Uint32())
			} else {
				w[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		for n := 1; n <= 8; n++ {
			word := uint64(0)
			for i := range 8 {
				word |= uint64(w[i]) << (8 * i)
			}
			v, ok := digits8(word, uint(n))
			s := string(w[:n])
			want := !strings.ContainsFunc(s, func(c rune) bool { return c < '0' || c > '9' })
			if ok != want {
				t.Fatalf("digits8(%q, %d) ok = %v", w, n, ok)
			}
			if ok && fmt.Sprint(v) != strings.TrimLeft(s, "0") && !(v == 0 && strings.Trim(s, "0") == "") {
				t.Fatalf("digits8(%q, %d) = %d", w, n, v)
			}
		}
	}
}
