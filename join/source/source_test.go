package source_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestDecideKeyTypes checks the key types decided for sides of each
// format against what their values or schemas say.
func TestDecideKeyTypes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ints := write("ints.csv", "K,V\n1,a\n2,b\n,c\n")
	text := write("text.csv", "K,V\n1,a\n01,b\n")
	jsonl := write("keys.jsonl", `{"K":"7","V":1}`+"\n"+`{"K":"8","V":2}`+"\n")
	large := write("large.tsv", "K\tW\n1\tx\n2\ty\n")
	for _, c := range []struct {
		name, keys string
		given      key.Type
		want       key.Type
	}{
		{"canonical integers", ints, key.Auto, key.Int},
		{"a leading zero", text, key.Auto, key.String},
		{"given", ints, key.String, key.String},
		{"a JSON string column", jsonl, key.Auto, key.String},
	} {
		opt := join.Options{Sides: join.Sides{Keys: c.keys, Input: large}, Keying: join.Keying{KeyCol: "K", JoinCol: "K", KeyType: c.given}}
		d, err := source.DecideKeyTypes(context.Background(), opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(d.Types, []key.Type{c.want}) {
			t.Errorf("%s: decided %v, want %s (%s)", c.name, d.Types, c.want, d.Why)
		}
	}
	// A missing column is refused, naming the option.
	opt := join.Options{Sides: join.Sides{Keys: ints, Input: large}, Keying: join.Keying{KeyCol: "K", JoinCol: "NOPE"}}
	if _, err := source.DecideKeyTypes(context.Background(), opt); !errors.Is(err, join.ErrOptions) {
		t.Errorf("a missing join column: %v, want join.ErrOptions", err)
	}
}

// TestScanParts reads the NBER sample's citations in parts with two
// goroutines and checks that every row is seen once, as a sequential
// count of its lines says.
func TestScanParts(t *testing.T) {
	path := filepath.Join(testutil.NBERMini(t), "cite75_99.mini.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want int64 = -1 // the header
	for _, c := range b {
		if c == '\n' {
			want++
		}
	}
	s, err := source.Open(context.Background(), source.Options{Option: "Input", Path: path, Parts: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	counts := make(chan int64, 2)
	err = source.Scan(context.Background(), s, 2, func() *int64 { return new(int64) }, func(n *int64, r source.RowReader) error {
		for r.Next() {
			*n++
		}
		return r.Err()
	}, func(n *int64) error { counts <- *n; return nil })
	if err != nil {
		t.Fatal(err)
	}
	close(counts)
	var got int64
	for n := range counts {
		got += n
	}
	if got != want || !s.Regular() || !slices.Equal(s.Header, []string{"CITING", "CITED"}) {
		t.Errorf("read %d rows of %d; regular %v; header %q", got, want, s.Regular(), s.Header)
	}
}

// TestCheckSides refuses standard input given as two sides, and lets one
// regular file be both.
func TestCheckSides(t *testing.T) {
	if err := source.CheckSides("-", "-", ""); err == nil {
		t.Error("standard input twice: no error")
	}
	f := filepath.Join(t.TempDir(), "f.csv")
	os.WriteFile(f, []byte("A\n1\n"), 0o644)
	if err := source.CheckSides(f, f, ""); err != nil {
		t.Errorf("one regular file twice: %v", err)
	}
}

// TestFiles: a folder's files in name order, hidden and _-prefixed names
// left out; a glob's matches; one path as it is; and the refusals, each
// naming the path: a folder inside, two formats, a FIFO, an empty
// folder, a glob of nothing.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.csv", "a.csv", "_SUCCESS", ".a.csv.crc"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644)
	}
	files, many, err := source.Files(dir, "")
	if err != nil || !many || !slices.Equal(files, []string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")}) {
		t.Fatalf("folder: %v %v %v", files, many, err)
	}
	if files, many, err := source.Files(filepath.Join(dir, "*.csv"), ""); err != nil || !many || len(files) != 2 {
		t.Fatalf("glob: %v %v %v", files, many, err)
	}
	if files, many, err := source.Files(filepath.Join(dir, "a.csv"), ""); err != nil || many || len(files) != 1 {
		t.Fatalf("one file: %v %v %v", files, many, err)
	}
	if files, many, err := source.Files(filepath.Join(dir, "nope.csv"), ""); err != nil || many || len(files) != 1 {
		t.Fatalf("a missing file (its reader's to report): %v %v %v", files, many, err)
	}
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "_SUCCESS"), nil, 0o644)
	mixed := t.TempDir()
	os.WriteFile(filepath.Join(mixed, "a.csv"), nil, 0o644)
	os.WriteFile(filepath.Join(mixed, "b.parquet"), nil, 0o644)
	nested := t.TempDir()
	os.MkdirAll(filepath.Join(nested, "year=2020"), 0o755)
	fifo := t.TempDir()
	fifoErr := syscall.Mkfifo(filepath.Join(fifo, "p.csv"), 0o600)
	for _, c := range []struct{ path, want string }{
		{empty, "an empty folder"},
		{mixed, "holds files of two formats"},
		{nested, "holds the folder year=2020"},
		{filepath.Join(dir, "*.tsv"), "no file matches it"},
		{filepath.Join(t.TempDir(), "*"), "no file matches it"},
		{fifo, "not a regular file"},
	} {
		if c.path == fifo && fifoErr != nil {
			continue
		}
		_, _, err := source.Files(c.path, "")
		var pe *fs.PathError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) || pe.Path != c.path {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	// A glob leaves _SUCCESS and hidden files out, as a folder does.
	if files, _, err := source.Files(filepath.Join(dir, "*"), ""); err != nil || len(files) != 2 {
		t.Errorf("a glob of everything: %v, %v", files, err)
	}
	seps := t.TempDir()
	os.WriteFile(filepath.Join(seps, "a.csv"), nil, 0o644)
	os.WriteFile(filepath.Join(seps, "b.tsv"), nil, 0o644)
	if _, _, err := source.Files(seps, ""); err == nil || !strings.Contains(err.Error(), "two separators") {
		t.Errorf("a .csv and a .tsv: %v", err)
	}
	// Given a format, files of two extensions are one side.
	if _, _, err := source.Files(mixed, "csv"); err != nil {
		t.Errorf("mixed, format given: %v", err)
	}
}

