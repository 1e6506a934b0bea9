package local

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// tableMapper is a mapper's scratch for a table side's chunks, and what
// its chunks did (join.TableReport's counts).
type tableMapper struct {
	kb     [mapBatch][8]byte // a batch's integer keys
	ivals  []int64           // a batch's integer keys as integers, at selected rows (filterInts)
	keys   [][]byte
	rows   []int // the chunk row of each key of keys
	pass   []bool
	dpass  []bool   // a dictionary's entries' verdicts (filterDict)
	ikeys  []byte   // an integer dictionary's entries as keys, 8 bytes each (filterDict)
	dexcl  []bool   // a dictionary's entries excluded as hot keys (filterDict)
	dscr   []bool   // a dictionary's entries that are none of screen's values (filterDict)
	dpi    []uint8  // filterDictRows: 1 at 1+e where entry e passes, 0 at 0 (NULL)
	dkl    []int32  // filterDictRows: entry e's key bytes at 1+e, 0 at 0 (NULL)
	dhash  []uint64 // filterDictRows: a passing entry e's hashing.Sum at 2e, 2e+1
	arena  []byte   // a batch's keys that are neither in kb nor a column's own bytes
	fields [][]byte
	text   []byte
	surv   []int    // the surviving rows of a chunk
	skeys  []byte   // their keys, one after the other
	sends  []int    // where each ends in skeys
	shash  []uint64 // their keys' hashing.Sum (h1, h2 at 2j, 2j+1) where filterDictRows hashed each entry once; else empty
	// With anti, left and full joins, the rows written without a shuffle:
	// rejected by the filter, or of a NULL key (nil key); rnull says
	// which are NULL's (or an unmatchable key's), whose bytes no filter
	// saved (not counted as dropped).
	rej    []int
	rkeys  []byte
	rends  []int
	rnull  []bool
	raw    []byte // a survivor's row as a CSV line, or typed cells (x.cellTypes)
	native []bool // with typed cells, which of all's columns are carried natively
	all    []*columnar.Column
	rest   []*columnar.Column // the columns materializeChunk decoded, released after the chunk's rows are written
	wcols  []*columnar.Column // Where's columns of a chunk, the others nil (whereChunk)
	keep   []int              // the rows Where keeps
	counts join.TableReport
	// screen is the values that the chunk's Bloom filter (the Parquet
	// file's own, of the join column) passed of the keys, where it was
	// read (screened): no other value of the chunk is a key (filterInts);
	// sscreen the same of a string key.
	screen   []int64
	sscreen  [][]byte
	screened bool
	cvals    []int64 // a batch's values in screen, and their rows (filterInts)
	crows    []int
}

// maxScreen bounds the values of a chunk's screen: with more, a value's
// compares with them cost what the filter's probe does, which then tests
// every row.
const maxScreen = 16

func newTableMapper(s *source.Side) *tableMapper {
	return &tableMapper{pass: make([]bool, mapBatch), fields: make([][]byte, len(s.Header))}
}

// addTo adds the mapper's counts to r.
func (t *tableMapper) addTo(r *join.TableReport) {
	c := t.counts
	r.Chunks += c.Chunks
	r.ChunksSkipped += c.ChunksSkipped
	r.RowsSkipped += c.RowsSkipped
	r.SkippedNulls += c.SkippedNulls
	r.BytesSkipped += c.BytesSkipped
	r.ChunksSkippedBloom += c.ChunksSkippedBloom
	r.RowsSkippedBloom += c.RowsSkippedBloom
	r.SkippedNullsBloom += c.SkippedNullsBloom
	r.BytesSkippedBloom += c.BytesSkippedBloom
	r.BloomChecked += c.BloomChecked
	r.RowsScreenedBloom += c.RowsScreenedBloom
	r.ChunksDict += c.ChunksDict
	r.DictEntries += c.DictEntries
	r.ChunksMaterialized += c.ChunksMaterialized
	r.DecodedBytes += c.DecodedBytes
	r.Bytes += c.Bytes
}

// mapChunk is the map phase of a table side's chunk, column by column:
//  0. with Options.Where, a chunk whose statistics rule it out is skipped
//     unread (pruneWhere); else the predicate's columns are decoded and its
//     rows tested (whereChunk), and the steps after take the rows it keeps;
//  1. without it, a chunk whose statistics put its keys outside the key
//     side's least and greatest (a one-column integer key, Parquet) is
//     skipped unread (or whose Bloom filters hold none of the keys);
//  2. its key columns are decoded and its keys made (columnar.Column's
//     AppendKey: the bytes key.Of makes of the same value as text, so
//     they meet the key side's), NULLs and unmatchable keys counted;
//  3. the filter tests them a batch at a time (filters.BatchFilter);
//  4. only if some row passed are the other columns decoded, and only the
//     survivors rendered as CSV lines (columnar.AppendRow) into the shuffle,
//     their offset being their row index.
//
// The bytes a dropped row would have cost the shuffle are estimated from
// its chunk's uncompressed bytes a row: a table's rows are not rendered
// unless they pass.
func (x *execution) mapChunk(ctx context.Context, m *mapWorker, c *source.Chunk) error {
	if m.tm == nil {
		m.tm = newTableMapper(x.input)
	}
	t, ks := m.tm, x.joinSpec
	t.counts.Chunks++
	t.screened = false // until skipChunk reads the chunk's Bloom filter
	chunkBytes := c.Bytes()
	t.counts.Bytes += chunkBytes
	rowBytes := 0
	if c.Rows > 0 {
		rowBytes = int(chunkBytes / int64(c.Rows))
	}
	var keep []int // with Where, the rows it selects
	if m.where != nil {
		if x.input.PruneChunk(c) { // counted by mapRows
			return nil
		}
		var err error
		if keep, err = x.whereChunk(m, c); err != nil || len(keep) == 0 {
			return err
		}
	} else if x.skipChunk(m, c, chunkBytes, rowBytes) {
		return nil
	}
	dict, keyCol, err := x.chunkDict(c)
	if err != nil {
		return err
	}
	var keyCols []*columnar.Column
	if keyCol != nil { // an integer key read as its values
		keyCols = []*columnar.Column{keyCol}
	}
	// The chunk's decoded columns go back to the read buffers once its
	// rows are written (columnar.Column.Release): nothing keeps them (a
	// row's key and text are copied into the shuffle).
	defer func() { columnar.ReleaseAll(keyCols) }()
	// The dictionary's rows go back after the rows are written and the
	// chunk's other columns released (deferred below, run before this),
	// with the key column Column made of them.
	defer dict.Release()
	if dict != nil {
		t.counts.DecodedBytes += c.ColumnBytes(ks.Cols)
		if err := x.filterDict(ctx, m, dict, rowBytes, keep); err != nil {
			return err
		}
	} else {
		if keyCols == nil {
			if x.pairAhead(m, c.Pair) {
				keyCols, err = c.ReadKey(ks.Cols) // the next chunk's key column decoded with this one's
			} else {
				keyCols, err = c.Read(ks.Cols)
			}
			if err != nil {
				return err
			}
		}
		t.counts.DecodedBytes += c.ColumnBytes(ks.Cols)
		if err := x.filterChunk(ctx, m, c, keyCols, rowBytes, keep); err != nil {
			return err
		}
	}
	if len(t.surv) == 0 && len(t.rej) == 0 {
		return nil
	}
	sel, err := x.materializeChunk(m, c, chunkKeyCols{cols: keyCols, dict: dict})
	defer func() { columnar.ReleaseAll(t.rest); t.rest = nil }()
	if err != nil {
		return err
	}
	return m.writeChunk(c, sel, x.cellTypes, x.help)
}

