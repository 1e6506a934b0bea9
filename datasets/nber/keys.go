package nber

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/where"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// Predicate keeps records whose column Column equals Value (unquoted, exact).
type Predicate struct{ Column, Value string }

// ParsePredicate parses "COL=VALUE".
func ParsePredicate(s string) (Predicate, error) {
	col, val, ok := strings.Cut(s, "=")
	if !ok || col == "" {
		return Predicate{}, fmt.Errorf("predicate %q: want COLUMN=VALUE", s)
	}
	return Predicate{col, val}, nil
}

// ErrNoColumn is wrapped by the error of a predicate on a column the file
// has not.
var ErrNoColumn = errors.New("nber: no such column")

// PaperSample returns the key sample the paper's ratio takes from a patent
// file of rows records: 65,771 of 2,923,922, at least one.
func PaperSample(rows int64) int {
	return max(1, int(math.Round(float64(PaperKeySample)*float64(rows)/PatRows)))
}

// CountRecords returns the records of a CSV file after its header (zip and
// gzip read as the other functions read them). O(bytes).
func CountRecords(ctx context.Context, path string) (int64, error) {
	rc, name, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	r := csvscan.NewReader(rc, name)
	if _, err := r.ReadHeader(); err != nil {
		return 0, err
	}
	var n int64
	for r.Next() {
		if n++; n%(1<<16) == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
	}
	return n, r.Err()
}

// KeysOptions configures ExtractKeys.
type KeysOptions struct {
	Sample int    // records to keep; the paper's 65,771 by default (0)
	Seed   uint64 // sampling seed
	Where  []Predicate
	// Expr, if set, keeps only the records for which this expression over
	// the file's columns holds (package where, the language of the join's
	// Options.Where), besides Where.
	Expr string
}

// IsPredicate reports whether s is a COLUMN=VALUE predicate (ParsePredicate's
// form: one '=', not part of ==, !=, <= or >=, after a name without an
// operator or a space) rather than an expression of package where.
func IsPredicate(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 || i+1 < len(s) && s[i+1] == '=' {
		return false
	}
	return !strings.ContainsAny(s[:i], "!<>= \t()\"'")
}

// KeysResult describes an extraction.
type KeysResult struct {
	Scanned, Matched, Kept int64
}

// ExtractKeys writes to w the header of the patent file at path and a uniform
// random sample of Sample of its records that satisfy every predicate, in file
// order and as they appear in the file. With fewer matching records than
// Sample, all are kept. Sampling is reservoir sampling (Vitter's Algorithm R)
// with a splitmix64 stream from Seed, so the same file, seed and predicates give
// the same keys. Memory: the kept records. O(records).
func ExtractKeys(path string, w io.Writer, opt KeysOptions) (KeysResult, error) {
	return ExtractKeysContext(context.Background(), path, w, opt)
}

// rowReader is a CSV reader's or a table's rows: fields, and the row as a
// CSV line (a table's rendered canonically).
type rowReader interface {
	Next() bool
	Fields() [][]byte
	Raw() []byte
	Err() error
}

// openRows opens path as a side is opened (columnar.FormatOf: a Parquet or
// Arrow file by its extension, else CSV through csvscan) and reads its
// header: names, and the header as a CSV line.
func openRows(ctx context.Context, path string) (r rowReader, name string, header []string, types []columnar.Type, headerRaw []byte, closeRows func() error, err error) {
	format, err := columnar.FormatOf(path, "")
	if err != nil {
		return nil, "", nil, nil, nil, nil, err
	}
	if format != columnar.CSV {
		t, err := columnar.Open(ctx, path, "", format, "")
		if err != nil {
			return nil, "", nil, nil, nil, nil, err
		}
		return columnar.NewReader(t), t.Name, t.Names, t.Types, csvscan.AppendNames(nil, t.Names), t.Close, nil
	}
	rc, name, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return nil, "", nil, nil, nil, nil, err
	}
	cr := csvscan.NewReader(rc, name)
	header, err = cr.ReadHeader()
	if err != nil {
		rc.Close()
		return nil, "", nil, nil, nil, nil, err
	}
	return cr, name, header, nil, slices.Clone(cr.Raw()), rc.Close, nil
}

// ExtractKeysContext is ExtractKeys that gives up waiting for a FIFO's writer,
// or a stream's next bytes, when ctx ends.
func ExtractKeysContext(ctx context.Context, path string, w io.Writer, opt KeysOptions) (KeysResult, error) {
	if opt.Sample == 0 {
		opt.Sample = PaperKeySample
	}
	if opt.Sample < 0 {
		return KeysResult{}, fmt.Errorf("keys: sample %d, want > 0", opt.Sample)
	}
	r, name, header, types, headerRaw, closeRows, err := openRows(ctx, path)
	if err != nil {
		return KeysResult{}, err
	}
	defer closeRows()
	var pred *where.Pred
	if pred, err = where.CompileOption("nber", "Where", opt.Expr, name, header, types, nil); err != nil {
		return KeysResult{}, err
	}
	cols := make([]int, len(opt.Where))
	for i, p := range opt.Where {
		cols[i] = slices.Index(header, p.Column)
		if cols[i] < 0 {
			return KeysResult{}, &option.Error{Pkg: "nber", Name: "Where", Value: p.Column + "=" + p.Value,
				Reason: fmt.Sprintf("%s has no column %q (columns: %s)", name, p.Column, quoteNames(header)), Err: ErrNoColumn}
		}
	}
	type kept struct {
		seq int64
		raw []byte
	}
	res := KeysResult{}
	reservoir := make([]kept, 0, min(opt.Sample, 1<<20))
	rnd := newRNG(opt.Seed, 5, 0)
records:
	for r.Next() {
		res.Scanned++
		f := r.Fields()
		for i, c := range cols {
			if string(f[c]) != opt.Where[i].Value {
				continue records
			}
		}
		if pred != nil {
			ok, err := pred.Match(f, key.NullsOf(r))
			if err != nil {
				return KeysResult{}, fmt.Errorf("%s: record %d: %w", name, res.Scanned, err)
			}
			if !ok {
				continue records
			}
		}
		res.Matched++
		if len(reservoir) < opt.Sample {
			reservoir = append(reservoir, kept{res.Matched, slices.Clone(r.Raw())})
			continue
		}
		// Algorithm R: the m-th match replaces a random slot with probability
		// Sample/m.
		if j := int64(rnd.next() % uint64(res.Matched)); j < int64(opt.Sample) {
			reservoir[j] = kept{res.Matched, append(reservoir[j].raw[:0], r.Raw()...)}
		}
	}
	if err := r.Err(); err != nil {
		if ctx.Err() != nil {
			return KeysResult{}, ctx.Err()
		}
		return KeysResult{}, err
	}
	slices.SortFunc(reservoir, func(a, b kept) int { return int(a.seq - b.seq) })
	var buf bytes.Buffer
	buf.Write(headerRaw)
	buf.WriteByte('\n')
	for _, k := range reservoir {
		buf.Write(k.raw)
		buf.WriteByte('\n')
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return KeysResult{}, err // the writer's (a *os.PathError naming its file)
	}
	res.Kept = int64(len(reservoir))
	return res, nil
}

// ExtractKeysFile is ExtractKeys into a file, written under a temporary name and
// renamed when complete.
func ExtractKeysFile(path, out string, opt KeysOptions) (KeysResult, error) {
	var res KeysResult
	err := atomicfile.Write(out, func(f *os.File) error {
		var err error
		res, err = ExtractKeys(path, f, opt)
		return err
	})
	return res, err
}

// quoteNames prints header names quoted: text from a file may hold anything.
func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