// TestOpenPairKeyErrorStopsInputOpen: the large side is opened beside the
// key side; a key side that fails ends the large side's open even when it
// waits for a FIFO's writer, and its error is the one said (the key
// side's, as when the sides were opened one after the other). The bound
// is on a hang, not on speed.
func TestOpenPairKeyErrorStopsInputOpen(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "input.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A table format's open of a FIFO waits for its writer whatever its
	// context says: the large side is then opened after the key side.
	pqFifo := filepath.Join(dir, "input.parquet")
	if err := syscall.Mkfifo(pqFifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	keys := filepath.Join(dir, "missing.csv")
	options := func(input string) join.Options {
		opt, err := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		return opt
	}
	regular := filepath.Join(dir, "input.csv") // opened beside the key side, then closed
	if err := os.WriteFile(regular, []byte("K,V\n1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{fifo, pqFifo, regular} {
		opt := options(input)
		done := make(chan error, 1)
		go func() {
			p, err := source.OpenPair(context.Background(), opt)
			if p != nil {
				p.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "missing.csv") {
				t.Fatalf("%s: error %v, want the key side's", input, err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("OpenPair still waits for the large side's FIFO %s after the key side failed", input)
		}
	}
	// Both missing: the key side's error, as before.
	_, err := source.OpenPair(context.Background(), options(filepath.Join(dir, "nor.csv")))
	if err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Fatalf("both missing: %v, want the key side's error", err)
	}
}

// TestScanTableShared: a table side of fewer chunks than workers (one to
// three row groups, and a file of two Arrow record batches) is read by
// every worker (scanShared): each row once, with the Offset, SeqBase and
// fields a sequential read gives, whatever the workers; and the error
// returned is the one of the lowest row, as a sequential read meets it.
func TestScanTableShared(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	dir := t.TempDir()
	const n = 57
	var rows [][]*string
	for i := range n {
		s := fmt.Sprint("s", rng.IntN(1000))
		var sp *string
		if i%7 != 3 {
			sp = &s
		}
		v := fmt.Sprint(i)
		rows = append(rows, []*string{&v, sp})
	}
	rec := columnartest.Record(t, []string{"id", "s"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, rows)
	defer rec.Release()
	for _, rg := range []int64{n, 30, 20} { // 1, 2 and 3 row groups
		fs := columnartest.Write(t, dir, fmt.Sprint("t", rg), rec, rg, rg == 30)
		for _, path := range []string{fs.Parquet, fs.ArrowFile} {
			for workers := 1; workers <= 5; workers++ {
				s, err := source.Open(context.Background(), source.Options{Option: "Keys", Path: path, Parts: workers})
				if err != nil {
					t.Fatal(err)
				}
				var mu sync.Mutex
				seen := map[int64]string{}
				next := 0
				err = source.Scan(context.Background(), s, workers, func() int { mu.Lock(); defer mu.Unlock(); next++; return next }, func(st int, r source.RowReader) error {
					for r.Next() {
						f := r.Fields()
						line := string(f[0]) + "," + string(f[1])
						mu.Lock()
						if _, dup := seen[r.Offset()]; dup {
							mu.Unlock()
							return fmt.Errorf("row %d read twice", r.Offset())
						}
						seen[r.Offset()] = line
						mu.Unlock()
					}
					return r.Err()
				}, func(int) error { return nil })
				if err != nil {
					t.Fatalf("%s, %d workers: %v", filepath.Base(path), workers, err)
				}
				if len(seen) != n {
					t.Fatalf("%s, %d workers: %d rows read, want %d", filepath.Base(path), workers, len(seen), n)
				}
				for i, r := range rows {
					want := *r[0] + ","
					if r[1] != nil {
						want += *r[1]
					}
					if seen[int64(i)] != want {
						t.Fatalf("%s, %d workers: row %d is %q, want %q", filepath.Base(path), workers, i, seen[int64(i)], want)
					}
				}
				// An error at every row from 40 (and at 45, 50): the first,
				// row 40's, is returned.
				err = source.Scan(context.Background(), s, workers, func() int { return 0 }, func(_ int, r source.RowReader) error {
					for r.Next() {
						if r.Offset() >= 40 && r.Offset()%5 == 0 {
							return r.Errorf("bad row %d", r.Offset())
						}
					}
					return r.Err()
				}, func(int) error { return nil })
				if err == nil || !strings.Contains(err.Error(), "bad row 40") {
					t.Fatalf("%s, %d workers: error %v, want row 40's", filepath.Base(path), workers, err)
				}
				s.Close()
			}
		}
	}
}
