package semijoin

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// readCSV reads a whole file with encoding/csv and checks its header.
func readCSV(t *testing.T, path, header string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte(header+"\n")) || bytes.Contains(data, []byte("\r")) || !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("%s: want the header %q and LF line ends", path, header)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll() // every record as long as the header
	if err != nil {
		t.Fatalf("%s: encoding/csv: %v", path, err)
	}
	return recs[1:]
}

func write(t *testing.T, opt Options) (Result, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	res, err := Write(t.Context(), dir, opt)
	if err != nil {
		t.Fatalf("Write(%+v): %v", opt, err)
	}
	return res, dir
}

var (
	stringKey = regexp.MustCompile(`^k[0-9a-f]{16}$`)
	decimal   = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
)

// checkKey checks that a key has its shape's text.
func checkKey(t *testing.T, shape Shape, key string) {
	t.Helper()
	switch shape {
	case String:
		if !stringKey.MatchString(key) {
			t.Fatalf("string key %q: want k and 16 lowercase hex digits", key)
		}
	default:
		if !decimal.MatchString(key) {
			t.Fatalf("%s key %q: want a canonical decimal", shape, key)
		}
		v, err := strconv.ParseInt(key, 10, 64)
		if err != nil || v < 0 || v >= 1<<62 {
			t.Fatalf("%s key %q: want a non-negative int64 below 2^62 (%v)", shape, key, err)
		}
	}
}

// TestWrite: for each shape and selectivity, the key file holds Keys
// distinct keys, exactly round(Selectivity*Rows) input rows have a key, the
// others draw from at most Distinct non-member keys, and the rows are
// numbered 1..Rows with the fixed pad.
func TestWrite(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, shape := range []Shape{Dense, Sparse, String} {
		for _, sel := range []float64{0, 0.001, 0.2, 1} {
			for _, size := range []struct {
				keys     int
				rows     int64
				distinct int64
			}{{1, 0, 0}, {1, 1000, 0}, {37, 5000, 7}, {1000, 20000, 0}, {4096, 3001, 1}} {
				opt := Options{Keys: size.keys, Rows: size.rows, Selectivity: sel, Shape: shape, Distinct: size.distinct, Seed: 5}
				t.Run(fmt.Sprintf("%s/%g/%d-%d-%d", shape, sel, size.keys, size.rows, size.distinct), func(t *testing.T) {
					testWrite(t, opt)
				})
			}
		}
	}
}

func testWrite(t *testing.T, opt Options) {
	res, dir := write(t, opt)
	distinct := opt.Distinct
	if distinct == 0 {
		distinct = DefaultDistinct(opt.Rows)
	}
	if res.KeysPath != filepath.Join(dir, KeysFile) || res.InputPath != filepath.Join(dir, InputFile) {
		t.Fatalf("paths %q, %q", res.KeysPath, res.InputPath)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("%d entries in %s, want the two files", len(ents), dir)
	}
	keys := readCSV(t, res.KeysPath, KeysHeader)
	set := make(map[string]bool, len(keys))
	for j, rec := range keys {
		key, pay := rec[0], rec[1]
		checkKey(t, opt.Shape, key)
		if set[key] {
			t.Fatalf("key %q twice", key)
		}
		set[key] = true
		idx, err := strconv.Atoi(strings.TrimPrefix(pay, "p"))
		if !strings.HasPrefix(pay, "p") || err != nil || idx < 0 || idx >= opt.Keys || "p"+strconv.Itoa(idx) != pay {
			t.Fatalf("key line %d: PAY %q: want p and an index 0..%d", j+1, pay, opt.Keys-1)
		}
		if opt.Shape == Dense && key != strconv.Itoa(idx) {
			t.Fatalf("dense key %q has index %d", key, idx)
		}
	}
	if len(keys) != opt.Keys || res.Keys != opt.Keys {
		t.Fatalf("%d keys (Result %d), want %d", len(keys), res.Keys, opt.Keys)
	}
	if opt.Shape == Dense {
		for k := range opt.Keys {
			if !set[strconv.Itoa(k)] {
				t.Fatalf("dense keys lack %d", k)
			}
		}
	}
	input := readCSV(t, res.InputPath, InputHeader)
	if int64(len(input)) != opt.Rows || res.Rows != opt.Rows {
		t.Fatalf("%d input rows (Result %d), want %d", len(input), res.Rows, opt.Rows)
	}
	var members int64
	others := map[string]bool{}
	for r, rec := range input {
		if rec[0] != strconv.Itoa(r+1) || rec[2] != Pad || len(Pad) != 16 {
			t.Fatalf("input line %d: %q", r+1, rec)
		}
		checkKey(t, opt.Shape, rec[1])
		if set[rec[1]] {
			members++
			continue
		}
		others[rec[1]] = true
		if opt.Shape == Dense {
			if v, _ := strconv.ParseInt(rec[1], 10, 64); v < int64(opt.Keys) || v >= int64(opt.Keys)+distinct {
				t.Fatalf("dense non-member key %d: want %d..%d", v, opt.Keys, int64(opt.Keys)+distinct-1)
			}
		}
	}
	want := int64(math.Round(opt.Selectivity * float64(opt.Rows)))
	if members != want || res.MemberRows != want || opt.MemberRows() != want {
		t.Fatalf("%d member rows (Result %d, MemberRows %d), want exactly %d", members, res.MemberRows, opt.MemberRows(), want)
	}
	if int64(len(others)) > distinct {
		t.Fatalf("%d distinct non-member keys, want at most Distinct %d", len(others), distinct)
	}
	if opt.Rows-members >= 100*distinct && int64(len(others)) != distinct {
		t.Errorf("%d non-member rows drew only %d of the %d non-member keys", opt.Rows-members, len(others), distinct)
	}
}

