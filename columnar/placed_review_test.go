package columnar

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
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

// TestPlacedPagesRandom: random chunks of PLAIN pages of an INT64 column,
// required or optional, version 1 and 2, with NULLs, bytes after the
// values, levels lengths and value counts that lie, read from a Snappy
// chunk (the pages placed: fixedDecoder.place) and from the same pages
// uncompressed (copied): the same rows, or an error from both.
func TestPlacedPagesRandom(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	placed0 := placedPages.Load()
	for trial := range testutil.RaceSize(3000, 300) {
		optional := rng.IntN(3) > 0
		var pages []craftPage
		rows := int64(0)
		for range 1 + rng.IntN(4) {
			nv := 1 + rng.IntN(40)
			if rng.IntN(4) == 0 {
				nv = 1 + rng.IntN(400)
			}
			defs := make([]uint32, nv)
			var vals []int64
			nullRate := []float64{0, 0.05, 0.3, 0.9}[rng.IntN(4)]
			for r := range defs {
				if !optional || rng.Float64() >= nullRate {
					defs[r] = 1
					vals = append(vals, int64(rng.Uint64()))
				}
			}
			tail := make([]byte, []int{0, 0, 0, 1, 7, 8, 13, 64}[rng.IntN(8)])
			for j := range tail {
				tail[j] = byte(rng.IntN(256))
			}
			v2 := rng.IntN(2) == 0
			var body []byte
			var lv int32
			switch {
			case v2 && optional:
				run := packedRun(1, defs...)[1:]
				lv = int32(len(run))
				body = slices.Concat(run, plainInts(vals...), tail)
			case optional:
				lev := v1Levels(defs...)
				if rng.IntN(8) == 0 { // a levels length that lies
					binary.LittleEndian.PutUint32(lev, uint32(len(lev)-4+rng.IntN(17)-8))
				}
				body = slices.Concat(lev, plainInts(vals...), tail)
			default:
				body = slices.Concat(plainInts(vals...), tail)
			}
			hnv := int32(nv)
			if rng.IntN(10) == 0 { // a value count that lies
				hnv = max(0, hnv+int32(rng.IntN(5))-2)
			}
			typ := int32(pageData)
			if v2 {
				typ = pageDataV2
			}
			pages = append(pages, craftPage{typ: typ, nv: hnv, enc: 0, body: body, v2Levels: lv})
			rows += int64(nv)
		}
		var got [2][]int64
		var nulls [2][]bool
		var errs [2]error
		for s, snap := range []bool{false, true} {
			pq := openCraft(t, writeCraft(t, craftChunk{pages: pages, snappy: snap, optional: optional, plain: true, rows: rows}))
			c, err := pq.readFixed(0, 0, Type{Kind: Int}, nil)
			errs[s] = err
			if err == nil {
				got[s] = slices.Clone(c.ints[:c.Len()])
				for j := range c.Len() {
					nulls[s] = append(nulls[s], c.Null(j))
				}
				c.Release()
			}
		}
		what := fmt.Sprintf("trial %d (seed %d), %d pages, optional %v", trial, seed, len(pages), optional)
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("%s: uncompressed: %v; Snappy: %v", what, errs[0], errs[1])
		}
		if !slices.Equal(got[0], got[1]) || !slices.Equal(nulls[0], nulls[1]) {
			t.Fatalf("%s: uncompressed %v (NULLs %v), Snappy %v (NULLs %v)", what, got[0], nulls[0], got[1], nulls[1])
		}
	}
	if placedPages.Load() == placed0 {
		t.Error("no page placed")
	}
}
