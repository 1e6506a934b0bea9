package columnar

import (
	"context"
	"os"
	"testing"
)

// BenchmarkRowText renders every row of a Parquet file's first chunk as
// the key side's text (NextField of the first column, then AppendOthers), the build's
// work for a Parquet key side: ACBFJOIN_BENCH_PARQUET names the file
// (bench/out/data/parquet/keys.parquet, made by bench/parquet.sh); skipped
// without it.
func BenchmarkRowText(b *testing.B) {
	path := os.Getenv("ACBFJOIN_BENCH_PARQUET")
	if path == "" {
		b.Skip("ACBFJOIN_BENCH_PARQUET names no file")
	}
	t, err := Open(context.Background(), path, "keys", Parquet, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	cols, err := t.Read(0, nil)
	if err != nil {
		b.Fatal(err)
	}
	n := cols[0].Len()
	var buf []byte
	b.ResetTimer()
	for b.Loop() {
		// As the build reads a row: its key field, then the others.
		r := NewRows("keys", cols, 0)
		for r.NextField(0) {
			buf, _ = r.AppendOthers(buf[:0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}
