package csvscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/cpuswitch"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// withBlockAsm runs the rest of the test with blockAsm set to on, restoring
// it at the end; on asks for the AVX2 block scanner only where the CPU has
// it (hasBlockAsm), whatever ACBFJOIN_CPU says, so that both paths are
// tested on every run.
func withBlockAsm(t testing.TB, on bool) {
	old := blockAsm
	blockAsm = on && hasBlockAsm
	t.Cleanup(func() { blockAsm = old })
}

// checkBlock compares scanMasks on b, with the assembly where the CPU has
// it, against masksBlockGo: the same number of words (len(b)/64), the same
// masks, and no word written after them.
func checkBlock(t *testing.T, b []byte, sep byte) {
	t.Helper()
	n := len(b) / 64
	const canary = 0x5a5a5a5a5a5a5a5a
	gs, gn := make([]uint64, n+2), make([]uint64, n+2)
	for i := range gs {
		gs[i], gn[i] = canary, canary
	}
	ws, wn := make([]uint64, n), make([]uint64, n)
	masksBlockGo(b[:64*n], sep, ws, wn)
	got := scanMasks(b, sep, gs, gn)
	if got != n {
		t.Fatalf("len %d sep %q: scanMasks did %d words, want %d", len(b), sep, got, n)
	}
	for i := range n {
		if gs[i] != ws[i] || gn[i] != wn[i] {
			t.Fatalf("len %d sep %q word %d %q: %064b %064b, want %064b %064b", len(b), sep, i, b[64*i:64*i+64], gs[i], gn[i], ws[i], wn[i])
		}
	}
	if gs[n] != canary || gn[n] != canary || gs[n+1] != canary || gn[n+1] != canary {
		t.Fatalf("len %d sep %q: scanMasks wrote past word %d", len(b), sep, n)
	}
}

// checkBlockQ is checkBlock for scanMasksQ against masksQBlockGo: the
// three masks of each word, and none written after them.
func checkBlockQ(t *testing.T, b []byte, sep byte) {
	t.Helper()
	n := len(b) / 64
	const canary = 0x5a5a5a5a5a5a5a5a
	g := [3][]uint64{make([]uint64, n+2), make([]uint64, n+2), make([]uint64, n+2)}
	for _, m := range g {
		for i := range m {
			m[i] = canary
		}
	}
	w := [3][]uint64{make([]uint64, n), make([]uint64, n), make([]uint64, n)}
	masksQBlockGo(b[:64*n], sep, w[0], w[1], w[2])
	if got := scanMasksQ(b, sep, g[0], g[1], g[2]); got != n {
		t.Fatalf("len %d sep %q: scanMasksQ did %d words, want %d", len(b), sep, got, n)
	}
	for k := range g {
		for i := range n {
			if g[k][i] != w[k][i] {
				t.Fatalf("len %d sep %q word %d %q, mask %d (seps, nls, quotes): %064b, want %064b", len(b), sep, i, b[64*i:64*i+64], k, g[k][i], w[k][i])
			}
		}
		if g[k][n] != canary || g[k][n+1] != canary {
			t.Fatalf("len %d sep %q: scanMasksQ wrote past word %d of mask %d", len(b), sep, n, k)
		}
	}
	// The first two masks are scanMasks'.
	if n > 0 {
		s, l := make([]uint64, n), make([]uint64, n)
		masksBlockGo(b[:64*n], sep, s, l)
		if !slices.Equal(s, w[0]) || !slices.Equal(l, w[1]) {
			t.Fatalf("len %d sep %q: masksQBlockGo's separators or line breaks differ from masksBlockGo's", len(b), sep)
		}
	}
}

// validSeps is every separator a Reader takes.
func validSeps() []byte {
	var seps []byte
	for c := range 256 {
		if validSep(byte(c)) == nil {
			seps = append(seps, byte(c))
		}
	}
	return seps
}

