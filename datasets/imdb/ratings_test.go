package imdb

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func writeRatings(t *testing.T, rows int, seed uint64) (RatingsResult, []byte) {
	t.Helper()
	var buf bytes.Buffer
	res, err := WriteRatings(context.Background(), &buf, RatingsOptions{Rows: rows, Seed: seed})
	if err != nil {
		t.Fatalf("WriteRatings(rows %d, seed %d): %v", rows, seed, err)
	}
	return res, buf.Bytes()
}

// TestGenRatingsDeterministic: the same rows and seed give byte-identical output;
// another seed gives another file.
func TestGenRatingsDeterministic(t *testing.T) {
	testutil.SkipUnderRace(t)
	const rows = 20000
	for _, seed := range []uint64{0, 1, 42} {
		t.Logf("seed %d", seed)
		r1, a := writeRatings(t, rows, seed)
		r2, b := writeRatings(t, rows, seed)
		if !bytes.Equal(a, b) || r1.Classes != r2.Classes {
			t.Fatalf("seed %d: two runs differ", seed)
		}
		_, c := writeRatings(t, rows, seed+1000)
		if bytes.Equal(a, c) {
			t.Fatalf("seeds %d and %d give the same file", seed, seed+1000)
		}
	}
}

// TestGenRatingsFormat parses the output as IMDb's TSV and checks every field,
// and that the returned histogram is the file's.
func TestGenRatingsFormat(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, tc := range []struct {
		rows int
		seed uint64
	}{{1, 3}, {2, 3}, {1000, 7}, {100000, 11}} {
		t.Logf("rows %d, seed %d", tc.rows, tc.seed)
		res, out := writeRatings(t, tc.rows, tc.seed)
		if bytes.Contains(out, []byte("\r")) || !bytes.HasSuffix(out, []byte("\n")) {
			t.Fatalf("want LF line ends, ending in one")
		}
		r := csv.NewReader(bytes.NewReader(out))
		r.Comma = '\t'
		r.FieldsPerRecord = 3
		r.ReuseRecord = true
		head, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(head, "\t") != RatingsHeader {
			t.Fatalf("header %q, want %q", head, RatingsHeader)
		}
		var classes [11]int64
		prev, n := -1, 0
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("row %d: %v", n+1, err)
			}
			n++
			tc, rating, votes := rec[0], rec[1], rec[2]
			if len(tc) != 9 || tc[:2] != "tt" || !allDigits(tc[2:]) {
				t.Fatalf("row %d: tconst %q, want tt and seven digits", n, tc)
			}
			id, _ := strconv.Atoi(tc[2:])
			if id < 1 || id <= prev {
				t.Fatalf("row %d: tconst %s after tt%07d: not increasing", n, tc, prev)
			}
			prev = id
			i := strings.IndexByte(rating, '.')
			v, err := strconv.ParseFloat(rating, 64)
			if i < 1 || i != len(rating)-2 || err != nil || v < 1 || v > 10 {
				t.Fatalf("row %d: averageRating %q, want one decimal in 1.0..10.0", n, rating)
			}
			c, err := ClassOf(rating)
			if err != nil {
				t.Fatalf("row %d: %v", n, err)
			}
			classes[c]++
			nv, err := strconv.ParseUint(votes, 10, 64)
			if err != nil || nv < votesMin || nv > votesMax || strconv.FormatUint(nv, 10) != votes {
				t.Fatalf("row %d: numVotes %q, want an integer in %d..%d", n, votes, votesMin, votesMax)
			}
		}
		if n != tc.rows || res.Rows != int64(n) {
			t.Fatalf("%d rows in the file, result says %d, want %d", n, res.Rows, tc.rows)
		}
		if classes != res.Classes {
			t.Fatalf("file's classes %v, result's %v", classes, res.Classes)
		}
	}
}

