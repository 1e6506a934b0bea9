package local

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/acbfjoin/acbfjoin/columnar"
)

// arrowSink writes the output as an Arrow IPC file (or, stream, the IPC
// stream format): the columns typed as the Parquet sink types them (a
// Parquet or Arrow side's column by its type, a CSV side's by its
// values), the rows of a typedSpool read back at Finish, in record
// batches of arrowBatch rows.
type arrowSink struct {
	typedSpool
	w      io.Writer
	stream bool
}

// arrowBatch is the most rows of a record batch the Arrow sink writes;
// arrowBatchBytes the most bytes of values (a row over it alone in its
// batch): 64K rows of 100 KB texts made a 6 GB batch, over the 256 MiB
// body that arrow-go's readers (this tool's among them) read. A variable
// so that a test sets it small.
const arrowBatch = 64 << 10

var arrowBatchBytes = 64 << 20

// NewArrow returns a Sink that writes an Arrow IPC file to w (stream:
// the IPC stream format), its temporary Parquet file in tempDir.
func NewArrow(w io.Writer, tempDir string, stream bool) (Sink, error) {
	sp, err := newTypedSpool(tempDir, "arrow")
	if err != nil {
		return nil, err
	}
	return &arrowSink{typedSpool: sp, w: w, stream: stream}, nil
}

// arrowOf is the Arrow type of a column of type t.
func arrowOf(t columnar.Type) (arrow.DataType, error) {
	switch t.Kind {
	case columnar.Int:
		return map[int]arrow.DataType{8: arrow.PrimitiveTypes.Int8, 16: arrow.PrimitiveTypes.Int16, 32: arrow.PrimitiveTypes.Int32, 64: arrow.PrimitiveTypes.Int64}[t.Width], nil
	case columnar.Uint:
		return map[int]arrow.DataType{8: arrow.PrimitiveTypes.Uint8, 16: arrow.PrimitiveTypes.Uint16, 32: arrow.PrimitiveTypes.Uint32, 64: arrow.PrimitiveTypes.Uint64}[t.Width], nil
	case columnar.Float:
		if t.Width == 32 {
			return arrow.PrimitiveTypes.Float32, nil
		}
		return arrow.PrimitiveTypes.Float64, nil
	case columnar.Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case columnar.String, columnar.Text:
		return arrow.BinaryTypes.String, nil
	case columnar.Binary:
		return arrow.BinaryTypes.Binary, nil
	case columnar.Date:
		return arrow.FixedWidthTypes.Date32, nil
	case columnar.Timestamp:
		tz := ""
		if t.UTC {
			tz = "UTC"
		}
		return &arrow.TimestampType{Unit: arrowUnitOf(t.Unit), TimeZone: tz}, nil
	case columnar.Time:
		if t.Unit <= columnar.Milli {
			return &arrow.Time32Type{Unit: arrowUnitOf(t.Unit)}, nil
		}
		return &arrow.Time64Type{Unit: arrowUnitOf(t.Unit)}, nil
	case columnar.Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	}
	return nil, fmt.Errorf("arrow: a column of type %s", t)
}

func arrowUnitOf(u columnar.TimeUnit) arrow.TimeUnit {
	switch u {
	case columnar.Milli:
		return arrow.Millisecond
	case columnar.Micro:
		return arrow.Microsecond
	case columnar.Nano:
		return arrow.Nanosecond
	}
	return arrow.Second
}

// Finish completes the Parquet file, then writes its rows as Arrow
// record batches.
func (s *arrowSink) Finish(ctx context.Context) error {
	t, err := s.table(ctx)
	if err != nil {
		return fmt.Errorf("arrow: %w", err)
	}
	defer t.Close()
	fields := make([]arrow.Field, len(t.Names))
	for i, n := range t.Names {
		dt, err := arrowOf(t.Types[i])
		if err != nil {
			return err
		}
		fields[i] = arrow.Field{Name: n, Type: dt, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	var w interface {
		Write(arrow.Record) error
		Close() error
	}
	if s.stream {
		w = ipc.NewWriter(s.w, ipc.WithSchema(schema))
	} else {
		fw, err := ipc.NewFileWriter(s.w, ipc.WithSchema(schema))
		if err != nil {
			return fmt.Errorf("arrow: %w", err)
		}
		w = fw
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	flush := func() error {
		rec := b.NewRecord()
		defer rec.Release()
		if rec.NumRows() == 0 && rec.NumCols() > 0 {
			return nil
		}
		return w.Write(rec)
	}
	r := columnar.NewReader(t)
	rows, size := 0, 0 // the batch's
	for n := 1; r.Next(); n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for j, f := range r.Fields() {
			if err := appendArrow(b.Field(j), f, t.Types[j], r.Null(j)); err != nil {
				return fmt.Errorf("arrow: column %q: %w", t.Names[j], err)
			}
			size += len(f) + 8
		}
		if rows++; rows == arrowBatch || size >= arrowBatchBytes {
			if err := flush(); err != nil {
				return err
			}
			rows, size = 0, 0
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("arrow: %w", err)
	}
	if err := flush(); err != nil {
		return err
	}
	return w.Close()
}

// appendArrow appends the value whose canonical text is f, of type t, to
// the builder (NULL: a null).
func appendArrow(b array.Builder, f []byte, t columnar.Type, null bool) error {
	if null {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.StringBuilder:
		bb.Append(string(f))
		return nil
	case *array.BinaryBuilder:
		bb.Append(f)
		return nil
	case *array.Decimal128Builder:
		n, err := decimal128.FromString(string(f), int32(t.Precision), int32(t.Scale))
		if err != nil {
			return err
		}
		bb.Append(n)
		return nil
	}
	v, err := t.Value(f)
	if err != nil {
		return err
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(v.I))
	case *array.Int16Builder:
		bb.Append(int16(v.I))
	case *array.Int32Builder:
		bb.Append(int32(v.I))
	case *array.Int64Builder:
		bb.Append(v.I)
	case *array.Uint8Builder:
		bb.Append(uint8(v.I))
	case *array.Uint16Builder:
		bb.Append(uint16(v.I))
	case *array.Uint32Builder:
		bb.Append(uint32(v.I))
	case *array.Uint64Builder:
		bb.Append(uint64(v.I))
	case *array.Float32Builder:
		bb.Append(float32(v.F))
	case *array.Float64Builder:
		bb.Append(v.F)
	case *array.BooleanBuilder:
		bb.Append(v.I != 0)
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.I))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.I))
	case *array.Time32Builder:
		bb.Append(arrow.Time32(v.I))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(v.I))
	default:
		return fmt.Errorf("no Arrow builder for %s", t)
	}
	return nil
}
