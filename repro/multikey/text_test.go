package multikey

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestReadKeys: the distinct tuples of a file, bad rows skipped or named,
// a missing column named with its option.
func TestReadKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.tsv")
	if err := os.WriteFile(path, []byte("A\tB\tC\nx\t1\t.\nx\t1\t.\ny\tz\t.\ny\t2\t.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	types := []key.Type{key.String, key.Int}
	ks, tts, rec, bad, err := ReadKeys(context.Background(), path, 0, []string{"A", "B"}, types, true)
	if err != nil || len(ks) != 2 || len(tts) != 2 || rec != 3 || bad != 1 {
		t.Fatalf("skip: %d keys, %d types, %d rows, %d bad, %v", len(ks), len(tts), rec, bad, err)
	}
	if _, _, _, _, err := ReadKeys(context.Background(), path, 0, []string{"A", "B"}, types, false); err == nil || !strings.Contains(err.Error(), "k.tsv:4") {
		t.Errorf("a bad row without skip: %v", err)
	}
	_, _, _, _, err = ReadKeys(context.Background(), path, 0, []string{"A", "D"}, types, false)
	var oe *option.Error
	if !errors.As(err, &oe) || oe.Name != "KeyCol" || !strings.Contains(err.Error(), `has no column "D"`) {
		t.Errorf("a missing column: %v", err)
	}
}

// TestSeedText: the options refused by name; a small run's parts, each
// handed over as it is done.
func TestSeedText(t *testing.T) {
	for _, o := range []SeedOptions{{Rows: 0, Bits: 10, K: 1, Dims: 1}, {Rows: 1, Bits: 10, K: 99, Dims: 1}, {Rows: 1, Bits: 10, K: 1, Dims: 40}} {
		var oe *option.Error
		if err := o.Validate(); !errors.As(err, &oe) || !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	opt := SeedOptions{Rows: 2000, Bits: 20000, K: 3, Dims: 3, Queries: 20000, Replicates: 2, Seed: 1}
	if err := opt.Validate(); err != nil {
		t.Fatal(err)
	}
	var parts []string
	err := WriteSeed(context.Background(), opt, true, func(s string) error { parts = append(parts, s); return nil })
	if err != nil || len(parts) != 3 || !strings.Contains(parts[1], "| composite |") || !strings.Contains(parts[2], "| as intended (all k probes) |") {
		t.Fatalf("%v: %q", err, parts)
	}
	stop := errors.New("closed")
	if err := WriteSeed(context.Background(), opt, false, func(string) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("a failed write: %v", err)
	}
}

// TestAbsentText: the report names the file, the layouts and each column.
func TestAbsentText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.csv")
	os.WriteFile(path, []byte("A,B\n1,1\n1,2\n2,1\n3,3\n"), 0o644)
	types := []key.Type{key.Int, key.Int}
	ks, tts, rec, _, err := ReadKeys(context.Background(), path, 0, []string{"A", "B"}, types, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Absent(context.Background(), AbsentOptions{Types: tts, Keys: ks, Kind: filters.Bloom, Sizing: filters.Sizing{FPP: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	out := AbsentText(res, AbsentInfo{Keys: path, Columns: []string{"A", "B"}, Records: rec, Kind: filters.Bloom, Sizing: filters.Sizing{FPP: 0.01}}, true)
	for _, want := range []string{"4 key rows, 4 distinct key tuples over A,B", "| per-column |", "| composite |", "| A | 3 |", "| B | 3 |", "formula rate 0.01"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
