package columnar

import (
	"encoding/binary"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// levelsProgram encodes a page's definition levels (bit width 1) from
// prog, a byte a run: an even byte b is a repeated run of (b>>2)+1 values
// of (b>>1)&1, an odd one a bit-packed run of ((b>>1)&7)+1 groups of 8,
// its bits the bytes that follow (zeros past prog's end). It returns the
// levels and their values' count.
func levelsProgram(prog []byte) ([]byte, int) {
	var out []byte
	n := 0
	for i := 0; i < len(prog); i++ {
		b := prog[i]
		if b&1 == 0 {
			count := int(b>>2) + 1
			out = binary.AppendUvarint(out, uint64(count)<<1)
			out = append(out, (b>>1)&1)
			n += count
			continue
		}
		groups := int((b>>1)&7) + 1
		out = binary.AppendUvarint(out, uint64(groups)<<1|1)
		for range groups {
			var x byte
			if i+1 < len(prog) {
				i++
				x = prog[i]
			}
			out = append(out, x)
		}
		n += 8 * groups
	}
	return out, n
}

// checkLevelCursor compares levelCursor with the levels unpacked
// (unpackHybrid) and counted at every row of rows (ascending, below nv),
// where countOnes accepts the page (a page it refuses is never read).
func checkLevelCursor(t *testing.T, levels []byte, nv int, rows []int) {
	t.Helper()
	if _, err := countOnes(levels, nv); err != nil {
		return
	}
	defs := make([]uint32, nv)
	if _, err := unpackHybrid(levels, 1, defs); err != nil {
		t.Fatalf("countOnes reads the levels, unpackHybrid does not: %v", err)
	}
	var c levelCursor
	c.reset(levels, nv)
	ones, at := 0, 0
	for _, r := range rows {
		for ; at < r; at++ {
			ones += int(defs[at])
		}
		has, j, err := c.at(r)
		if err != nil {
			t.Fatalf("row %d of %d: %v", r, nv, err)
		}
		if has != (defs[r] == 1) || j != ones {
			t.Fatalf("row %d of %d: has %v, %d values before, want %v, %d", r, nv, has, j, defs[r] == 1, ones)
		}
	}
}

// TestLevelCursor: the chosen rows' levels and values before them, as
// unpacked and counted, for pages of repeated and bit-packed runs, each
// run's first and last rows, rows asked twice, and random ascending rows
// from sparse to every row.
func TestLevelCursor(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for trial := range 300 {
		prog := make([]byte, 1+rng.IntN(40))
		for i := range prog {
			prog[i] = byte(rng.IntN(256))
		}
		levels, n := levelsProgram(prog)
		nv := n - rng.IntN(min(n, 8)) // a last bit-packed run may hold more than the page's rows
		var rows []int
		p := []float64{0.001, 0.05, 0.5, 1}[trial%4]
		for r := range nv {
			if rng.Float64() < p || r == 0 || r == nv-1 {
				rows = append(rows, r)
				if rng.IntN(20) == 0 {
					rows = append(rows, r) // asked twice
				}
			}
		}
		checkLevelCursor(t, levels, nv, rows)
	}
	// Asking a row before the last one asked (in the same run) is an
	// error, not a wrong answer.
	levels, n := levelsProgram([]byte{0x03, 0xff, 0x06})
	var c levelCursor
	c.reset(levels, n)
	if _, _, err := c.at(10); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.at(3); err == nil {
		t.Error("a row before the last asked answered")
	}
}

// FuzzLevelCursor is TestLevelCursor's check on levels encoded from the
// fuzzer's runs (levelsProgram) and on its raw bytes as levels, at rows
// stepped by the bytes of steps.
func FuzzLevelCursor(f *testing.F) {
	f.Add([]byte{0x03, 0xaa, 0x06, 0x05, 0x0f, 0xf0, 0x08}, []byte{1, 3, 7, 0, 200}, uint16(0))
	f.Add([]byte{0x00, 0x02, 0x7f}, []byte{0, 0, 1}, uint16(3))
	f.Fuzz(func(t *testing.T, prog, steps []byte, cut uint16) {
		if len(prog) > 256 || len(steps) > 4096 {
			return
		}
		rowsOf := func(nv int) []int {
			var rows []int
			r := 0
			for _, s := range steps {
				if r += int(s) % 64; r >= nv {
					break
				}
				rows = append(rows, r)
			}
			return rows
		}
		levels, n := levelsProgram(prog)
		if nv := n - int(cut)%8; nv > 0 {
			checkLevelCursor(t, levels, nv, rowsOf(nv))
		}
		if nv := int(cut)%2000 + 1; len(prog) > 0 {
			checkLevelCursor(t, prog, nv, rowsOf(nv))
		}
	})
}
