package columnar

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet"
)

// The byte-array pages decoder: a flat BYTE_ARRAY column chunk of text or
// bytes (String, Binary) whose pages are PLAIN or dictionary-encoded,
// decoded from the pages of chunkPages as readFixed decodes fixed-width
// ones. arrow-go's byte array reader hands the values out a slice each
// and its dictionary record reader builds Arrow arrays that are then
// copied again (allocation, memclr and memmove were most of the flights
// join's reading, bench/parquet-why.md). Here the values' bytes are
// copied once, into the column's arena, or, read as a Dict, each row
// keeps its dictionary index.

// bytesDecoder is the state of readBytes and readDictBytes across a
// chunk's pages.
type bytesDecoder struct {
	nullable bool
	sel      []int // the rows read (ascending), nil: every row
	asDict   bool  // rows as dictionary indices (readDictBytes), not bytes
	// The dictionary page's entries: entry e is dict[doffs[e]:doffs[e+1]].
	dict     []byte
	doffs    []int
	haveDict bool
	// The rows read: row j's bytes are data[offs[j]:offs[j+1]] (or, with
	// asDict, its entry is rows[j], -1 for a NULL); valid nil while no
	// NULL was read.
	data  []byte
	offs  []int
	rows  []int32
	valid []bool
	idx   []uint32     // a page's dictionary indices
	cur   hybridCursor // with sel: a page's indices, found where chosen
	lc    levelCursor  // with sel: a page's definition levels, found where chosen
	defs  []uint32     // a page's definition levels
	vpos  []int        // a PLAIN page's values: value j's bytes start at vpos[j], end at vpos[j+1]-4
	// A DELTA page's values: value j is dvals[dpos[j]:dpos[j+1]]
	// (deltaBytes; dlens and dbuf its scratch).
	dvals     []byte
	dpos      []int
	dlens     []int64
	dbuf      []byte
	row       int // the chunk's rows seen
	groupRows int // the row group's rows: no page holds more than are left
	out       int // the rows read so far
	k         int // with sel: the next of sel's rows to take
}

// plainBytes finds the present values of a PLAIN page of byte arrays
// (each a 4-byte little-endian length and its bytes) in data: value j
// is data[vpos[j]:vpos[j+1]-4], vpos having present+1 entries.
func plainBytes(data []byte, present int, vpos []int) ([]int, error) {
	vpos = vpos[:0]
	pos := 0
	for range present {
		if len(data)-pos < 4 {
			return nil, fmt.Errorf("%d byte array values in %d bytes", present, len(data))
		}
		l := binary.LittleEndian.Uint32(data[pos:])
		if uint64(l) > uint64(len(data)-pos-4) {
			return nil, fmt.Errorf("a byte array of %d bytes with %d left", l, len(data)-pos-4)
		}
		vpos = append(vpos, pos+4)
		pos += 4 + int(l)
	}
	return append(vpos, pos+4), nil
}

// page decodes one page of the chunk: h its header, data its body.
func (d *bytesDecoder) page(h pageHeader, data []byte) error {
	nv := int(h.numValues)
	switch h.typ {
	case pageDictionary:
		if d.haveDict {
			return errors.New("a second dictionary page")
		}
		if e := parquet.Encoding(h.encoding); e != parquet.Encodings.Plain && e != parquet.Encodings.PlainDict {
			return fmt.Errorf("a dictionary page of encoding %d", e)
		}
		vpos, err := plainBytes(data, nv, nil)
		if err != nil {
			return fmt.Errorf("the dictionary page: %w", err)
		}
		// The entries without their lengths, one after another.
		d.dict = make([]byte, 0, len(data)-4*nv)
		d.doffs = make([]int, nv+1)
		for e := range nv {
			d.dict = append(d.dict, data[vpos[e]:vpos[e+1]-4]...)
			d.doffs[e+1] = len(d.dict)
		}
		d.haveDict = true
		return nil
	case pageData, pageDataV2:
		values, levels, err := dataPageParts(h, data, d.nullable)
		if err != nil {
			return err
		}
		return d.values(parquet.Encoding(h.encoding), values, nv, levels)
	}
	return nil
}