// TestSpread: the member rows are spread over the file, the keys are drawn
// from all the keys, and the key file is not in index order.
func TestSpread(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, shape := range []Shape{Dense, Sparse, String} {
		opt := Options{Keys: 1000, Rows: 40000, Selectivity: 0.25, Shape: shape, Seed: 9}
		res, _ := write(t, opt)
		keys := readCSV(t, res.KeysPath, KeysHeader)
		set := map[string]bool{}
		inOrder := 0
		for j, rec := range keys {
			set[rec[0]] = true
			if rec[1] == "p"+strconv.Itoa(j) {
				inOrder++
			}
		}
		if inOrder > 50 {
			t.Errorf("%s: %d of %d keys at their index's line: want a shuffled key file", shape, inOrder, len(keys))
		}
		var quarter [4]int
		used := map[string]bool{}
		for r, rec := range readCSV(t, res.InputPath, InputHeader) {
			if set[rec[1]] {
				quarter[4*r/int(opt.Rows)]++
				used[rec[1]] = true
			}
		}
		for q, n := range quarter {
			if n < 2200 || n > 2800 { // 2500 each, sd about 37
				t.Errorf("%s: %d members in quarter %d of the file, want about 2500", shape, n, q+1)
			}
		}
		if len(used) < 990 { // 10,000 draws over 1000 keys miss about 0.05
			t.Errorf("%s: the member rows use %d of the 1000 keys", shape, len(used))
		}
	}
}

// TestDeterministic: the same seed gives the same bytes, another seed other
// bytes, for both files.
func TestDeterministic(t *testing.T) {
	for _, shape := range []Shape{Dense, Sparse, String} {
		opt := Options{Keys: 500, Rows: 5000, Selectivity: 0.3, Shape: shape, Seed: 11}
		files := func(opt Options) [2][]byte {
			res, _ := write(t, opt)
			var out [2][]byte
			for k, p := range []string{res.KeysPath, res.InputPath} {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				out[k] = b
			}
			return out
		}
		a, b := files(opt), files(opt)
		opt.Seed++
		c := files(opt)
		for k, name := range []string{KeysFile, InputFile} {
			if !bytes.Equal(a[k], b[k]) {
				t.Errorf("%s: %s differs between two runs of seed 11", shape, name)
			}
			if bytes.Equal(a[k], c[k]) {
				t.Errorf("%s: %s is the same for seeds 11 and 12", shape, name)
			}
		}
	}
}

// TestOptionErrors: invalid options are an option.Error naming the field,
// wrapping ErrOptions, and nothing is written.
func TestOptionErrors(t *testing.T) {
	good := Options{Keys: 10, Rows: 100, Selectivity: 0.5, Shape: Sparse, Seed: 1}
	for _, tc := range []struct {
		name string
		edit func(*Options)
	}{
		{"Keys", func(o *Options) { o.Keys = 0 }},
		{"Keys", func(o *Options) { o.Keys = -3 }},
		{"Keys", func(o *Options) { o.Keys = MaxKeys + 1 }},
		{"Rows", func(o *Options) { o.Rows = -1 }},
		{"Rows", func(o *Options) { o.Rows = MaxRows + 1 }},
		{"Selectivity", func(o *Options) { o.Selectivity = -0.01 }},
		{"Selectivity", func(o *Options) { o.Selectivity = 1.0001 }},
		{"Selectivity", func(o *Options) { o.Selectivity = math.NaN() }},
		{"Selectivity", func(o *Options) { o.Selectivity = math.Inf(1) }},
		{"Shape", func(o *Options) { o.Shape = 3 }},
		{"Shape", func(o *Options) { o.Shape = -1 }},
		{"Distinct", func(o *Options) { o.Distinct = -1 }},
		{"Distinct", func(o *Options) { o.Distinct = MaxDistinct + 1 }},
		{"Zipf", func(o *Options) { o.Zipf = 1 }},
		{"Zipf", func(o *Options) { o.Zipf = 0.5 }},
		{"Zipf", func(o *Options) { o.Zipf = -2 }},
		{"Zipf", func(o *Options) { o.Zipf = MaxZipf + 0.1 }},
		{"Zipf", func(o *Options) { o.Zipf = math.NaN() }},
	} {
		opt := good
		tc.edit(&opt)
		dir := filepath.Join(t.TempDir(), "out")
		_, err := Write(t.Context(), dir, opt)
		var oe *option.Error
		if !errors.As(err, &oe) || oe.Name != tc.name || oe.Pkg != "semijoin" || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("Write(%+v) = %v, want an option.Error naming %s", opt, err, tc.name)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("Write(%+v) made %s", opt, dir)
		}
	}
	for _, s := range []Shape{Dense, Sparse, String} {
		if got, err := ParseShape(s.String()); err != nil || got != s {
			t.Errorf("ParseShape(%q) = %v, %v", s.String(), got, err)
		}
	}
	for _, name := range []string{"", "Dense", "int", "strings"} {
		_, err := ParseShape(name)
		var oe *option.Error
		if !errors.As(err, &oe) || oe.Name != "Shape" || !strings.Contains(err.Error(), "dense, sparse or string") {
			t.Errorf("ParseShape(%q) = %v, want an option.Error naming Shape", name, err)
		}
	}
	if d := Defaults(1); d.Keys != DefaultKeys || d.Rows != DefaultRows || d.Check() != nil {
		t.Errorf("Defaults(1) = %+v", d)
	}
	if DefaultDistinct(0) != 1 || DefaultDistinct(3) != 1 || DefaultDistinct(2_000_000) != 500_000 {
		t.Error("DefaultDistinct: want max(1, rows/4)")
	}
}