// TestMasksBlock: the block scanners (AVX2 where the CPU has it) give
// masksBlockGo's and masksQBlockGo's masks, word for word, on random blocks: lengths from 0 to
// 70 words, multiples of 64 or not; bytes from the CSV alphabet, from all
// 256 values, or all separators and line breaks; every valid separator.
// The seed is logged (ACBFJOIN_SEED replays it).
func TestMasksBlock(t *testing.T) {
	testutil.SkipUnderRace(t)
	withBlockAsm(t, true)
	if !blockAsm {
		t.Log("no AVX2 on this CPU: the portable code is checked against itself")
	}
	r := testutil.Rand(testutil.Seed(t))
	seps := validSeps()
	csv := []byte(",;\t|\n\r\"a0\x00\xff")
	for iter := range 3000 {
		sep := seps[r.IntN(len(seps))]
		var alphabet []byte
		switch iter % 3 {
		case 0:
			alphabet = csv
		case 1:
			alphabet = nil // every byte value
		case 2:
			alphabet = []byte{sep, sep, sep, '\n'}
		}
		length := r.IntN(70 * 64)
		if iter%5 == 0 {
			length = 64 * r.IntN(70) // whole words, 0 included
		}
		b := make([]byte, length)
		for i := range b {
			if alphabet == nil {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		checkBlock(t, b, sep)
		checkBlockQ(t, b, sep)
	}
	// Each byte value alone in a word, at every place, for every separator.
	b := make([]byte, 64)
	for _, sep := range seps {
		for c := range 256 {
			for i := range b {
				b[i] = 'x'
			}
			b[c%64] = byte(c)
			checkBlock(t, b, sep)
			checkBlockQ(t, b, sep)
		}
	}
}

// FuzzMasksBlock: the block scanner and masksBlockGo agree on every input
// the fuzzer finds, whole and from every start in the first word (the
// Reader scans blocks from any offset).
func FuzzMasksBlock(f *testing.F) {
	f.Add([]byte("CITING,CITED\n3858241,956203\n3858241,1324234\n3858241,3398406\n38"), byte(','))
	f.Add([]byte("a\tb\r\n\"q,\"\"\",x\n"), byte('\t'))
	f.Add([]byte(strings.Repeat(",\n", 100)), byte(','))
	f.Add([]byte{}, byte(';'))
	f.Fuzz(func(t *testing.T, data []byte, sep byte) {
		if validSep(sep) != nil {
			return // no separator Reader takes: never asked
		}
		withBlockAsm(t, true)
		for off := range min(len(data), 64) + 1 {
			checkBlock(t, data[off:], sep)
			checkBlockQ(t, data[off:], sep)
		}
	})
}

// TestBatchBlocks: a file of many blocks (about 90 KiB) with quoted
// records, blank lines and CRLFs spread in it, read in batches of random
// sizes and in reads of several sizes, gives NextBatch what Next gives,
// with the block scanner and with the portable code: the masks carried
// over from one batch to the next, across blocks and across fills.
func TestBatchBlocks(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	var b bytes.Buffer
	b.WriteString("CITING,CITED\n")
	for i := 0; b.Len() < 90<<10; i++ {
		switch rng.IntN(200) {
		case 0:
			b.WriteString("\"1,2\",3\n")
		case 1:
			b.WriteString("\n")
		case 2:
			fmt.Fprintf(&b, "%d,%d\r\n", i, rng.IntN(1e7))
		default:
			fmt.Fprintf(&b, "%d,%d\n", 3858241+i/7, rng.IntN(1e7))
		}
	}
	data := b.Bytes()
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("asm=%v", on && hasBlockAsm), func(t *testing.T) {
			withBlockAsm(t, on)
			for _, chunk := range []int{0, 4093, 64 << 10} {
				for col := range 2 {
					want, werr := viaNext(data, col, false, false, 2, chunk, ',')
					got, gerr := viaBatchMax(data, col, chunk, rng)
					if fmt.Sprint(werr) != fmt.Sprint(gerr) || len(got) != len(want) {
						t.Fatalf("chunk %d col %d: %d records (%v), want %d (%v)", chunk, col, len(got), gerr, len(want), werr)
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("chunk %d col %d record %d: %+v, want %+v", chunk, col, i, got[i], want[i])
						}
					}
				}
			}
		})
	}
}

