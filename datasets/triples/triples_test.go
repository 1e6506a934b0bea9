package triples

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func write(t *testing.T, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(context.Background(), &buf, opt); err != nil {
		t.Fatalf("Write(%+v): %v", opt, err)
	}
	return buf.Bytes()
}

// TestPythonValues: the text of a value is Python's str(99999 * u) for the
// same 53 random bits (printed by CPython 3), but for the exponent form of
// values below 1e-4, written out.
func TestPythonValues(t *testing.T) {
	for _, tc := range []struct {
		j    uint64 // the 53 random bits
		want string
	}{
		{0, "0.0"},
		{1 << 52, "49999.5"},
		{1<<53 - 1, "99998.99999999999"},
		{123456789012345, "1370.6319906209837"},
		{4503599627382841, "49999.50000013706"},
		{3002399751580330, "33332.99999999999"},
		{1, "0.000000000011102119223949103"}, // Python: 1.1102119223949103e-11
	} {
		if got := string(AppendValue(nil, tc.j<<11, 0)); got != tc.want {
			t.Errorf("bits %d: %q, want %q", tc.j, got, tc.want)
		}
	}
	if got := string(AppendValue([]byte("x"), 7<<61, 10)); got != "x8" {
		t.Errorf("domain 10: %q, want x8", got)
	}
}

// TestFormat: the header, one line a row with three values and ROW = 1, 2,
// ...; every value of domain 0 a decimal in [0, 99999) that reads back as
// itself, with a point and no exponent; every value of domain D an integer
// 0..D-1, all of them met.
func TestFormat(t *testing.T) {
	seed := testutil.Seed(t)
	for _, domain := range []int{0, 1, 7, 1000} {
		out := write(t, Options{Rows: 5000, Seed: seed, Domain: domain})
		if !bytes.HasSuffix(out, []byte("\n")) || bytes.Contains(out, []byte("\r")) {
			t.Fatalf("want LF line ends, ending in one")
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if lines[0] != Header || len(lines) != 5001 {
			t.Fatalf("header %q, %d lines", lines[0], len(lines))
		}
		met := map[string]bool{}
		for i, line := range lines[1:] {
			f := strings.Split(line, ",")
			if len(f) != 4 || f[3] != strconv.Itoa(i+1) {
				t.Fatalf("line %d: %q", i+2, line)
			}
			for _, v := range f[:3] {
				met[v] = true
				if domain > 0 {
					if n, err := strconv.Atoi(v); err != nil || n < 0 || n >= domain || strconv.Itoa(n) != v {
						t.Fatalf("line %d: %q is not an integer below %d", i+2, v, domain)
					}
					continue
				}
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || x < 0 || x >= SeedMax || !strings.Contains(v, ".") || strings.ContainsAny(v, "eE+-") {
					t.Fatalf("line %d: %q is not a decimal in [0, 99999)", i+2, v)
				}
				// Shortest: the same digits as strconv's shortest form.
				if s := strconv.FormatFloat(x, 'f', -1, 64); s != strings.TrimSuffix(v, ".0") {
					t.Fatalf("line %d: %q, shortest %q", i+2, v, s)
				}
			}
		}
		switch {
		case domain > 0 && len(met) != domain:
			t.Errorf("domain %d: %d values met", domain, len(met))
		case domain == 0 && len(met) != 15000:
			t.Errorf("domain 0: %d distinct values of 15000", len(met))
		}
	}
}

// TestDeterministic: the same options give the same bytes, another seed
// others; Source gives the file's values in order.
func TestDeterministic(t *testing.T) {
	for _, domain := range []int{0, 50} {
		opt := Options{Rows: 3000, Seed: 42, Domain: domain}
		a, b := write(t, opt), write(t, opt)
		if !bytes.Equal(a, b) {
			t.Fatalf("domain %d: two runs differ", domain)
		}
		opt.Seed++
		if bytes.Equal(a, write(t, opt)) {
			t.Fatalf("domain %d: seeds 42 and 43 give the same file", domain)
		}
		src := NewSource(42, domain)
		var row [3][]byte
		var want bytes.Buffer
		want.WriteString(Header + "\n")
		for i := range 3000 {
			src.Next(&row)
			want.WriteString(string(row[0]) + "," + string(row[1]) + "," + string(row[2]) + "," + strconv.Itoa(i+1) + "\n")
		}
		if !bytes.Equal(a, want.Bytes()) {
			t.Fatalf("domain %d: Source's values are not the file's", domain)
		}
		// Draw then AppendValue is Append.
		s1, s2 := NewSource(9, domain), NewSource(9, domain)
		for range 100 {
			if x, y := AppendValue(nil, s1.Draw(), s1.Domain()), s2.Append(nil); !bytes.Equal(x, y) {
				t.Fatalf("Draw+AppendValue %q, Append %q", x, y)
			}
		}
	}
}

// TestGenerate: the file appears whole at dir/triples.csv; bad options and a
// cancelled context leave nothing.
func TestGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	opt := Options{Rows: 100, Seed: 1}
	path, err := Generate(context.Background(), dir, opt)
	if err != nil || path != filepath.Join(dir, File) {
		t.Fatalf("Generate: %q, %v", path, err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, write(t, opt)) {
		t.Fatalf("file differs from Write's output: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := filepath.Join(t.TempDir(), "gone")
	if _, err := Generate(ctx, gone, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("a cancelled Generate left %s", gone)
	}
	for _, bad := range []Options{{Rows: 0}, {Rows: 1, Domain: -1}} {
		if err := Write(context.Background(), &bytes.Buffer{}, bad); err == nil {
			t.Errorf("Write(%+v) accepted", bad)
		}
		if _, err := Generate(context.Background(), gone, bad); err == nil {
			t.Errorf("Generate(%+v) accepted", bad)
		}
	}
	if _, err := Generate(context.Background(), "", opt); err == nil {
		t.Errorf("empty folder accepted")
	}
}

// BenchmarkSource: the cost of a value.
func BenchmarkSource(b *testing.B) {
	src := NewSource(1, 0)
	var v []byte
	for b.Loop() {
		v = src.Append(v[:0])
	}
}
