package columnar

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

// v1Levels is a version 1 page's definition levels (bit width 1, one
// bit-packed run) with their 4-byte length first.
func v1Levels(defs ...uint32) []byte {
	run := packedRun(1, defs...)[1:] // without the bit width byte
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(run))), run...)
}

// TestPlacedPagesCrafted: Snappy PLAIN pages of an optional INT64 column
// that place decompresses into the values, with bytes after the values
// (arrow-go reads the first of them, and ignores the rest), NULLs first
// and last, after a page of values the levels are written over: read as
// arrow-go reads them.
func TestPlacedPagesCrafted(t *testing.T) {
	type tc struct {
		name  string
		pages []craftPage
		rows  int64
	}
	var cases []tc
	for _, trail := range []int{0, 1, 7, 8, 9, 16, 40} {
		tail := make([]byte, trail)
		for j := range tail {
			tail[j] = byte(0xA0 + j)
		}
		p := func(defs []uint32, vals ...int64) craftPage {
			return craftPage{typ: pageData, nv: int32(len(defs)), enc: 0, body: slices.Concat(v1Levels(defs...), plainInts(vals...), tail)}
		}
		p2 := func(defs []uint32, vals ...int64) craftPage {
			run := packedRun(1, defs...)[1:]
			return craftPage{typ: pageDataV2, nv: int32(len(defs)), enc: 0, body: slices.Concat(run, plainInts(vals...), tail), v2Levels: int32(len(run))}
		}
		full := p([]uint32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
		cases = append(cases,
			tc{fmt.Sprintf("NULL first, %d trailing bytes", trail), []craftPage{p([]uint32{0, 1, 1}, 101, 102)}, 3},
			tc{fmt.Sprintf("NULLs between, %d trailing bytes", trail), []craftPage{p([]uint32{1, 0, 1, 0, 0, 1, 1}, 101, 102, 103, 104)}, 7},
			tc{fmt.Sprintf("no NULL, %d trailing bytes", trail), []craftPage{p([]uint32{1, 1, 1}, 101, 102, 103)}, 3},
			tc{fmt.Sprintf("two pages, NULL first, %d trailing bytes", trail), []craftPage{full, p([]uint32{0, 1, 1, 1}, 101, 102, 103)}, 14},
			tc{fmt.Sprintf("two pages, NULL last, %d trailing bytes", trail), []craftPage{full, p([]uint32{1, 1, 1, 0}, 101, 102, 103)}, 14},
			tc{fmt.Sprintf("version 2, NULL first, %d trailing bytes", trail), []craftPage{full, p2([]uint32{0, 1, 1}, 101, 102)}, 13},
		)
	}
	placed := 0
	for _, c := range cases {
		pq := openCraft(t, writeCraft(t, craftChunk{pages: c.pages, snappy: true, optional: true, plain: true, rows: c.rows}))
		placed0 := placedPages.Load()
		ours, err := pq.readFixed(0, 0, Type{Kind: Int}, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if placedPages.Load() > placed0 {
			placed++
		}
		arrowPages = true
		theirs, err := pq.read(0, 0, Type{Kind: Int}, nil)
		arrowPages = false
		if err != nil {
			t.Errorf("%s: arrow-go: %v", c.name, err)
			ours.Release()
			continue
		}
		if ours.Len() != theirs.Len() {
			t.Errorf("%s: %d rows against %d", c.name, ours.Len(), theirs.Len())
		}
		for j := range min(ours.Len(), theirs.Len()) {
			if ours.Null(j) != theirs.Null(j) || ours.ints[j] != theirs.ints[j] {
				t.Errorf("%s: row %d: %d (NULL %v) against arrow-go's %d (NULL %v)", c.name, j, ours.ints[j], ours.Null(j), theirs.ints[j], theirs.Null(j))
				break
			}
		}
		ours.Release()
		theirs.Release()
	}
	if placed < len(cases)/2 {
		t.Errorf("%d of %d chunks had a page placed: the test did not exercise place", placed, len(cases))
	}
}
