package nber

import (
	"context"
	"testing"
)

// BenchmarkGenerate generates a 10% scale data set (1.65M citations, 292K
// patents); bench/nber.sh times the full scale through the CLI.
func BenchmarkGenerate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Generate(context.Background(), b.TempDir(), GenOptions{Scale: 0.1, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