// values decodes a data page's values (data, of encoding e) for its nv
// rows, levels their definition levels (nil: not nullable).
func (d *bytesDecoder) values(e parquet.Encoding, data []byte, nv int, levels []byte) error {
	if nv < 0 || d.row+nv < d.row {
		return fmt.Errorf("a page of %d values", nv)
	}
	if err := pageFits(nv, d.row, d.groupRows); err != nil {
		return err
	}
	defs, present, sparse, err := levelsOf(levels, nv, d.sel != nil && !d.asDict, &d.defs, &d.lc)
	if err != nil {
		return err
	}
	var idx []uint32
	byCursor, delta := false, false
	switch e {
	case parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray:
		if d.asDict {
			return errNotFixed // a fallback page: its values are no entries
		}
		if n := 2 * nv; cap(d.dlens) < n { // pooled scratch: prefix lengths and lengths
			putSlice(&int64Pool, d.dlens)
			d.dlens = getSlice[int64](&int64Pool, n)
		}
		if cap(d.dpos) < nv+1 {
			putSlice(&intPool, d.dpos)
			d.dpos = getSlice[int](&intPool, nv+1)
		}
		d.dvals, d.dpos, d.dlens, d.dbuf, err = deltaBytes(e == parquet.Encodings.DeltaByteArray, data, present, nv, d.dlens[:0], d.dbuf, d.dpos)
		if err != nil {
			return err
		}
		delta = true
	case parquet.Encodings.Plain:
		if d.asDict {
			return errNotFixed // a fallback page: its values are no entries
		}
		if d.vpos, err = plainBytes(data, present, d.vpos); err != nil {
			return err
		}
	case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
		if !d.haveDict {
			return errors.New("a dictionary-encoded page without a dictionary page")
		}
		if d.sel != nil && present > 0 && !d.asDict {
			// Chosen rows: their indices found in the runs (hybridCursor),
			// the others never unpacked.
			if len(data) < 1 || data[0] > 32 {
				return errors.New("no bit width, or one over 32")
			}
			if err := d.cur.scan(data[1:], int(data[0]), present); err != nil {
				return fmt.Errorf("dictionary indices: %w", err)
			}
			byCursor = true
			break
		}
		if defs == nil && d.asDict && d.sel == nil && d.valid == nil && nv > 0 { // every row's entry
			if d.rows, err = appendDictIndices(d.rows, data, nv, len(d.doffs)-1); err != nil {
				return err
			}
			d.out += nv
			d.row += nv
			return nil
		}
		if idx, err = dictIndices(data, present, len(d.doffs)-1, &d.idx); err != nil {
			return err
		}
	default:
		return otherEncoding(e)
	}
	end := d.row + nv
	if defs == nil && !d.asDict && d.sel != nil && !sparse {
		return d.selected(end, data, byCursor, delta)
	}
	j := 0 // the page's present values passed
	for r := d.row; r < end; r++ {
		var has bool
		switch {
		case sparse: // the chosen rows alone, their levels found by d.lc
			if d.k >= len(d.sel) || d.sel[d.k] >= end {
				r = end
				continue
			}
			if r = d.sel[d.k]; r < d.row {
				return fmt.Errorf("internal error: row %d selected out of order", r)
			}
			var err error
			if has, j, err = d.lc.at(r - d.row); err != nil {
				return err
			}
			d.k++
		case d.sel != nil:
			has = defs == nil || defs[r-d.row] == 1
			if d.k >= len(d.sel) {
				r = end
				continue
			}
			if d.sel[d.k] != r {
				if has {
					j++
				}
				continue
			}
			d.k++
		default:
			has = defs == nil || defs[r-d.row] == 1
		}
		if !has && d.valid == nil {
			d.valid = make([]bool, d.out, max(d.out+1, cap(d.offs)-1))
			fill(d.valid, true)
		}
		if d.valid != nil {
			d.valid = append(d.valid, has)
		}
		switch {
		case d.asDict && has:
			d.rows = append(d.rows, int32(idx[j]))
		case d.asDict:
			d.rows = append(d.rows, -1)
		case has && byCursor:
			x := int(d.cur.at(j))
			if x >= len(d.doffs)-1 {
				return fmt.Errorf("dictionary index %d of %d entries", x, len(d.doffs)-1)
			}
			d.data = append(d.data, d.dict[d.doffs[x]:d.doffs[x+1]]...)
		case has && idx != nil:
			x := idx[j]
			d.data = append(d.data, d.dict[d.doffs[x]:d.doffs[x+1]]...)
		case has && delta:
			d.data = append(d.data, d.dvals[d.dpos[j]:d.dpos[j+1]]...)
		case has:
			d.data = append(d.data, data[d.vpos[j]:d.vpos[j+1]-4]...)
		}
		if !d.asDict {
			d.offs = append(d.offs, len(d.data))
		}
		d.out++
		if has {
			j++
		}
	}
	if d.sel != nil && d.k < len(d.sel) && d.sel[d.k] < end {
		return fmt.Errorf("internal error: row %d selected out of order", d.sel[d.k])
	}
	d.row = end
	return nil
}