// noDict turns filterDict off (ACBFJOIN_DICT=off, read once at start):
// every row's key is then probed, as before it, for comparing the two
// (bench/parquet-real.sh); the rows are the same (TestDictKeys).
var noDict = os.Getenv("ACBFJOIN_DICT") == "off"

// chunkDict is the key column of a table side's chunk c read as its
// dictionary (columnar.Table.ReadDict) when filterDict can take it: a
// one-column string key of a Parquet row group whose column chunk is
// dictionary-encoded, or an integer key whose chunk's dictionary has at
// most half as many entries as rows (columnar.Table.ReadIntKey: else it
// gives the column's values, col, read in the same pass); nil, nil
// otherwise, and nothing read.
func (x *execution) chunkDict(c *source.Chunk) (*columnar.Dict, *columnar.Column, error) {
	ks := x.joinSpec
	if noDict || c.Index < 0 || ks.Composite() || (ks.Types[0] != key.String && ks.Types[0] != key.Int) {
		return nil, nil, nil
	}
	if ks.Types[0] == key.Int {
		// A dictionary of at most half as many entries as rows, or else
		// the values (col), read once.
		return c.Side.Tab.ReadIntKey(c.Index, ks.Cols[0])
	}
	d, err := c.Side.Tab.ReadDict(c.Index, ks.Cols[0])
	return d, nil, err
}

// filterDict is filterChunk of a chunk whose key column is the dictionary
// d (chunkDict): each entry is tested once, a batch at a time, and each
// row (of keep, if not nil) takes its entry's verdict; a row's key is copied only when it passes
// (or, with anti, left and full joins, is written without a shuffle). A
// dictionary of a few thousand entries for a row group of 100,000 rows
// makes the filter's cost a row nearly nothing, so the filter guard, which
// weighs that cost, neither watches nor skips it.
func (x *execution) filterDict(ctx context.Context, m *mapWorker, d *columnar.Dict, rowBytes int, keep []int) error {
	t := m.tm
	t.surv, t.skeys, t.sends, t.shash = t.surv[:0], t.skeys[:0], t.sends[:0], t.shash[:0]
	t.rej, t.rkeys, t.rends, t.rnull = t.rej[:0], t.rkeys[:0], t.rends[:0], t.rnull[:0]
	ne := d.Values.Len()
	t.counts.ChunksDict++
	t.counts.DictEntries += int64(ne)
	if cap(t.dpass) < ne {
		t.dpass = make([]bool, ne)
	}
	pass := t.dpass[:ne]
	// With hot-key exclusions, an entry excluded counts once for each of
	// its rows (as row by row), not once.
	ex, _ := m.f.(*excluding)
	var excl []bool
	if ex != nil {
		if cap(t.dexcl) < ne {
			t.dexcl = make([]bool, ne)
		}
		excl = t.dexcl[:ne]
	}
	// An integer dictionary's entries as keys (key.Of's 8 bytes), one after
	// another: entry e's is ikeys[8e:8e+8].
	ints := d.Values.Type.Kind == columnar.Int
	t.ikeys = t.ikeys[:0]
	for lo := 0; lo < ne; lo += mapBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+mapBatch, ne)
		if ints {
			vals := d.Values.Int64s(lo, hi)
			for _, v := range vals {
				t.ikeys = tuple.AppendInt(t.ikeys, v)
			}
			if ib, ok := m.f.(filters.IntBatchFilter); ok && ex == nil {
				ib.ContainsInts(vals, pass[lo:hi])
				continue
			}
		}
		t.keys = t.keys[:0]
		for e := lo; e < hi; e++ {
			if ints {
				t.keys = append(t.keys, t.ikeys[8*e:8*e+8])
			} else {
				t.keys = append(t.keys, d.Values.Bytes(e))
			}
		}
		if ex != nil {
			ex.containsEntries(t.keys, pass[lo:hi], excl[lo:hi])
			continue
		}
		m.probeAll(t.keys, pass[lo:hi])
	}
	// With a screen (skipChunk: the chunk's Bloom filter passed a few
	// keys), an entry that is none of them is no key: its rows are dropped
	// as screened, not as the filter's (filterScreened).
	var scr []bool
	if t.screened && !m.bypass {
		if cap(t.dscr) < ne {
			t.dscr = make([]bool, ne)
		}
		scr = t.dscr[:ne]
		for e := range ne {
			if ints {
				scr[e] = !slices.Contains(t.screen, d.Values.Int64(e))
			} else {
				scr[e] = !inScreen(t.sscreen, d.Values.Bytes(e))
			}
		}
	}
	m.guard.skipped = false
	if excl == nil && scr == nil && !m.bypass {
		m.filterDictRows(d, pass, ints, rowBytes, keep)
		return nil
	}
	excluded := m.filterDictEach(d, pass, excl, scr, ints, rowBytes, keep)
	if excluded > 0 {
		ex.cnt.Add(excluded)
	}
	return nil
}

