package columnar

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"sync/atomic"
)

// noSparseLevels: ACBFJOIN_LEVELS=unpack unpacks every row's definition
// level of a page read at chosen rows and visits every row, as before
// levelCursor (to compare the two; the values are the same).
var noSparseLevels = os.Getenv("ACBFJOIN_LEVELS") == "unpack"

// sparseLevelPages counts the pages whose chosen rows' levels a
// levelCursor found (for the tests).
var sparseLevelPages atomic.Int64

// levelCursor finds, for chosen rows of a page in ascending order, whether
// each holds a value (its definition level: 0 or 1, the RLE/bit-packed
// hybrid of bit width 1 of a flat nullable column) and how many of the
// page's rows before it do (the index of its value among the page's
// present ones), without unpacking the levels: a repeated run answers in
// O(1), a bit-packed run by counting the bits passed since the last row
// asked, eight bytes at a time. A page read at a few chosen rows (the wide
// join's other columns, 1 row in 3,000 chosen) unpacked every row's level
// and visited every row before: a third of that join's CPU. O(runs +
// chosen rows + packed bytes / 8) for a page; one goroutine.
type levelCursor struct {
	data  []byte
	pos   int         // the byte after the current run
	nv    int         // the page's rows
	run   hybridRunOf // the current run (count 0 before the first)
	start int         // the row of the current run's first value
	ones  int         // the values in the rows before the current run
	b     int         // a bit-packed run: its bytes counted in bOnes
	bOnes int
	last  int // the last row asked
}

// reset points c at levels, a page of nv rows' levels.
func (c *levelCursor) reset(levels []byte, nv int) {
	*c = levelCursor{data: levels, nv: nv}
}

// at reports whether row r of the page (0 <= r < nv; each call's r at
// least the last's) holds a value, and the values in the page's rows
// before it. An error is a damaged run (readRun's).
func (c *levelCursor) at(r int) (has bool, j int, err error) {
	if r < c.last || r >= c.nv {
		return false, 0, fmt.Errorf("internal error: the level of row %d asked after row %d's, of %d", r, c.last, c.nv)
	}
	c.last = r
	for r >= c.start+c.run.count {
		c.ones += c.runOnes()
		c.start += c.run.count
		run, next, err := readRun(c.data, c.pos, 1, c.nv-c.start)
		if err != nil {
			return false, 0, fmt.Errorf("definition levels: %w, %d values of %d", err, c.start, c.nv)
		}
		c.run, c.pos, c.b, c.bOnes = run, next, 0, 0
	}
	off := r - c.start
	if c.run.packed == nil {
		return c.run.v == 1, c.ones + off*int(c.run.v), nil
	}
	p := c.run.packed // at least ceil(count/8) bytes (readRun)
	for ; 8*(c.b+8) <= off; c.b += 8 {
		c.bOnes += bits.OnesCount64(binary.LittleEndian.Uint64(p[c.b:]))
	}
	for ; 8*(c.b+1) <= off; c.b++ {
		c.bOnes += bits.OnesCount8(p[c.b])
	}
	bit := uint(off - 8*c.b) // values are packed from each byte's least significant bit
	x := p[c.b]
	return x>>bit&1 == 1, c.ones + c.bOnes + bits.OnesCount8(x&(1<<bit-1)), nil
}

// runOnes is the values in the current run's rows.
func (c *levelCursor) runOnes() int {
	if c.run.packed == nil {
		return c.run.count * int(c.run.v)
	}
	n, full := c.bOnes, c.run.count/8
	for _, x := range c.run.packed[c.b:full] {
		n += bits.OnesCount8(x)
	}
	if rest := c.run.count % 8; rest > 0 {
		n += bits.OnesCount8(c.run.packed[full] & (1<<rest - 1))
	}
	return n
}
