package local

import (
	"bytes"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// A column chunk's encoding is decided here, from all its values at once,
// and its dictionary made here: arrow-go's column writer, given the values
// one by one, hashes each into its memo table (a text boxed into an
// interface, one allocation a value: 22% of the CPU of a join of
// flights-3m.parquet written as Parquet) and grows that table from a few
// entries for every column chunk. A chunk whose values repeat is written
// with the dictionary made here (PutDictionary, then the indices:
// WriteDictIndices, arrow-go's path for Arrow dictionary arrays); one
// whose dictionary would save nothing (its entries and indices at least
// the plain values' bytes, parquet-mr's rule, which arrow-go applies only
// to uncompressed columns) or pass the dictionary page's limit is written
// PLAIN from its first value, as DuckDB writes a column of distinct
// timestamps (an integer column's dictionary must halve it:
// writeIntChunk). Statistics, the null count and the Bloom filter come
// out as the value-by-value path makes them (TestParquetDictChunks). The
// writers run on flushGroup's goroutines, one column chunk each; a chunk
// writer is not safe for concurrent use.

// dictChunks is whether column chunks take their encoding and dictionary
// from parquetdict.go (false: arrow-go's value-by-value path, for
// TestParquetDictChunks to compare against).
var dictChunks = true

// dictEncoder is the part of arrow-go's dictionary encoder (an internal
// type, encoding.DictEncoder) that takes a whole dictionary.
type dictEncoder interface {
	PutDictionary(arrow.Array) error
	NumEntries() int
}

// useDict is whether a chunk of n values whose plain encoding takes raw
// bytes, with a dictionary of entries entries taking dictBytes, is
// dictionary-encoded: the dictionary page within limit, and the
// dictionary and its bit-packed indices smaller than the plain values.
func useDict(n, entries int, dictBytes, raw, limit int64) bool {
	width := int64(bits.Len(uint(max(entries-1, 0))))
	return dictBytes < limit && dictBytes+(int64(n)*width+7)/8 < raw
}

// dictStart returns the chunk writer's dictionary encoder when its chunk
// has had no value yet (each row group's column chunk gets a fresh writer).
func dictStart(cw file.ColumnChunkWriter) (dictEncoder, bool) {
	if !dictChunks {
		return nil, false
	}
	enc, ok := cw.CurrentEncoder().(dictEncoder)
	return enc, ok && enc.NumEntries() == 0 && cw.RowsWritten() == 0
}

// dictIndices is the Arrow array of a chunk's indices, one a row (a NULL
// row's slot marked null, its index 0), as WriteDictIndices takes them.
func dictIndices(idx []int32, defs []int16, nulls int) arrow.Array {
	var valid *memory.Buffer
	if nulls > 0 {
		bm := make([]byte, (len(defs)+7)/8)
		for i, d := range defs {
			if d != 0 {
				bm[i>>3] |= 1 << (i & 7)
			}
		}
		valid = memory.NewBufferBytes(bm)
	}
	data := array.NewData(arrow.PrimitiveTypes.Int32, len(idx), []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))}, nil, nulls, 0)
	defer data.Release()
	return array.NewInt32Data(data)
}

