package columnar

import (
	"context"
	"os"
	"testing"
)

// BenchmarkRowText renders every row of a Parquet file's first chunk as
// the key side's text (AppendOthers without the first column), the build's
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
		for i := range n {
			buf = appendRowExcept(buf[:0], cols, i, 0)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}