// filterDictEach is filterDict's pass over the rows (of keep, if not nil)
// one by one, with entries excluded (excl) or screened (scr), either
// nil, and rejected rows kept for writing (m.bypass): it fills t.surv,
// t.skeys and t.sends (and t.rej, t.rkeys and t.rends), counts the rows,
// the NULLs, the drops and the screened rows in m, and returns the rows
// of excluded entries. filterDictRows is its branch-free equal where all
// three are off (TestFilterDictRows). O(rows).
func (m *mapWorker) filterDictEach(d *columnar.Dict, pass, excl, scr []bool, ints bool, rowBytes int, keep []int) (excluded int64) {
	t := m.tm
	var screened int64 // the rows of screened entries
	n := len(d.Rows)
	if keep != nil {
		n = len(keep)
	}
	// The rows and drops counted in locals, added once (drops).
	var rows, dropped, dropKeyBytes int
	for at := range n {
		r := at
		if keep != nil {
			r = keep[at]
		}
		e := d.Rows[r]
		if e < 0 { // NULL
			rows++
			m.cannot.add(keyNull)
			if m.bypass {
				t.rej = append(t.rej, r)
				t.rends = append(t.rends, len(t.rkeys))
				t.rnull = append(t.rnull, true)
			}
			continue
		}
		rows++
		var k []byte
		if ints {
			k = t.ikeys[8*e : 8*e+8]
		} else {
			k = d.Values.Bytes(int(e))
		}
		if scr != nil && scr[e] {
			screened++
			continue
		}
		if !pass[e] {
			if excl != nil && excl[e] {
				excluded++
			}
			if m.bypass { // reject counts the drop
				t.rej = append(t.rej, r)
				t.rkeys = append(t.rkeys, k...)
				t.rends = append(t.rends, len(t.rkeys))
				t.rnull = append(t.rnull, false)
			} else {
				dropped++
				dropKeyBytes += len(k)
			}
			continue
		}
		t.surv = append(t.surv, r)
		t.skeys = append(t.skeys, k...)
		t.sends = append(t.sends, len(t.skeys))
	}
	m.rows += int64(rows)
	m.drops(int64(dropped), int64(dropped)*int64(rowBytes)+int64(dropKeyBytes))
	m.screenedOut(screened, rowBytes)
	return excluded
}

// filterDictRows is filterDict's pass over the rows where no entry is
// excluded or screened and no rejected row is written (the common case):
// it takes the surviving rows without a branch a row, from a byte a
// dictionary entry (1 where it passes) and its key's length, and counts
// the NULL and dropped rows and the dropped keys' bytes from sums, so no
// entry's bytes are read for a row that is dropped. Only the survivors'
// keys are then copied (t.skeys). The flights join (3M rows, 2,446
// entries, 12% passing) spent 15 ns a row in the branchy loop, which
// still serves excluded, screened and rejected rows. O(rows + entries).
func (m *mapWorker) filterDictRows(d *columnar.Dict, pass []bool, ints bool, rowBytes int, keep []int) {
	t := m.tm
	ne := len(pass)
	if cap(t.dpi) < ne+1 {
		t.dpi = make([]uint8, ne+1)
		t.dkl = make([]int32, ne+1)
	}
	pi, kl := t.dpi[:ne+1], t.dkl[:ne+1]
	if cap(t.dhash) < 2*ne {
		t.dhash = make([]uint64, 2*ne)
	}
	dh := t.dhash[:2*ne]
	pi[0], kl[0] = 0, 0 // NULL (-1): neither passes nor has key bytes
	for e, ok := range pass {
		pi[e+1] = 0
		var k []byte
		if ints {
			k = t.ikeys[8*e : 8*e+8]
		} else {
			k = d.Values.Bytes(e)
		}
		kl[e+1] = int32(len(k))
		if ok { // a passing entry's partition hash, once for all its rows (emitHashed)
			pi[e+1] = 1
			dh[2*e], dh[2*e+1] = hashing.Sum(k)
		}
	}
	n := len(d.Rows)
	if keep != nil {
		n = len(keep)
	}
	// A block of rows at a time, so that the survivors' slice grows by
	// the survivors (a row's slot is written, then kept only if it passes).
	const block = 1024
	nulls, keyBytes := 0, 0
	t.surv = t.surv[:0]
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		surv := slices.Grow(t.surv, hi-lo)
		j := len(surv)
		surv = surv[:j+hi-lo]
		if keep == nil {
			for r := lo; r < hi; r++ {
				e := d.Rows[r]
				i := int(e) + 1 // a NULL's -1 at 0
				surv[j] = r
				j += int(pi[i])
				keyBytes += int(kl[i])
				nulls += int(uint32(e) >> 31)
			}
		} else {
			for _, r := range keep[lo:hi] {
				e := d.Rows[r]
				i := int(e) + 1
				surv[j] = r
				j += int(pi[i])
				keyBytes += int(kl[i])
				nulls += int(uint32(e) >> 31)
			}
		}
		t.surv = surv[:j]
	}
	// The survivors' keys, copied into room made once.
	survBytes := 0
	for _, r := range t.surv {
		survBytes += int(kl[d.Rows[r]+1])
	}
	t.skeys = slices.Grow(t.skeys, survBytes)
	t.sends = slices.Grow(t.sends, len(t.surv))
	t.shash = slices.Grow(t.shash, 2*len(t.surv))
	for _, r := range t.surv {
		e := int(d.Rows[r])
		if ints {
			t.skeys = append(t.skeys, t.ikeys[8*e:8*e+8]...)
		} else {
			t.skeys = append(t.skeys, d.Values.Bytes(e)...)
		}
		t.sends = append(t.sends, len(t.skeys))
		t.shash = append(t.shash, dh[2*e], dh[2*e+1])
	}
	dropped := n - nulls - len(t.surv)
	m.rows += int64(n)
	m.cannot.null += int64(nulls)
	m.drops(int64(dropped), int64(dropped)*int64(rowBytes)+int64(keyBytes-len(t.skeys)))
}