// selected is values' loop for a page without NULLs (a row's value is
// the page's value of the same place) and chosen rows: it visits the
// chosen rows of the page alone, where values' loop visits every row (the
// vega flights join's destination column, 12% of its rows chosen: that
// loop was 15% of the join's CPU on the AMD EPYC family 25). The same
// values and the same errors: a chosen row out of order or repeated is an
// internal error. A dictionary page's chosen rows are always found by
// the cursor (byCursor), which values sets up for any page with chosen
// rows and values. O(chosen rows and their bytes).
func (d *bytesDecoder) selected(end int, data []byte, byCursor, delta bool) error {
	prev := d.row - 1
	for d.k < len(d.sel) && d.sel[d.k] < end {
		r := d.sel[d.k]
		if r <= prev {
			return fmt.Errorf("internal error: row %d selected out of order", r)
		}
		prev = r
		d.k++
		j := r - d.row
		switch {
		case byCursor:
			x := int(d.cur.at(j))
			if x >= len(d.doffs)-1 {
				return fmt.Errorf("dictionary index %d of %d entries", x, len(d.doffs)-1)
			}
			d.data = append(d.data, d.dict[d.doffs[x]:d.doffs[x+1]]...)
		case delta:
			d.data = append(d.data, d.dvals[d.dpos[j]:d.dpos[j+1]]...)
		default:
			d.data = append(d.data, data[d.vpos[j]:d.vpos[j+1]-4]...)
		}
		d.offs = append(d.offs, len(d.data))
		if d.valid != nil {
			d.valid = append(d.valid, true)
		}
		d.out++
	}
	d.row = end
	return nil
}

// bytesKinds says whether readBytes takes a column of type t: text and
// bytes (a BYTE_ARRAY decimal is converted by setArena, left to read).
func bytesKinds(t Type) bool { return t.Kind == String || t.Kind == Binary }

// readBytes is read of a flat BYTE_ARRAY chunk of text or bytes by the
// byte-array pages decoder, or errNotFixed (nothing the caller would
// miss read) where the chunk is not one it decodes. Cost: the pages'
// read and decompression, the dictionary's entries copied once, and a
// row's bytes copied once into the column's arena. Safe for concurrent
// use, as read.
func (p *parquetTable) readBytes(i, col int, t Type, sel []int) (_ *Column, err error) {
	d, n, err := p.decodeBytes(i, col, t, sel, false)
	if err != nil {
		return nil, err
	}
	c := &Column{Type: t, n: n, offs: d.offs, data: d.data, valid: d.valid}
	return c, nil
}

// readDictBytes is readDictChunk by the byte-array pages decoder: the
// chunk's dictionary entries and each row's index, or errNotFixed where
// a page is not dictionary-encoded (the caller then reads it as before).
func (p *parquetTable) readDictBytes(i, col int, t Type) (*Dict, error) {
	d, n, err := p.decodeBytes(i, col, t, nil, true)
	if err != nil {
		return nil, err
	}
	entries := len(d.doffs) - 1
	if !d.haveDict {
		entries, d.doffs = 0, []int{0}
	}
	return &Dict{Values: &Column{Type: t, n: entries, offs: d.doffs, data: d.dict}, Rows: d.rows[:n], pooled: true}, nil
}

// decodeBytes runs a bytesDecoder over row group i's column col.
func (p *parquetTable) decodeBytes(i, col int, t Type, sel []int, asDict bool) (_ *bytesDecoder, n int, err error) {
	descr := p.col[col]
	if arrowPages || descr.PhysicalType() != parquet.Types.ByteArray || !bytesKinds(t) ||
		descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() > 1 {
		return nil, 0, errNotFixed
	}
	rg := p.r.RowGroup(i)
	cc, err := rg.MetaData().ColumnChunk(p.leaves[col][0])
	if err != nil || !fixedEncodings(cc.Encodings()) {
		return nil, 0, errNotFixed
	}
	defer func() { // as read: a damaged page is an error, not a panic
		if r := recover(); r != nil {
			err = fmt.Errorf("row group %d, column %q: a damaged page: %v", i, descr.Name(), r)
		}
	}()
	rows := int(rg.NumRows())
	n = rows
	if sel != nil {
		n = len(sel)
	}
	d := &bytesDecoder{nullable: descr.MaxDefinitionLevel() == 1, sel: sel, asDict: asDict, groupRows: rows}
	if asDict {
		d.rows = getSlice[int32](&int32Pool, n)[:0] // Dict.Release gives it back
	} else {
		d.offs = make([]int, 1, n+1)
		d.data = make([]byte, 0, min(cc.TotalUncompressedSize(), 1<<26)*int64(n)/int64(max(rows, 1)))
	}
	err = p.eachPage(i, col, cc, d.page, nil)
	d.cur.release()
	putSlice(&int64Pool, d.dlens)
	putSlice(&intPool, d.dpos)
	d.dlens, d.dpos, d.dvals, d.dbuf = nil, nil, nil, nil
	if err != nil {
		return nil, 0, err
	}
	if d.row != rows || d.out != n {
		return nil, 0, fmt.Errorf("row group %d, column %q: %d rows of %d", i, descr.Name(), d.row, rows)
	}
	return d, n, nil
}
