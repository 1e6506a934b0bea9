package join

import (
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/acbfjoin/acbfjoin/datasets/nber"
)

// CSVToParquet converts the join's CSV output (with its header) to a Parquet
// file through Arrow: one UTF-8 column per CSV column, empty fields as empty
// strings, row groups of 64K rows, Snappy compression. Every column is kept as
// text, exactly as the CSV output has it, so both formats hold the same values.
func CSVToParquet(r io.Reader, w io.Writer) error {
	rd := nber.NewReader(r, "join output")
	header, err := rd.ReadHeader()
	if err != nil {
		return err
	}
	fields := make([]arrow.Field, len(header))
	for i, h := range header {
		fields[i] = arrow.Field{Name: h, Type: arrow.BinaryTypes.String}
	}
	schema := arrow.NewSchema(fields, nil)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	// pqarrow closes a writer that is an io.Closer; the caller owns w.
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	flush := func() error {
		rec := b.NewRecord()
		defer rec.Release()
		if rec.NumRows() == 0 {
			return nil
		}
		return fw.Write(rec)
	}
	rows := 0
	for rd.Next() {
		for i, f := range rd.Fields() {
			b.Field(i).(*array.StringBuilder).BinaryBuilder.Append(f)
		}
		if rows++; rows%65536 == 0 {
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
	return fw.Close()
}