// afterCtx is a context whose Err is context.Canceled from its n-th call on:
// a cancellation in the middle of a file.
type afterCtx struct {
	context.Context
	n int
}

func (c *afterCtx) Err() error {
	if c.n--; c.n <= 0 {
		return context.Canceled
	}
	return nil
}

// TestCancel: a cancelled context, before or while writing either file,
// returns context.Canceled and leaves no file (and no folder Write made; a
// folder that was there stays, empty).
func TestCancel(t *testing.T) {
	opt := Options{Keys: 50000, Rows: 100000, Selectivity: 0.5, Shape: String, Seed: 1}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{
		{"before", cancelled},
		{"keys", &afterCtx{Context: t.Context(), n: 3}},   // in the key file
		{"input", &afterCtx{Context: t.Context(), n: 20}}, // past the 13 checks of the key file
	} {
		for _, existing := range []bool{false, true} {
			dir := filepath.Join(t.TempDir(), "out")
			if existing {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Write(tc.ctx, dir, opt)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Write = %v, want context.Canceled", tc.name, err)
			}
			ents, statErr := os.ReadDir(dir)
			if existing && (statErr != nil || len(ents) != 0) || !existing && !os.IsNotExist(statErr) {
				t.Errorf("%s (folder there: %v): left %v (%v)", tc.name, existing, ents, statErr)
			}
		}
	}
}

// BenchmarkWrite: the default sizes, string keys.
func BenchmarkWrite(b *testing.B) {
	opt := Defaults(1)
	opt.Shape = String
	opt.Selectivity = 0.02
	dir := b.TempDir()
	for b.Loop() {
		if _, err := Write(b.Context(), dir, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(opt.Rows), "ns/row")
}

// TestZipf: with Zipf s the selectivity is still exact, and the share of
// the rows of each group's most frequent keys is their Zipf probability
// (1+r)^-s / H, H the sum over the group, within 4 binomial sd.
func TestZipf(t *testing.T) {
	testutil.SkipUnderRace(t)
	opt := Options{Keys: 50, Rows: 200_000, Selectivity: 0.3, Shape: Dense, Distinct: 1000, Zipf: 1.3, Seed: 5}
	res, dir := write(t, opt)
	rows := readCSV(t, filepath.Join(dir, InputFile), InputHeader)
	counts := map[string]int{}
	for _, r := range rows {
		counts[r[1]]++
	}
	if res.MemberRows != opt.MemberRows() {
		t.Fatalf("%d member rows, want %d", res.MemberRows, opt.MemberRows())
	}
	for _, g := range []struct {
		first, size int
		rows        int64
	}{{0, opt.Keys, res.MemberRows}, {opt.Keys, int(opt.Distinct), opt.Rows - res.MemberRows}} {
		var h float64
		for r := range g.size {
			h += math.Pow(float64(1+r), -opt.Zipf)
		}
		for r := range 5 {
			p := math.Pow(float64(1+r), -opt.Zipf) / h
			n := float64(g.rows)
			got, sd := float64(counts[fmt.Sprint(g.first+r)]), math.Sqrt(n*p*(1-p))
			if math.Abs(got-n*p) > 4*sd {
				t.Errorf("key %d: %v rows, want %.0f (4 sd %.0f)", g.first+r, got, n*p, 4*sd)
			}
		}
	}
}
