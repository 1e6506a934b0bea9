package join

import (
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// A Parquet row group is written at 64K rows or when its values take 8 MiB
// (each value costs its bytes plus a 24-byte slice header until then), so a
// wide output does not hold tens of megabytes per group.
const (
	parquetRowGroup      = 65536
	parquetRowGroupBytes = 8 << 20
)

// CSVToParquet converts the join's CSV output (with its header) to a Parquet
// file: one required UTF-8 (BYTE_ARRAY, logical type String) column per CSV
// column, empty fields as empty strings, row groups of up to 64K rows and
// 8 MiB, Snappy
// compression. Every column is kept as text, exactly as the CSV output has it,
// so both formats hold the same values; Arrow readers see string columns.
//
// It writes through Apache Arrow's parquet/file package rather than pqarrow:
// pqarrow pulls in Arrow Flight and gRPC, whose initialisation adds to the
// resident memory of every run, a cost --mem cannot bound (docs/design.md).
// It holds one row group in memory; it is sequential.
func CSVToParquet(r io.Reader, w io.Writer) (err error) {
	defer func() { // the Parquet writer panics on some write errors
		if p := recover(); p != nil {
			if perr, ok := p.(error); ok {
				err = fmt.Errorf("parquet: %w", perr)
			} else {
				err = fmt.Errorf("parquet: %v", p)
			}
		}
	}()
	rd := csvscan.NewReader(r, "join output")
	header, err := rd.ReadHeader()
	if err != nil {
		return err
	}
	fields := make(schema.FieldList, len(header))
	for i, h := range header {
		if fields[i], err = schema.NewPrimitiveNodeLogical(h, parquet.Repetitions.Required, schema.StringLogicalType{},
			parquet.Types.ByteArray, -1, -1); err != nil {
			return fmt.Errorf("parquet: column %q: %w", h, err)
		}
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	// The file writer closes a sink that is an io.Closer; the caller owns w.
	fw := file.NewParquetWriter(struct{ io.Writer }{w}, root, file.WithWriterProps(props))
	cols := make([][]parquet.ByteArray, len(header))
	var arena []byte // the row group's field bytes
	flush := func() error {
		if len(cols[0]) == 0 {
			return nil
		}
		rg := fw.AppendRowGroup()
		for _, vals := range cols {
			cw, err := rg.NextColumn()
			if err != nil {
				return err
			}
			if _, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(vals, nil, nil); err != nil {
				return err
			}
			if err := cw.Close(); err != nil {
				return err
			}
		}
		if err := rg.Close(); err != nil {
			return err
		}
		for i := range cols {
			cols[i] = cols[i][:0]
		}
		arena = nil // the written values may still be referenced: start afresh
		return nil
	}
	for rd.Next() {
		fs := rd.Fields()
		if len(fs) != len(header) {
			return rd.Errorf("%d fields, the header has %d", len(fs), len(header))
		}
		for i, f := range fs {
			start := len(arena)
			arena = append(arena, f...)
			cols[i] = append(cols[i], parquet.ByteArray(arena[start:len(arena):len(arena)]))
		}
		if len(cols[0]) == parquetRowGroup || len(arena)+24*len(cols)*len(cols[0]) >= parquetRowGroupBytes {
			if err := flush(); err != nil {
				return fmt.Errorf("parquet: %w", err)
			}
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}