// chunkKeyCols are a chunk's key columns as filterChunk read them, or its
// one key column's dictionary (filterDict).
type chunkKeyCols struct {
	cols []*columnar.Column
	dict *columnar.Dict
}

// rows is the chunk's number of rows.
func (k chunkKeyCols) rows() int {
	if k.dict != nil {
		return k.dict.Len()
	}
	return k.cols[0].Len()
}

// column is key column j's values at rows sel (nil: every row).
func (k chunkKeyCols) column(j int, sel []int) *columnar.Column {
	if k.dict != nil {
		return k.dict.Column(sel)
	}
	if sel != nil {
		return k.cols[j].Select(sel)
	}
	return k.cols[j]
}

// skipChunk is step 1 of mapChunk: a chunk whose statistics put its keys
// outside the key side's least and greatest, or between two of its keys
// (keyPoints; a one-column integer or text key, Parquet), or else whose
// Bloom filter of the join column holds none of
// the keys (a one-column key, Parquet: fileBloom), is counted as read and
// dropped, and skipChunk reports true. (Not with anti, left and full
// joins: the rows of such a chunk are written, all of them.)
func (x *execution) skipChunk(m *mapWorker, c *source.Chunk, chunkBytes int64, rowBytes int) bool {
	ks, t := x.joinSpec, m.tm
	if c.Index < 0 || ks.Composite() || m.bypass {
		return false
	}
	if m.keyHi != nil {
		if outside, nulls := x.outsideKeys(m, c); outside {
			t.counts.ChunksSkipped++
			t.counts.RowsSkipped += int64(c.Rows)
			t.counts.SkippedNulls += nulls
			t.counts.BytesSkipped += chunkBytes
			m.skipped(c, nulls, rowBytes)
			return true
		}
	}
	nulls, skip, checked, passed := m.bloom.skips(c)
	if checked {
		t.counts.BloomChecked++
	}
	if !skip {
		if checked && len(passed) <= maxScreen {
			switch ks.Types[0] {
			case key.Int:
				t.screen, t.screened = x.input.Tab.BloomValues(c.Index, ks.Cols[0], passed, t.screen[:0])
			case key.String:
				t.sscreen, t.screened = m.bloom.screenValues(passed, t.sscreen[:0])
			}
		}
		return false
	}
	t.counts.ChunksSkippedBloom++
	t.counts.RowsSkippedBloom += int64(c.Rows)
	t.counts.SkippedNullsBloom += nulls
	t.counts.BytesSkippedBloom += chunkBytes
	m.skipped(c, nulls, rowBytes)
	return true
}

// outsideKeys says whether chunk c's statistics put its key column
// outside the keys' range or points (m.keyHi set; a one-column key), and
// its NULL keys. Reads the file's statistics alone.
func (x *execution) outsideKeys(m *mapWorker, c *source.Chunk) (outside bool, nulls int64) {
	ks := x.joinSpec
	switch ks.Types[0] {
	case key.Int:
		lo, hi, n, ok := x.input.Tab.KeyRange(c.Index, ks.Cols[0])
		return ok && (hi < keyInt(m.keyLo) || lo > keyInt(m.keyHi) || m.points != nil && !m.points.anyInt(lo, hi)), n
	case key.String:
		lo, hi, n, ok := x.input.Tab.TextRange(c.Index, ks.Cols[0])
		return ok && (bytes.Compare(hi, m.keyLo) < 0 || bytes.Compare(lo, m.keyHi) > 0 || m.points != nil && !m.points.anyText(lo, hi)), n
	}
	return false, 0
}

// pairAhead says whether mapChunk reads the key column of chunk p (the
// chunk after this one, source.Chunk.Pair) with this one's: p is there,
// no Where reads its own columns first, and skipChunk would not skip it
// (p within the keys by its statistics; no Bloom filter of p's key
// column in use, whose skip would leave it decoded for nothing). O(1):
// the file's metadata only.
func (x *execution) pairAhead(m *mapWorker, p *source.Chunk) bool {
	if p == nil || m.where != nil || x.joinSpec.Composite() {
		return false
	}
	if m.bloom != nil && !m.bloom.off.Load() && x.input.Tab.HasBloomFilter(p.Index, x.joinSpec.Cols[0]) {
		return false
	}
	if m.keyHi != nil { // whether or not the filter is bypassed now: it may not be when p is mapped
		outside, _ := x.outsideKeys(m, p)
		return !outside
	}
	return true
}

// skipped counts the rows of a skipped chunk c, nulls of them of a NULL
// key, as the rows read would count them: the others dropped.
func (m *mapWorker) skipped(c *source.Chunk, nulls int64, rowBytes int) {
	m.rows += int64(c.Rows)
	m.cannot.null += nulls
	m.drops(int64(c.Rows)-nulls, (int64(c.Rows)-nulls)*int64(rowBytes+8))
}