// writeBytesChunk writes c, a ByteArray column chunk's values, to w, a
// fresh chunk writer: dictionary-encoded with the dictionary made here,
// or plain (useDict). It reports false, having written nothing, where the
// writer does not dictionary-encode the column. Cost: one map lookup a
// value (none for a value equal to the one before it), the distinct
// values copied once.
func writeBytesChunk(w *file.ByteArrayColumnChunkWriter, c *columnValues) (bool, error) {
	enc, ok := dictStart(w)
	if !ok {
		return false, nil
	}
	limit := w.Properties().DictionaryPageSizeLimit()
	idx := make([]int32, len(c.defs))
	seen := make(map[string]int32)
	var (
		offs         = []int32{0}
		data         []byte
		prev         []byte
		prevID       int32 = -1
		raw          int64
		nulls, k     int
		dictTooLarge bool
	)
	for i, d := range c.defs {
		if d == 0 {
			nulls++
			continue
		}
		v := c.bytes[k]
		k++
		raw += int64(len(v)) + 4
		if prevID >= 0 && bytes.Equal(v, prev) {
			idx[i] = prevID
			continue
		}
		id, found := seen[string(v)]
		if !found {
			if dictTooLarge {
				continue // PLAIN: only raw is still wanted
			}
			id = int32(len(offs) - 1)
			seen[string(v)] = id
			data = append(data, v...)
			offs = append(offs, int32(len(data)))
			dictTooLarge = int64(len(data))+4*int64(len(offs)-1) >= limit
		}
		idx[i], prev, prevID = id, v, id
	}
	entries := len(offs) - 1
	if dictTooLarge || !useDict(len(c.defs)-nulls, entries, int64(len(data))+4*int64(entries), raw, limit) {
		w.FallbackToPlain() // nothing written yet: no dictionary page
		_, err := w.WriteBatch(c.bytes, c.defs, nil)
		return true, err
	}
	if data == nil {
		data = noBytes // every value "": a dictionary of one empty text
	}
	dd := array.NewData(arrow.BinaryTypes.Binary, entries,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(data)}, nil, 0, 0)
	dict := array.NewBinaryData(dd)
	dd.Release()
	defer dict.Release()
	if err := enc.PutDictionary(dict); err != nil {
		return true, err
	}
	if st, ok := w.PageStatistics().(*metadata.ByteArrayStatistics); ok && st != nil {
		// The entries' minimum and maximum by the column's order, as
		// Update takes them (not UpdateFromArrow, which passes over "");
		// Update counts an entry a value: the rest are counted after.
		vals := make([]parquet.ByteArray, entries)
		for e := range vals {
			vals[e] = data[offs[e]:offs[e+1]:offs[e+1]]
		}
		st.Update(vals, int64(nulls))
		st.IncNumValues(int64(len(c.defs) - nulls - entries))
	}
	ia := dictIndices(idx, c.defs, nulls)
	defer ia.Release()
	return true, w.WriteDictIndices(ia, c.defs, nil)
}

// intValue is a physical integer type of a Parquet column.
type intValue interface{ int32 | int64 }

// intStats is arrow-go's statistics of an integer column.
type intStats[T intValue] interface {
	Update(values []T, numNull int64)
	IncNumValues(int64)
}

// intChunk is what writeIntChunk needs of an Int32 or Int64 chunk writer.
type intChunk[T intValue] interface {
	file.ColumnChunkWriter
	WriteBatch(values []T, defLevels, repLevels []int16) (int64, error)
}

// writeIntChunk is writeBytesChunk for an Int32 or Int64 column chunk
// (arrT its Arrow type): a dictionary of its distinct values, or PLAIN.
func writeIntChunk[T intValue](w intChunk[T], vals []T, defs []int16, arrT arrow.DataType) (bool, error) {
	enc, ok := dictStart(w)
	if !ok {
		return false, nil
	}
	size := int64(unsafe.Sizeof(T(0)))
	limit := w.Properties().DictionaryPageSizeLimit()
	n := len(vals)
	raw := int64(n) * size
	// An integer chunk takes a dictionary only where it halves the
	// chunk: arrow-go hashes each entry of a dictionary given it into its
	// own table again, and readers decode a dictionary page; a column of
	// timestamps, half of them distinct, took a third of the encoding's
	// time so (and DuckDB writes such a column PLAIN). Distinct values
	// past most cannot halve it (an index takes at least a bit): PLAIN.
	raw /= 2
	most := min(int(limit/size), int(raw/size))
	idx := make([]int32, len(defs))
	seen := make(map[T]int32)
	var dict []T
	nulls, k := 0, 0
	var prev T
	prevID := int32(-1)
	for i, d := range defs {
		if d == 0 {
			nulls++
			continue
		}
		v := vals[k]
		k++
		if prevID >= 0 && v == prev {
			idx[i] = prevID
			continue
		}
		id, found := seen[v]
		if !found {
			if len(dict) >= most {
				w.FallbackToPlain() // nothing written yet: no dictionary page
				_, err := w.WriteBatch(vals, defs, nil)
				return true, err
			}
			id = int32(len(dict))
			seen[v] = id
			dict = append(dict, v)
		}
		idx[i], prev, prevID = id, v, id
	}
	if !useDict(n, len(dict), int64(len(dict))*size, raw, limit) {
		w.FallbackToPlain()
		_, err := w.WriteBatch(vals, defs, nil)
		return true, err
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dict))), len(dict)*int(size))
	dd := array.NewData(arrT, len(dict), []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
	da := array.MakeFromData(dd)
	dd.Release()
	defer da.Release()
	if err := enc.PutDictionary(da); err != nil {
		return true, err
	}
	if st, ok := w.PageStatistics().(intStats[T]); ok && st != nil {
		// By the column's order (an unsigned column's is unsigned).
		st.Update(dict, int64(nulls))
		st.IncNumValues(int64(n - len(dict)))
	}
	ia := dictIndices(idx, defs, nulls)
	defer ia.Release()
	return true, w.WriteDictIndices(ia, defs, nil)
}