// TestGenRatingsHistogram: at the seed's size the class histogram has the shape
// of IMDb's: mode at 7 with 6 and 7 the largest classes, every class present,
// mean about 6.9, a longer tail on the left; and a heavy-tailed numVotes.
func TestGenRatingsHistogram(t *testing.T) {
	if testing.Short() {
		t.Skip("1.26M rows")
	}
	const seed = 1
	res, out := writeRatings(t, SeedRows, seed)
	t.Logf("seed %d, %d rows in %v: classes %v", seed, res.Rows, res.Elapsed, res.Classes[1:])
	var sum, total int64
	for c := 1; c <= 10; c++ {
		if res.Classes[c] == 0 {
			t.Errorf("class %d is empty", c)
		}
		sum += int64(c) * res.Classes[c]
		total += res.Classes[c]
	}
	if total != SeedRows || res.Classes[0] != 0 {
		t.Fatalf("classes sum to %d (class 0: %d), want %d", total, res.Classes[0], SeedRows)
	}
	for c := 1; c <= 10; c++ {
		if c != 7 && res.Classes[c] >= res.Classes[7] {
			t.Errorf("class %d (%d) >= class 7 (%d): mode not at 7", c, res.Classes[c], res.Classes[7])
		}
		if c != 6 && c != 7 && res.Classes[c] >= res.Classes[6] {
			t.Errorf("class %d (%d) >= class 6 (%d): 6 and 7 not the largest", c, res.Classes[c], res.Classes[6])
		}
	}
	// Unimodal: rising to 7, falling after.
	for c := 2; c <= 10; c++ {
		if (c <= 7) != (res.Classes[c] > res.Classes[c-1]) {
			t.Errorf("classes %d, %d = %d, %d: not unimodal at 7", c-1, c, res.Classes[c-1], res.Classes[c])
		}
	}
	// Mean and skewness of the ratings themselves.
	var s1, s2, s3 float64
	var votes1000, votesMillion int
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))[1:]
	for _, l := range lines {
		f := bytes.Split(l, []byte("\t"))
		v, _ := strconv.ParseFloat(string(f[1]), 64)
		s1, s2, s3 = s1+v, s2+v*v, s3+v*v*v
		nv, _ := strconv.Atoi(string(f[2]))
		if nv > 1000 {
			votes1000++
		}
		if nv > 1000000 {
			votesMillion++
		}
	}
	n := float64(len(lines))
	mean := s1 / n
	vr := s2/n - mean*mean
	skew := (s3/n - 3*mean*vr - mean*mean*mean) / (vr * math.Sqrt(vr))
	t.Logf("mean %.3f, sd %.3f, skewness %.3f; %d titles above 1,000 votes, %d above 1,000,000", mean, math.Sqrt(vr), skew, votes1000, votesMillion)
	if mean < 6.5 || mean > 7.3 {
		t.Errorf("mean rating %.3f, want 6.5..7.3", mean)
	}
	if skew >= -0.2 {
		t.Errorf("skewness %.3f, want left-skewed (below -0.2)", skew)
	}
	if float64(sum)/n < 6.5 || float64(sum)/n > 7.3 {
		t.Errorf("mean class %.3f, want 6.5..7.3", float64(sum)/n)
	}
	if votesMillion < 10 || votes1000 < 1000 {
		t.Errorf("numVotes tail too light: %d above 1,000, %d above 1,000,000", votes1000, votesMillion)
	}
}