// filterChunk is steps 2 and 3 of mapChunk: the keys of the chunk's key
// columns (at the rows keep, if not nil), a batch at a time, tested by the
// filter; the survivors' rows
// and keys go to t.surv, t.skeys and t.sends, and with anti, left and full
// joins the rejected rows' to t.rej, t.rkeys and t.rends (others are
// counted as dropped).
func (x *execution) filterChunk(ctx context.Context, m *mapWorker, c *source.Chunk, keyCols []*columnar.Column, rowBytes int, keep []int) error {
	t := m.tm
	n := keyCols[0].Len()
	if keep != nil {
		n = len(keep)
	}
	t.surv, t.skeys, t.sends, t.shash = t.surv[:0], t.skeys[:0], t.sends[:0], t.shash[:0]
	t.rej, t.rkeys, t.rends, t.rnull = t.rej[:0], t.rkeys[:0], t.rends[:0], t.rnull[:0]
	ks, one := x.joinSpec, keyCols[0]
	if ib, ok := m.f.(filters.IntBatchFilter); ok && !ks.Composite() && ks.Types[0] == key.Int && one.Type.Kind == columnar.Int && !one.HasNulls() {
		return x.filterInts(ctx, m, ib, one, rowBytes, keep, n)
	}
	for lo := 0; lo < n; lo += mapBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := x.chunkKeys(m, x.joinSpec, chunkRows{c: c, cols: keyCols, sel: keep, lo: lo, hi: min(lo+mapBatch, n)}, true); err != nil {
			return err
		}
		m.rows += int64(len(t.keys))
		pass := t.pass[:len(t.keys)]
		if t.screened && !m.bypass { // as filterScreened: the rows of none of t.screen's values dropped without a probe
			t.keys, t.rows = screenKeys(m, ks.Types[0], t.keys, t.rows, rowBytes)
			pass = t.pass[:len(t.keys)]
			if m.guardStart(pass) {
				m.probeAll(t.keys, pass)
			}
		} else {
			m.probe(t.keys, pass)
		}
		for j, k := range t.keys {
			if !pass[j] {
				if m.bypass { // reject counts the drop
					t.rej = append(t.rej, t.rows[j])
					t.rkeys = append(t.rkeys, k...)
					t.rends = append(t.rends, len(t.rkeys))
					t.rnull = append(t.rnull, false)
				} else {
					m.drop(rowBytes, len(k))
				}
				continue
			}
			t.surv = append(t.surv, t.rows[j])
			t.skeys = append(t.skeys, k...)
			t.sends = append(t.sends, len(t.skeys))
		}
	}
	return nil
}

// filterInts is filterChunk for a one-column integer key of a column
// without NULLs and a filter that tests integers as they are
// (filters.IntBatchFilter): the column's values are probed where they lie,
// no key made for a row until it survives (or, with anti, left and full
// joins, is rejected). The same survivors, rejects and counts as
// filterChunk's general loop (TestFilterIntsMatch).
func (x *execution) filterInts(ctx context.Context, m *mapWorker, ib filters.IntBatchFilter, one *columnar.Column, rowBytes int, keep []int, n int) error {
	t := m.tm
	if t.screened && !m.bypass {
		return x.filterScreened(ctx, m, ib, one, rowBytes, keep, n)
	}
	for lo := 0; lo < n; lo += mapBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+mapBatch, n)
		var vals []int64
		if keep == nil {
			vals = one.Int64s(lo, hi)
		} else {
			t.ivals = t.ivals[:0]
			for _, i := range keep[lo:hi] {
				t.ivals = append(t.ivals, one.Int64(i))
			}
			vals = t.ivals
		}
		pass := t.pass[:len(vals)]
		m.probeInts(ib, vals, pass)
		m.rows += int64(len(vals))
		if !m.bypass {
			// Only the survivors visited: eight verdicts a load, the
			// passed rows found among their set bytes; the drops are
			// the rest. A loop over every row's verdict was 63 ms of the
			// Parquet twins' 850 of CPU on the AMD EPYC family 25, where
			// about 2% of the rows pass.
			surv := 0
			for j0 := 0; j0 < len(pass); j0 += 8 {
				for w := passWord(pass, j0); w != 0; w &= w - 1 {
					j := j0 + bits.TrailingZeros64(w)>>3
					row := lo + j
					if keep != nil {
						row = keep[lo+j]
					}
					t.surv = append(t.surv, row)
					t.skeys = tuple.AppendInt(t.skeys, vals[j])
					t.sends = append(t.sends, len(t.skeys))
					surv++
				}
			}
			dropped := len(vals) - surv
			m.drops(int64(dropped), int64(dropped)*int64(rowBytes+8))
			continue
		}
		// The drops counted in a local, added once (drops): a call a
		// dropped row was 13 ms of the Parquet twins' 470 of CPU.
		dropped := 0
		for j, v := range vals {
			row := lo + j
			if keep != nil {
				row = keep[lo+j]
			}
			if !pass[j] {
				if m.bypass { // reject counts the drop
					t.rej = append(t.rej, row)
					t.rkeys = tuple.AppendInt(t.rkeys, v)
					t.rends = append(t.rends, len(t.rkeys))
					t.rnull = append(t.rnull, false)
				} else {
					dropped++
				}
				continue
			}
			t.surv = append(t.surv, row)
			t.skeys = tuple.AppendInt(t.skeys, v)
			t.sends = append(t.sends, len(t.skeys))
		}
		m.drops(int64(dropped), int64(dropped)*int64(rowBytes+8))
	}
	return nil
}

// countPass is the number of verdicts of pass that are true, eight a
// step: a word of passWord holds a 0 or 1 a byte, and multiplying it by
// 0x0101010101010101 sums its bytes into the top one (at most 8: no carry
// between bytes). In place of a loop over the bools, which took 2.9% of
// the NBER Parquet twins' CPU on the AMD EPYC family 25 (the filter
// guard counts every batch's passes). O(len(pass)), no allocation.
func countPass(pass []bool) int {
	n := 0
	for j0 := 0; j0 < len(pass); j0 += 8 {
		n += int(passWord(pass, j0) * 0x0101010101010101 >> 56)
	}
	return n
}

// passWord is the verdicts pass[j0:j0+8] as the bytes of a word, the
// first in the lowest byte (a bool's byte is 0 or 1), zeros past the end
// of pass: a row's verdict is set where its byte's lowest bit is. O(1).
func passWord(pass []bool, j0 int) uint64 {
	if j0+8 <= len(pass) {
		return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Pointer(&pass[j0])), 8))
	}
	var w uint64
	for k, p := range pass[j0:] {
		if p {
			w |= 1 << (8 * k)
		}
	}
	return w
}

