package extsort

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sortRows are 200,000 join output rows: an 8-byte key, a 64-byte line.
var sortRows = sync.OnceValue(func() (rows []sortRow) {
	line := []byte("5497295,4943137,1996,13230,1994,\"US\",\"CA\",1,2,22,3,1,14,3,x,y\n")
	for i := range 200_000 {
		key := fmt.Appendf(nil, "%08d", (i*2654435761)%100_000_000)
		rows = append(rows, sortRow{key: key, seq: int64(i), small: int64(i % 7), line: line})
	}
	return rows
})

// BenchmarkSort sorts the rows from 2 writers and merges them out: in memory
// (budget=64MiB) and through run files (budget=1MiB). Reports rows/s and
// allocations.
func BenchmarkSort(b *testing.B) {
	rows := sortRows()
	for _, budget := range []int64{64 << 20, 1 << 20} {
		b.Run(fmt.Sprintf("budget=%dKiB", budget>>10), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				s := New(b.TempDir(), budget, 2)
				var wg sync.WaitGroup
				for w := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						buf := s.NewBuffer()
						for i := w; i < len(rows); i += 2 {
							if err := buf.Add(rows[i].key, rows[i].seq, rows[i].small, rows[i].line); err != nil {
								panic(err)
							}
						}
					}()
				}
				wg.Wait()
				n := 0
				if err := s.Merge(context.Background(), func([]byte) error { n++; return nil }); err != nil || n != len(rows) {
					b.Fatal(n, err)
				}
				s.Close()
			}
			b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkRunFormat writes the rows to a run file and reads them back, in
// the sort's own format (varint lengths) and as an Arrow IPC stream like the
// shuffle's spill files (batches of 8192 rows: key, seq, small, line
// columns): the comparison behind the choice of the run format
// (docs/design.md).
func BenchmarkRunFormat(b *testing.B) {
	rows := sortRows()
	b.Run("format=varint", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			path := filepath.Join(b.TempDir(), "run")
			f, _ := os.Create(path)
			w := bufio.NewWriterSize(f, 16<<10)
			for _, r := range rows {
				writeSortRow(w, r.key, r.seq, r.small, r.line)
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			f.Close()
			f, _ = os.Open(path)
			rr := &runReader{path: path, f: f, r: bufio.NewReaderSize(f, 16<<10)}
			n := 0
			for {
				row, err := rr.next()
				if err != nil {
					b.Fatal(err)
				}
				if row == nil {
					break
				}
				n++
			}
			f.Close()
			if n != len(rows) {
				b.Fatal(n)
			}
		}
		b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("format=arrow-ipc", func(b *testing.B) {
		b.ReportAllocs()
		schema := arrow.NewSchema([]arrow.Field{{Name: "key", Type: arrow.BinaryTypes.Binary}, {Name: "seq", Type: arrow.PrimitiveTypes.Int64},
			{Name: "small", Type: arrow.PrimitiveTypes.Int64}, {Name: "line", Type: arrow.BinaryTypes.Binary}}, nil)
		mem := memory.NewGoAllocator()
		for range b.N {
			path := filepath.Join(b.TempDir(), "run")
			f, _ := os.Create(path)
			bw := bufio.NewWriterSize(f, 16<<10)
			iw := ipc.NewWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(mem))
			rb := array.NewRecordBuilder(mem, schema)
			flush := func() {
				rec := rb.NewRecord()
				if err := iw.Write(rec); err != nil {
					b.Fatal(err)
				}
				rec.Release()
			}
			for i, r := range rows {
				rb.Field(0).(*array.BinaryBuilder).Append(r.key)
				rb.Field(1).(*array.Int64Builder).Append(r.seq)
				rb.Field(2).(*array.Int64Builder).Append(r.small)
				rb.Field(3).(*array.BinaryBuilder).Append(r.line)
				if (i+1)%8192 == 0 {
					flush()
				}
			}
			flush()
			rb.Release()
			if err := errors.Join(iw.Close(), bw.Flush(), f.Close()); err != nil {
				b.Fatal(err)
			}
			f, _ = os.Open(path)
			rd, err := ipc.NewReader(bufio.NewReaderSize(f, 16<<10), ipc.WithAllocator(mem))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rd.Next() {
				rec := rd.Record()
				keys, seqs, smalls, lines := rec.Column(0).(*array.Binary), rec.Column(1).(*array.Int64), rec.Column(2).(*array.Int64), rec.Column(3).(*array.Binary)
				for i := range int(rec.NumRows()) {
					// What a merge reads of a row.
					_, _, _, _ = keys.Value(i), seqs.Value(i), smalls.Value(i), lines.Value(i)
					n++
				}
			}
			if err := rd.Err(); err != nil && err != io.EOF {
				b.Fatal(err)
			}
			rd.Release()
			f.Close()
			if n != len(rows) {
				b.Fatal(n)
			}
		}
		b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
