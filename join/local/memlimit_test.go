package local

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGoMemLimit(t *testing.T) {
	dir := t.TempDir()
	csv, gz := filepath.Join(dir, "k.csv"), filepath.Join(dir, "k.csv.gz")
	os.WriteFile(csv, make([]byte, 1000), 0o644)
	os.WriteFile(gz, make([]byte, 1000), 0o644)
	for _, c := range []struct {
		keys string
		want int64
	}{{csv, 1<<20 + 3000 + 32<<20}, {gz, 1<<20 + 12000 + 32<<20}, {filepath.Join(dir, "none"), 1<<20 + 32<<20}, {"-", 1<<20 + 32<<20}, {dir, 1<<20 + 32<<20}} {
		if got := GoMemLimit(1<<20, c.keys); got != c.want {
			t.Errorf("%s: %d, want %d", c.keys, got, c.want)
		}
	}
}