// filterScreened is filterInts of a chunk whose Bloom filter (the Parquet
// file's own) passed a few keys, t.screen: a row whose value is none of
// them is no key (a Bloom filter has no false negatives), so it is dropped
// without a probe and counted apart (RowsScreenedBloom: not the filter's
// drop, nor in its measured false positive rate); the rows that are one
// of them are probed as filterInts probes, outside the filter guard's
// watch (they are keys: its pass rate would be theirs, not the side's).
// The 20-key Bloom join's 20 row groups read probed 2 million rows for
// the 20 that are keys. Inner, semi and right joins (skipChunk reads no
// filter for the others). O(rows * len(t.screen)) compares.
func (x *execution) filterScreened(ctx context.Context, m *mapWorker, ib filters.IntBatchFilter, one *columnar.Column, rowBytes int, keep []int, n int) error {
	t := m.tm
	// The rows that are one of the screen's values, found by a scan of
	// the values alone (matchScreen: the matches are a few in a row
	// group), then probed a batch at a time as before; a step of rows at
	// a time, so that the matches held stay bounded where one key fills
	// a row group.
	const step = 1 << 16 // rows between two looks at ctx
	for lo := 0; lo < n; lo += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+step, n)
		t.cvals, t.crows = t.cvals[:0], t.crows[:0]
		if keep == nil {
			t.cvals, t.crows = matchScreen(one.Int64s(lo, hi), lo, t.screen, t.cvals, t.crows)
		} else {
			for _, row := range keep[lo:hi] {
				if v := one.Int64(row); slices.Contains(t.screen, v) {
					t.cvals = append(t.cvals, v)
					t.crows = append(t.crows, row)
				}
			}
		}
		m.rows += int64(hi - lo)
		m.screenedOut(int64(hi-lo-len(t.cvals)), rowBytes)
		vals, rows := t.cvals, t.crows
		for b := 0; b < len(vals); b += mapBatch {
			e := min(b+mapBatch, len(vals))
			pass := t.pass[:e-b]
			if m.guardStart(pass) {
				ib.ContainsInts(vals[b:e], pass)
			}
			for j, v := range vals[b:e] {
				if !pass[j] {
					m.drop(rowBytes, 8)
					continue
				}
				t.surv = append(t.surv, rows[b+j])
				t.skeys = tuple.AppendInt(t.skeys, v)
				t.sends = append(t.sends, len(t.skeys))
			}
		}
	}
	return nil
}

// matchScreen appends to vals and rows each value of vs that is one of
// screen and its row (base + its index), in row order. A screen of 1 to
// 4 values is compared a row at once, padded with its first (the branch
// a row is taken only for a match: rare, as the rows of a row group
// whose Bloom filter passed a few keys mostly hold none of them); a
// longer one by slices.Contains. O(len(vs)) steps (times len(screen)
// above 4); no allocation beyond the matches.
func matchScreen(vs []int64, base int, screen []int64, vals []int64, rows []int) ([]int64, []int) {
	if len(screen) == 0 || len(screen) > 4 {
		for j, v := range vs {
			if slices.Contains(screen, v) {
				vals = append(vals, v)
				rows = append(rows, base+j)
			}
		}
		return vals, rows
	}
	s0, s1, s2, s3 := screen[0], screen[0], screen[0], screen[0]
	if len(screen) > 1 {
		s1 = screen[1]
	}
	if len(screen) > 2 {
		s2 = screen[2]
	}
	if len(screen) > 3 {
		s3 = screen[3]
	}
	for j, v := range vs {
		if v == s0 || v == s1 || v == s2 || v == s3 {
			vals = append(vals, v)
			rows = append(rows, base+j)
		}
	}
	return vals, rows
}

// screenKeys keeps of keys (key.Of's bytes: an integer key's 8) and
// their rows those that are one of the chunk's screen (m.tm.screen, or
// sscreen of a string key), and counts the others as dropped without a probe
// (RowsScreenedBloom). In place.
func screenKeys(m *mapWorker, kt key.Type, keys [][]byte, rows []int, rowBytes int) ([][]byte, []int) {
	t := m.tm
	n := 0
	for j, k := range keys {
		if kt == key.Int && len(k) == 8 && slices.Contains(t.screen, keyInt(k)) || kt == key.String && inScreen(t.sscreen, k) {
			keys[n], rows[n] = k, rows[j]
			n++
		}
	}
	m.screenedOut(int64(len(keys)-n), rowBytes)
	return keys[:n], rows[:n]
}

// screenedOut counts n rows of rowBytes dropped by the screen: dropped
// as the filter's drops count (the shuffle they saved), and apart
// (RowsScreenedBloom), not as the filter's.
func (m *mapWorker) screenedOut(n int64, rowBytes int) {
	m.drops(n, n*int64(rowBytes+8))
	m.tm.counts.RowsScreenedBloom += n
}

// inScreen reports whether k is one of screen's keys.
func inScreen(screen [][]byte, k []byte) bool {
	for _, s := range screen {
		if bytes.Equal(s, k) {
			return true
		}
	}
	return false
}

