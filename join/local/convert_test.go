package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar"
)

// readTable returns a Parquet file's rows as their fields' text, a row a
// line.
func readTable(t *testing.T, path string) []string {
	t.Helper()
	tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	r := columnar.NewReader(tab)
	var out []string
	for r.Next() {
		var fs []string
		for _, f := range r.Fields() {
			fs = append(fs, string(f))
		}
		out = append(out, strings.Join(fs, ","))
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return out
}

// TestConvertCSVFile converts a TSV file to Parquet and reads it back, and
// leaves no file behind when the conversion fails.
func TestConvertCSVFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.tsv")
	os.WriteFile(src, []byte("A\tB\n1\tx\n2\t\n"), 0o644)
	dst := filepath.Join(dir, "out.parquet")
	rows, err := ConvertCSVFile(context.Background(), src, dst, 0, dir)
	if err != nil || rows != 2 {
		t.Fatalf("%d rows, %v", rows, err)
	}
	if got := strings.Join(readTable(t, dst), ";"); got != "1,x;2," {
		t.Errorf("read back %q", got)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("A,B\n1,\"x\n"), 0o644) // an unterminated quote
	badDst := filepath.Join(dir, "bad.parquet")
	if _, err := ConvertCSVFile(context.Background(), bad, badDst, 0, dir); err == nil {
		t.Fatal("an unterminated quote: no error")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "in.tsv" && e.Name() != "out.parquet" && e.Name() != "bad.csv" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestConvertWritten converts a producer's text, and returns the
// producer's error first when it fails half way.
func TestConvertWritten(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "out.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ConvertWritten(context.Background(), CSVProducer{Name: "gen", Sep: ',', Write: func(w io.Writer) error {
		fmt.Fprint(w, "K,V\n")
		for i := range 1000 {
			fmt.Fprintf(w, "%d,v%d\n", i, i)
		}
		return nil
	}}, f, 100, dir)
	f.Close()
	if err != nil || rows != 1000 {
		t.Fatalf("%d rows, %v", rows, err)
	}
	if got := readTable(t, f.Name()); len(got) != 1000 || got[999] != "999,v999" {
		t.Fatalf("read back %d rows, the last %q", len(got), got[len(got)-1])
	}
	broken := errors.New("the producer broke")
	_, err = ConvertWritten(context.Background(), CSVProducer{Name: "gen", Sep: ',', Write: func(w io.Writer) error {
		fmt.Fprint(w, "K,V\n1,a\n")
		return broken
	}}, io.Discard, 0, dir)
	if !errors.Is(err, broken) {
		t.Fatalf("a producer's error: %v", err)
	}
	// A conversion that fails while the producer still writes (a row of
	// the wrong field count) says why, not that the producer then found
	// its pipe closed.
	_, err = ConvertWritten(context.Background(), CSVProducer{Name: "gen", Sep: ',', Write: func(w io.Writer) error {
		fmt.Fprint(w, "K,V\n1,a,extra\n")
		for i := range 200000 {
			if _, err := fmt.Fprintf(w, "%d,v%d\n", i, i); err != nil {
				return err
			}
		}
		return nil
	}}, io.Discard, 1000, dir)
	if err == nil || errors.Is(err, io.ErrClosedPipe) || !strings.Contains(err.Error(), "3 fields") {
		t.Fatalf("a bad row while the producer writes: %v, want the row's error", err)
	}
}