func TestIMDBClassOf(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // 0: an error
	}{
		{"6.5", 7}, {"6.49", 6}, {"6.4999999999999999999", 6}, {"6.50", 7}, {"6.5000001", 7},
		{"10.0", 10}, {"10", 10}, {"1.0", 1}, {"1", 1}, {"0.5", 1}, {"0.50", 1}, {".5", 1},
		{"7.", 7}, {"9.5", 10}, {"9.49", 9}, {"1.4", 1}, {"1.5", 2}, {"007.3", 7}, {"10.4", 10},
		{"", 0}, {"-1.0", 0}, {"-0.0", 0}, {"-", 0}, {"abc", 0}, {"NaN", 0}, {"nan", 0}, {"Inf", 0},
		{".", 0}, {"6.5.1", 0}, {" 6.5", 0}, {"6.5 ", 0}, {"+6.5", 0}, {"6.5e0", 0}, {"6,5", 0},
		{`\N`, 0}, {"0.4", 0}, {"0", 0}, {"10.5", 0}, {"11", 0}, {"100.0", 0}, {"99999999999999999999", 0},
	} {
		got, err := ClassOf(tc.in)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("ClassOf(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ClassOf(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	// Every rating the generator can write: the class is the rounded tenth.
	for t10 := 10; t10 <= 100; t10++ {
		s := strconv.Itoa(t10/10) + "." + strconv.Itoa(t10%10)
		if got, err := ClassOf(s); err != nil || got != (t10+5)/10 {
			t.Errorf("ClassOf(%q) = %d, %v; want %d", s, got, err, (t10+5)/10)
		}
	}
}

func TestGenRatingsRowsRange(t *testing.T) {
	for _, rows := range []int{0, -1, MaxRows + 1, math.MaxInt} {
		var buf bytes.Buffer
		if _, err := WriteRatings(context.Background(), &buf, RatingsOptions{Rows: rows, Seed: 1}); err == nil || buf.Len() != 0 {
			t.Errorf("rows %d: err %v, %d bytes written; want an error and nothing", rows, err, buf.Len())
		}
		dir := filepath.Join(t.TempDir(), "new")
		if _, _, err := GenerateRatings(context.Background(), dir, RatingsOptions{Rows: rows, Seed: 1}); err == nil {
			t.Errorf("GenerateRatings rows %d: no error", rows)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("rows %d: folder made: %v", rows, err)
		}
	}
}

// TestGenRatingsMaxRows: at MaxRows every seven-digit tconst appears once, in
// order.
func TestGenRatingsMaxRows(t *testing.T) {
	if testing.Short() {
		t.Skip("10M rows")
	}
	w := &edgeWriter{}
	res, err := WriteRatings(context.Background(), w, RatingsOptions{Rows: MaxRows, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(w.head), "\n", 3)[1]
	lines := strings.Split(strings.TrimSuffix(string(w.tail), "\n"), "\n")
	last := lines[len(lines)-1]
	if res.Rows != MaxRows || !strings.HasPrefix(first, "tt0000001\t") || !strings.HasPrefix(last, "tt9999999\t") {
		t.Fatalf("rows %d, first %q, last %q", res.Rows, first, last)
	}
}

// edgeWriter keeps the first and last 64 bytes written.
type edgeWriter struct{ head, tail []byte }

func (w *edgeWriter) Write(p []byte) (int, error) {
	if len(w.head) < 64 {
		w.head = append(w.head, p[:min(len(p), 64-len(w.head))]...)
	}
	w.tail = append(w.tail, p[max(len(p)-64, 0):]...)
	w.tail = w.tail[max(len(w.tail)-64, 0):]
	return len(p), nil
}

func TestGenerateRatings(t *testing.T) {
	testutil.SkipUnderRace(t)
	dir := filepath.Join(t.TempDir(), "data")
	res, path, err := GenerateRatings(context.Background(), dir, RatingsOptions{Rows: 5000, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, RatingsFile) {
		t.Fatalf("path %q", path)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, want := writeRatings(t, 5000, 9)
	if !bytes.Equal(got, want) || res.Rows != 5000 {
		t.Fatalf("the file differs from WriteRatings's output")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d entries in %s, want the file alone", len(ents), dir)
	}
}

// TestGenRatingsCancel: a cancelled context ends the run with its error; no file
// or folder is left, and an existing file at the path is untouched.
func TestGenRatingsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	base := t.TempDir()
	dir := filepath.Join(base, "new")
	if _, path, err := GenerateRatings(ctx, dir, RatingsOptions{Rows: 1000, Seed: 1}); !errors.Is(err, context.Canceled) || path != "" {
		t.Fatalf("cancelled: path %q, err %v; want context.Canceled", path, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("cancelled run left %s: %v", dir, err)
	}

	// Cancelled during the run: after the first buffer is written.
	old := []byte("old file\n")
	path := filepath.Join(base, RatingsFile)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	w := &cancelWriter{cancel: cancel}
	if _, err := WriteRatings(ctx, w, RatingsOptions{Rows: SeedRows, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteRatings cancelled midway: %v", err)
	}
	if w.n == 0 || w.n > 4<<20 {
		t.Fatalf("wrote %d bytes before stopping", w.n)
	}
	// GenerateRatings over the existing file, cancelled after two of
	// WriteRatings's checks: some rows were written to the temporary file.
	cctx := &countCtx{Context: context.Background(), left: 3}
	if _, _, err := GenerateRatings(cctx, base, RatingsOptions{Rows: SeedRows, Seed: 1}); !errors.Is(err, context.Canceled) || cctx.left > 0 {
		t.Fatalf("GenerateRatings over an existing file, cancelled: %v (%d checks left)", err, cctx.left)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Fatalf("the existing file was changed: %q", got)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 1 {
		t.Fatalf("%d entries in %s, want the old file alone", len(ents), base)
	}
}

// cancelWriter cancels its context at the first write.
type cancelWriter struct {
	cancel func()
	n      int
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.cancel()
	w.n += len(p)
	return len(p), nil
}

// countCtx is a context whose Err reports cancellation from its left-th call.
type countCtx struct {
	context.Context
	left int
}

func (c *countCtx) Err() error {
	if c.left--; c.left <= 0 {
		return context.Canceled
	}
	return nil
}

func BenchmarkWriteRatings(b *testing.B) {
	for b.Loop() {
		if _, err := WriteRatings(context.Background(), io.Discard, RatingsOptions{Rows: SeedRows, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