// materializeChunk is the late materialization of mapChunk's step 4: the
// other columns of a chunk with survivors are decoded, and t.all holds the
// columns a row is rendered from (those the output asks for, in the side's
// order). With few survivors in a Parquet row group (under 1 in
// sparseRows) only their rows are read, the values between them skipped
// (whole pages where none falls, for fixed-width columns), and sel, the
// survivors' rows, is returned: t.all's columns then hold the survivors
// only. Else every value is decoded and sel is nil.
func (x *execution) materializeChunk(m *mapWorker, c *source.Chunk, keyCols chunkKeyCols) (sel []int, err error) {
	t, ks := m.tm, x.joinSpec
	n := keyCols.rows()
	t.counts.ChunksMaterialized++
	var others []int // the columns to decode: the output's (Options.Columns) but the key's and those Where's test decoded
	var decoded []int
	for i := range x.input.Header {
		switch {
		case ks.IsKeyCol(i) || x.largePos(i) < 0:
		case m.where != nil && t.wcols[i] != nil:
			decoded = append(decoded, i)
		default:
			others = append(others, i)
		}
	}
	sel = t.surv
	switch {
	case c.Index < 0 || len(t.rej) > 0:
		sel = nil
	case len(t.surv)*sparseRows < n:
	case len(t.surv)*2 >= n || !c.Side.Tab.RowsCheap(c.Index, others):
		// Many survivors, or columns whose chosen rows cost more than all.
		sel = nil
	}
	var rest []*columnar.Column
	defer func() { t.rest = rest }()
	if sel != nil {
		rest, err = x.help.readColumns(c, others, func(cols []int) ([]*columnar.Column, error) {
			return c.Side.Tab.ReadRows(c.Index, cols, sel)
		})
		// The decoded share: the values taken (their pages are read and
		// decompressed, their other values skipped).
		t.counts.DecodedBytes += c.ColumnBytes(others) * int64(len(sel)) / int64(n)
	} else {
		rest, err = x.help.readColumns(c, others, c.Read)
		t.counts.DecodedBytes += c.ColumnBytes(others)
	}
	if err != nil {
		return nil, err
	}
	t.all = t.all[:0]
	for range x.input.Header {
		t.all = append(t.all, nil)
	}
	for j, col := range ks.Cols {
		t.all[col] = keyCols.column(j, sel)
	}
	for j, col := range others {
		t.all[col] = rest[j]
	}
	for _, col := range decoded { // whereChunk's, of every row
		t.all[col] = t.wcols[col]
		if sel != nil {
			t.all[col] = t.wcols[col].Select(sel)
		}
	}
	if x.largeKeep != nil { // the rows carry the columns asked only, in the side's order
		kept := t.all[len(t.all):]
		for _, c := range x.largeKeep {
			kept = append(kept, t.all[c])
		}
		t.all = append(t.all[:0], kept...)
	}
	return sel, nil
}

// writeChunk is the end of mapChunk's step 4: the survivors rendered as
// CSV lines (columnar.AppendRow), or as typed cells for a typed output
// (cellTypes, the output's types of the columns: typedrows.go), into the
// shuffle, their offset being their row index, and with anti, left and
// full joins the rejected rows written. sel is materializeChunk's.
func (m *mapWorker) writeChunk(c *source.Chunk, sel []int, cellTypes []columnar.Type, hb *helpBoard) error {
	t := m.tm
	row := columnar.AppendRow
	if types := cellTypes; types != nil {
		t.native = nativeColumns(t.native[:0], t.all, types)
		row = func(dst []byte, cols []*columnar.Column, i int) []byte {
			return columnar.AppendCells(dst, cols, i, t.native)
		}
	}
	// Many survivors while a mapper is idle: written with its help.
	shared := false
	if hb != nil && len(t.surv) >= helpMin {
		h := &rowHelp{c: c, t: t, sel: sel, row: row, unprobed: m.guard.skipped,
			blocks: int64((len(t.surv) + helpBlock - 1) / helpBlock)}
		if shared = hb.share(h); shared {
			_, err := h.write(m)
			if herr := hb.unshare(h); err == nil {
				err = herr
			}
			if err != nil {
				return err
			}
			if h.unprobed { // every survivor, whoever wrote it, by this guard's verdict
				m.guard.unprobed += int64(len(t.surv))
			}
		}
	}
	if !shared {
		var err error
		if t.raw, err = t.emitSurvivors(m, c, sel, row, 0, len(t.surv), t.raw, m.guard.skipped); err != nil {
			return err
		}
		if m.guard.skipped { // as emit counts them
			m.guard.unprobed += int64(len(t.surv))
		}
	}
	start := 0
	for j, i := range t.rej {
		t.raw = row(t.raw[:0], t.all, i)
		var k []byte
		if t.rends[j] > start {
			k = t.rkeys[start:t.rends[j]]
		}
		if err := m.reject(k, c.First+int64(i), t.raw, !t.rnull[j]); err != nil {
			return err
		}
		start = t.rends[j]
	}
	return nil
}

// emitSurvivors renders survivors lo to hi of t (t.surv[lo:hi]) by row,
// in raw (returned, for reuse), and sends each with its key and offset
// through m (emitAs, unprobed the owner's guard's verdict): writeChunk's
// loop, and a helper's block of it (rowHelp.write). A direct call, not an
// emit passed in: that cost flights-3m.parquet 1.03-1.04x CPU. sel is
// materializeChunk's. O(hi-lo) rows.
func (t *tableMapper) emitSurvivors(m *mapWorker, c *source.Chunk, sel []int, row func([]byte, []*columnar.Column, int) []byte,
	lo, hi int, raw []byte, unprobed bool) ([]byte, error) {
	hashed := len(t.shash) == 2*len(t.surv) && len(t.surv) > 0 // filterDictRows hashed the keys
	for j := lo; j < hi; j++ {
		i := t.surv[j]
		at := i
		if sel != nil {
			at = j // the selected columns hold the survivors only
		}
		raw = row(raw[:0], t.all, at)
		start := 0
		if j > 0 {
			start = t.sends[j-1]
		}
		k := t.skeys[start:t.sends[j]]
		var err error
		if hashed {
			err = m.emitHashed(k, t.shash[2*j], t.shash[2*j+1], c.First+int64(i), raw, unprobed)
		} else {
			err = m.emitAs(k, c.First+int64(i), raw, unprobed)
		}
		if err != nil {
			return raw, err
		}
	}
	return raw, nil
}

// sparseRows: a row group whose survivors are fewer than one in this many
// rows reads its other columns at the survivors only (Table.ReadRows);
// so does one with fewer than half its rows surviving where the columns
// are the pages decoders' (Table.RowsCheap), whose chosen rows cost no
// more than all of them: flights-3m.parquet's 12% (bench/parquet-real.sh). A
// value read alone (a skip and a read of one) costs about as much as a few
// hundred decoded in a batch: at 1 in 32 the full NBER join (2% of the
// citations pass) took 1.10 s against 0.74 s decoding whole row groups,
// while the wide join (1 in 4,500 pass) went from 0.81 s to 0.36 s.
const sparseRows = 256

// keyInt is the integer of key.Of's 8 bytes (big-endian, sign bit
// flipped).
func keyInt(k []byte) int64 { return int64(binary.BigEndian.Uint64(k) ^ 1<<63) }