// viaBatchMax reads data (a CSV file with a header) with NextBatch in
// batches of up to 1..400 records, field col.
func viaBatchMax(data []byte, col, chunk int, rng *rand.Rand) ([]testRec, error) {
	r := newTestReader(data, false, 0, chunk, ',')
	if _, err := r.ReadHeader(); err != nil {
		return nil, err
	}
	var out []testRec
	var bt Batch
	for r.NextBatch(col, 1+rng.IntN(400), &bt) {
		for i := range bt.Len() {
			out = append(out, testRec{raw: string(bt.Raw(i)), field: string(bt.Field(i)), off: bt.Offset(i), line: bt.Line(i)})
		}
	}
	return out, r.Err()
}

// TestChooseCPU: ACBFJOIN_CPU's values: native (or unset) takes the
// assembly where the CPU has it, portable never; anything else is portable
// with a warning.
func TestChooseCPU(t *testing.T) {
	for _, c := range []struct {
		v        string
		has, asm bool
		warn     bool
	}{
		{"", true, true, false}, {"", false, false, false},
		{"native", true, true, false}, {"native", false, false, false},
		{"portable", true, false, false}, {"portable", false, false, false},
		{"Portable", true, false, true}, {"avx2", true, false, true}, {"portabel", true, false, true}, {" ", true, false, true},
	} {
		asm, note := chooseCPU(c.v, c.has)
		if asm != c.asm || (note != "") != c.warn {
			t.Errorf("chooseCPU(%q, %v) = %v, %q; want asm %v, warning %v", c.v, c.has, asm, note, c.asm, c.warn)
		}
	}
}

// TestCPUSwitch runs this test binary again with ACBFJOIN_CPU set, so that
// the package's init reads it: with "portable" (or a typo) no Reader
// computes a block of masks (the assembly's only caller) and CPUPath says
// "portable"; with "native" both follow the CPU. It checks which code ran,
// not how fast.
func TestCPUSwitch(t *testing.T) {
	if os.Getenv("CSVSCAN_CPU_CHILD") == "1" {
		t.Skip("the child's own run")
	}
	native := "portable"
	if hasBlockAsm {
		native = "avx2"
	}
	cases := []struct{ env, path, warn string }{
		{"portable", "portable", ""},
		{"native", native, ""},
		{"", native, ""},
		{"portabel", "portable", `ACBFJOIN_CPU="portabel" is neither`},
	}
	// Under the race detector, one of the children (each a start of the
	// race-instrumented test binary).
	for _, c := range testutil.RacePick(cases, 1, testutil.RaceSeed(t)) {
		stdout, stderr := testutil.Child(t, "TestCPUSwitchChild", "CSVSCAN_CPU_CHILD=1", cpuswitch.Env+"="+c.env)
		blocks := c.path == "avx2"
		want := fmt.Sprintf("path=%s blocks=%v", c.path, blocks)
		if !strings.Contains(stdout, want) {
			t.Errorf("%s=%q: the child says %q, want %q", cpuswitch.Env, c.env, stdout, want)
		}
		all := stdout + stderr
		if c.warn != "" && !strings.Contains(all, c.warn) {
			t.Errorf("%s=%q: no warning %q in %q", cpuswitch.Env, c.env, c.warn, all)
		}
		if c.warn == "" && strings.Contains(all, "is neither") {
			t.Errorf("%s=%q: a warning: %q", cpuswitch.Env, c.env, all)
		}
	}
}

// TestCPUSwitchChild is TestCPUSwitch's child: it reads a 20 KiB file with
// NextBatch and prints the path CPUPath names and whether the Reader
// computed a block of masks.
func TestCPUSwitchChild(t *testing.T) {
	if os.Getenv("CSVSCAN_CPU_CHILD") != "1" {
		t.Skip("run by TestCPUSwitch")
	}
	r := NewReader(bytes.NewReader(citeLike(20<<10)), "cite")
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	var b Batch
	n := 0
	for r.NextBatch(1, 256, &b) {
		n += b.Len()
	}
	if r.Err() != nil || n == 0 {
		t.Fatal(r.Err(), n)
	}
	fmt.Printf("path=%s blocks=%v warning=%s\n", CPUPath(), r.mseps != nil, CPUWarning())
}
