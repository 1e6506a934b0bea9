package source_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

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
