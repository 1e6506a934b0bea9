package csvscan

import (
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestMasks64: the AVX2 masks are the reference's on random blocks of the
// bytes that matter (separators, line breaks, quotes, CRs) and others, for
// each separator.
func TestMasks64(t *testing.T) {
	if !hasMasks64 {
		t.Skip("no AVX2 on this CPU: the word loop scans, and masks64 is never called")
	}
	r := testutil.Rand(testutil.Seed(t))
	alphabet := []byte(",;\t|\n\r\"a0\x00\xff")
	b := make([]byte, 64)
	for range 20000 {
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, sep := range []byte{',', ';', '\t', '|', 0xff} {
			gs, gn := masks64(&b[0], sep)
			ws, wn := masks64Go(b, sep)
			if gs != ws || gn != wn {
				t.Fatalf("%q sep %q: %064b %064b, want %064b %064b", b, sep, gs, gn, ws, wn)
			}
		}
	}
}

// FuzzMasks64: the AVX2 masks and the reference agree on every block the
// fuzzer finds.
func FuzzMasks64(f *testing.F) {
	f.Add([]byte("CITING,CITED\n3858241,956203\n3858241,1324234\n3858241,3398406\n38"), byte(','))
	f.Add([]byte("a\tb\r\n\"q,\"\"\",x\n"), byte('\t'))
	f.Fuzz(func(t *testing.T, data []byte, sep byte) {
		if !hasMasks64 {
			t.Skip("no AVX2")
		}
		if validSep(sep) != nil {
			return // no separator Reader takes: never asked
		}
		b := make([]byte, 64)
		copy(b, data)
		gs, gn := masks64(&b[0], sep)
		ws, wn := masks64Go(b, sep)
		if gs != ws || gn != wn {
			t.Fatalf("%q sep %q: %064b %064b, want %064b %064b", b, sep, gs, gn, ws, wn)
		}
	})
}