// chunkRows is rows lo to hi of a table's chunk c, whose key columns
// (decoded whole) are cols; with sel, rows sel[lo] to sel[hi-1].
type chunkRows struct {
	c      *source.Chunk
	cols   []*columnar.Column
	sel    []int
	lo, hi int
}

// chunkKeys makes the keys (ks) of the rows b of a chunk into m.tm.keys (the
// row of each in t.rows): a NULL key column, or with lenient typing a
// value that is no key of its type, is counted in m and left out; a value
// that is no key of a type given is an error naming the row, or a bad
// row (with report false, in a pass before the map phase's, it is left
// out: the map phase reports it).
func (x *execution) chunkKeys(m *mapWorker, ks key.Spec, b chunkRows, report bool) error {
	t, c, cols, lo, hi := m.tm, b.c, b.cols, b.lo, b.hi
	// Keys made in the arena keep the array they were made in when it
	// grows (append copies, the old array stays theirs): the arena is
	// reused only from the next batch, whose keys replace these.
	t.keys, t.rows, t.arena = t.keys[:0], t.rows[:0], t.arena[:0]
	one := cols[0]
	kt := ks.Types[0]
	direct := !ks.Composite() && kt == key.String && (one.Type.Kind == columnar.String || one.Type.Kind == columnar.Binary)
	ints := !ks.Composite() && kt == key.Int && (one.Type.Kind == columnar.Int || one.Type.Kind == columnar.Uint)
	if ints && one.Type.Kind == columnar.Int && !one.HasNulls() {
		// The common case in a tight loop: key.Of's bytes of each value.
		if b.sel != nil {
			for at, i := range b.sel[lo:hi] {
				kb := t.kb[at][:]
				key.PutInt(kb, one.Int64(i))
				t.keys = append(t.keys, kb)
				t.rows = append(t.rows, i)
			}
			return nil
		}
		for i := lo; i < hi; i++ {
			kb := t.kb[i-lo][:]
			key.PutInt(kb, one.Int64(i))
			t.keys = append(t.keys, kb)
			t.rows = append(t.rows, i)
		}
		return nil
	}
rows:
	for at := lo; at < hi; at++ {
		i := at
		if b.sel != nil {
			i = b.sel[at]
		}
		for _, col := range cols {
			if col.Null(i) {
				m.rows++
				m.cannot.add(keyNull)
				if m.bypass && report {
					t.rej = append(t.rej, i)
					t.rends = append(t.rends, len(t.rkeys))
					t.rnull = append(t.rnull, true)
				}
				continue rows
			}
		}
		var k []byte
		var err error
		switch {
		case direct:
			k = one.Bytes(i)
		case ints:
			k, err = one.AppendKey(t.kb[at-lo][:0], i, kt)
		case !ks.Composite():
			at := len(t.arena)
			if t.arena, err = one.AppendKey(t.arena, i, kt); err == nil {
				k = t.arena[at:len(t.arena):len(t.arena)]
			}
		default:
			// A tuple, of the key columns' text as the key side's rows
			// make theirs (key.Spec.Append).
			t.text = t.text[:0]
			for j, col := range cols {
				s := len(t.text)
				t.text = col.AppendText(t.text, i)
				t.fields[ks.Cols[j]] = t.text[s:len(t.text):len(t.text)]
			}
			at := len(t.arena)
			if t.arena, err = ks.Append(t.arena, t.fields); err == nil {
				k = t.arena[at:len(t.arena):len(t.arena)]
			}
		}
		if err != nil && one.Type.Wide() && !ks.Composite() && len(ks.Wide) > 0 && ks.Wide[0] {
			// A uint64 beyond int64 that the key side could hold too.
			err = fmt.Errorf("%s: %s is %w", ks.Names[0], one.AppendText(nil, i), key.ErrBeyond)
		}
		if err != nil {
			if key.Unmatchable(err, x.typing.Lenient) {
				m.rows++
				m.cannot.add(keyUnmatchable)
				if m.bypass && report {
					t.rej = append(t.rej, i)
					t.rends = append(t.rends, len(t.rkeys))
					t.rnull = append(t.rnull, true)
				}
				continue
			}
			if !report {
				continue
			}
			if !ks.Composite() && !errors.Is(err, key.ErrBeyond) { // a tuple's error, and ErrBeyond's, name the column already (key.Spec.Append)
				err = fmt.Errorf("%s: %w", ks.Names[0], err)
			}
			name, first := c.Origin() // the row named in its file
			pe := &csvscan.ParseError{File: name, Line: first + int64(i) + 1, Offset: first + int64(i), Msg: err.Error(), Err: err, Row: true}
			if x.bad == nil || errors.Is(err, key.ErrBeyond) {
				return pe
			}
			x.bad.Add(pe)
			continue
		}
		t.keys = append(t.keys, k)
		t.rows = append(t.rows, i)
	}
	return nil
}

// whereChunk is step 0 of mapChunk with Options.Where: the predicate's
// columns of chunk c are decoded (those alone: columnar.Rows of the others
// nil) and each row tested; it returns the rows the predicate keeps, in
// order, and counts the others in m.whereDropped. A row the predicate
// cannot be evaluated on fails the run naming it, or is a bad row
// (x.selected). O(rows x the predicate's columns' text).
func (x *execution) whereChunk(m *mapWorker, c *source.Chunk) ([]int, error) {
	t := m.tm
	pc := m.where.Columns()
	cols, err := c.Read(pc)
	if err != nil {
		return nil, err
	}
	t.counts.DecodedBytes += c.ColumnBytes(pc)
	t.wcols = append(t.wcols[:0], make([]*columnar.Column, len(x.input.Header))...)
	for j, col := range pc {
		t.wcols[col] = cols[j]
	}
	name, first := c.Origin()
	rows := columnar.NewRowsOf(name, t.wcols, first, c.Rows)
	t.keep = t.keep[:0]
	for i := 0; rows.Next(); i++ {
		ok, err := x.selected(m.where, rows)
		if err != nil {
			return nil, err
		}
		if ok {
			t.keep = append(t.keep, i)
		} else {
			m.whereDropped++
		}
	}
	return t.keep, nil
}
