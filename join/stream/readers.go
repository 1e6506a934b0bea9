package stream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	opt "github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
	"github.com/acbfjoin/acbfjoin/sketch/cms"
	"github.com/acbfjoin/acbfjoin/where"
)

// rows is how a side's rows are read: a *csvscan.Reader, or a table's
// rows in order (*columnar.Reader, whose NULLs Null says).
type rows interface {
	Next() bool
	Fields() [][]byte
	Raw() []byte
	Line() int64
	Err() error
	Errorf(format string, a ...any) error
}

// side is one opened input: its rows after the header (or the schema).
type side struct {
	name   string
	path   string
	rc     io.Closer
	r      rows
	header []string
	types  []columnar.Type // a table's; nil for CSV
	tab    *columnar.Table // a table's; nil for CSV
	sep    byte
	ops    *opReader // key events only
}

// sideFile is a side's file as the options give it: its path, which
// option names (KeyEvents, Probe), the name messages give it, and its
// format (columnar.FormatOf's: empty for the path's).
type sideFile struct {
	option, path, name, format string
}

// openSide opens the side's file and reads its header: CSV, or a table of
// its format (Parquet, Arrow: columnar.FormatOf; a Parquet stream is saved
// to a file in tempDir first). events selects the key events format
// (operations before records), which is text.
func openSide(ctx context.Context, sf sideFile, tempDir string, events bool) (*side, error) {
	option, path, name, format := sf.option, sf.path, sf.name, sf.format
	files, many, err := source.Files(path, format)
	if err != nil {
		return nil, join.FileError(option, path, err)
	}
	f, err := columnar.FormatOf(files[0], format)
	if err != nil {
		return nil, join.FormatOptionError("stream", option, path, err, ErrOptions)
	}
	if many && events {
		return nil, &opt.Error{Pkg: "stream", Name: option, Value: path, Err: ErrOptions,
			Reason: "key events are one stream, in order: give one file"}
	}
	if many && f == columnar.CSV {
		return openChain(ctx, option, path, name, files)
	}
	if f != columnar.CSV {
		if events {
			return nil, &opt.Error{Pkg: "stream", Name: option, Value: path, Err: ErrOptions,
				Reason: fmt.Sprintf("key events (+row, -key lines) are text, and this is %s: a table is a key side with a window (timed rows)", f)}
		}
		// The input layer's (source.Open), as the batch join opens it.
		in, err := source.Open(ctx, source.Options{Option: option, Path: path, Name: name, Format: string(f), TempDir: tempDir}) // checkNested
		if err != nil {
			return nil, err
		}
		t := in.Tab
		return &side{name: in.Name, path: path, rc: t, r: columnar.NewReader(t), header: in.Header, types: in.Types, tab: t, sep: ','}, nil
	}
	rc, _, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return nil, join.FileError(option, path, err)
	}
	s := &side{name: name, path: path, rc: rc, sep: csvscan.SepFor(name)}
	var src io.Reader = rc
	if events {
		s.ops = newOpReader(rc)
		src = s.ops
	}
	r := csvscan.NewReader(src, name)
	s.r = r
	if err := r.SetSep(s.sep); err != nil {
		rc.Close()
		return nil, err
	}
	if s.header, err = r.ReadHeader(); err != nil {
		rc.Close()
		return nil, err
	}
	if events {
		r.AnyFieldCount()
	}
	return s, nil
}

// null reports whether the current row has a NULL in a key column of ks
// (key.Spec.IsNull: a table's NULL, a CSV side's empty field).
func (s *side) null(ks key.Spec, fields [][]byte) bool {
	return ks.IsNull(key.NullsOf(s.r), fields)
}

// sources are the key columns ks as key.Decide takes them (the input
// layer's rule: source.Side.Sources).
func (s *side) sources(ks key.Spec) []key.Source {
	return source.KeySources(s.name, s.types, ks)
}

func (s *side) Close() error { return s.rc.Close() }

// keyRec is a key event or a timed key row, parsed: its key, its other
// fields as the output appends them (join.MapKeyRow's CSV), its time.
type keyRec struct {
	op       byte // '+' or '-', or 0: a NULL or unmatchable key's event, which changes nothing but takes its place in its batch
	key, row []byte
	t        int64
	line     int64
	// offsets of key and row in the batch's arena while it is read (the
	// arena moves as it grows); finish sets key and row from them.
	k0, k1, r1 int
}

// keyBatch is a run of key records, their bytes in one arena.
type keyBatch struct {
	recs  []keyRec
	arena []byte
	err   error // after recs
}

// probeRec is a probe row: its key, the row as the output writes it, its
// time.
type probeRec struct {
	key, raw []byte
	null     bool // a NULL or unmatchable key (kept for an anti join only)
	t        int64
	line     int64
	k1, r1   int // offsets in the arena while it is read: key at [start, k1), row at [k1, r1)
	start    int
}

type probeBatch struct {
	sketch *cms.Sketch // the batch's keys (sketches.observe)
	hot    []HotKey    // the hot probe keys up to this batch
	recs   []probeRec
	arena  []byte
	first  int64 // index of the batch's first row among all probe rows
	err    error
}

// keyReader reads key records: events ("+row", "-key") or timed rows.
type keyReader struct {
	s     *side
	ks    key.Spec
	del   key.Spec // a delete's fields: the key columns in order (newKeyReader)
	tcol  int      // timed rows: the time column, else -1
	clock clock
	seq   int64
	// A NULL key is counted in cannot and skipped under every key type;
	// lenient: the key type was decided (key.Decision), so a key that is
	// no value of it is too, where with a type given it is an error.
	lenient bool
	cannot  cannotCounts
}

// cannotCounts counts the rows of a side left out for a key that cannot
// match; read by the report after the reader is done.
type cannotCounts struct {
	null, unmatchable atomic.Int64
}

// clock reads a side's time column and checks that it never goes back.
type clock struct {
	started bool
	last    int64
	lastLn  int64
}

// read parses the time of the current record of r and checks its order.
func (c *clock) read(r rows, header []string, fields [][]byte, col int) (int64, error) {
	t, err := csvscan.ParseInt(fields[col])
	if err != nil {
		return 0, r.Errorf("time column %s: %q is not an integer", header[col], fields[col])
	}
	if c.started && t < c.last {
		return 0, r.Errorf("time %d of column %s is before %d of line %d: timed rows must be in time order (sort the file by %s)",
			t, header[col], c.last, c.lastLn, header[col])
	}
	c.started, c.last, c.lastLn = true, t, r.Line()
	return t, nil
}

// read appends up to n records to b. It reports false at the end of input
// or an error (b.err).
func (kr *keyReader) read(b *keyBatch, n int) bool {
	r := kr.s.r
	for len(b.recs) < n {
		if !r.Next() {
			if err := r.Err(); err != nil {
				b.err = err
			}
			return false
		}
		fields := r.Fields()
		op := byte('+')
		if kr.s.ops != nil {
			var ok bool
			if op, ok = kr.s.ops.popOp(); !ok {
				b.err = r.Errorf("internal error: no operation for this record") // the opReader's queue and csvscan disagree: a bug
				return false
			}
		}
		rec := keyRec{op: op, line: r.Line()}
		start := len(b.arena)
		var err error
		switch op {
		case '+':
			if len(fields) != len(kr.s.header) {
				b.err = r.Errorf("an insert (+) has %d fields, want the header's %d", len(fields), len(kr.s.header))
				return false
			}
			if kr.s.null(kr.ks, fields) {
				kr.cannot.null.Add(1)
				rec.op = 0
				break
			}
			var sr shuffle.Record
			sr, b.arena, err = join.MapKeyRow(&kr.ks, fields, kr.seq, b.arena)
			if err != nil && key.Unmatchable(err, kr.lenient) {
				kr.cannot.unmatchable.Add(1)
				b.arena, rec.op = b.arena[:start], 0
				break
			}
			if err != nil {
				b.err = r.Errorf("%w", err)
				return false
			}
			rec.k0, rec.k1, rec.r1 = start, start+len(sr.Key), len(b.arena)
		case '-':
			if len(fields) != len(kr.ks.Cols) {
				b.err = r.Errorf("a delete (-) has %d fields, want the key's %d (%s)", len(fields), len(kr.ks.Cols), kr.ks.Label())
				return false
			}
			// The delete's fields are the key columns in order: a KeySpec
			// over them. A key that cannot match was never inserted.
			if kr.s.null(kr.del, fields) {
				kr.cannot.null.Add(1)
				rec.op = 0
				break
			}
			if b.arena, err = kr.del.Append(b.arena, fields); err != nil {
				if key.Unmatchable(err, kr.lenient) {
					b.arena = b.arena[:start]
					kr.cannot.unmatchable.Add(1)
					rec.op = 0
					break
				}
				b.err = r.Errorf("%w", err)
				return false
			}
			rec.k0, rec.k1, rec.r1 = start, len(b.arena), len(b.arena)
		default:
			b.err = r.Errorf("a key event starts with + (insert) or - (delete), not %q", rune(op))
			return false
		}
		// A NULL or unmatchable key's event (op 0) still takes its place
		// in its batch: batch i is events [i*KeyBatch, (i+1)*KeyBatch)
		// counted with them, as docs/stream.md defines it (a review
		// found later events applied a batch early), and a timed one's
		// time is in order too.
		if kr.tcol >= 0 && (rec.op != 0 || len(fields) > kr.tcol) {
			if rec.t, b.err = kr.clock.read(r, kr.s.header, fields, kr.tcol); b.err != nil {
				return false
			}
		}
		rec.k0, rec.k1, rec.r1 = max(rec.k0, start), max(rec.k1, start), max(rec.r1, start)
		kr.seq++
		b.recs = append(b.recs, rec)
	}
	return true
}

// newKeyReader reads the key records of s whose key is ks; tcol is the
// time column (timed rows) or -1.
func newKeyReader(s *side, ks key.Spec, tcol int) *keyReader {
	// A delete's fields are the key columns, in order: a KeySpec over them.
	del := key.Spec{Names: ks.Names, Types: ks.Types, Wide: ks.Wide}
	for i := range ks.Cols {
		del.Cols = append(del.Cols, i)
	}
	return &keyReader{s: s, ks: ks, del: del, tcol: tcol}
}

// finish points the records' slices into the arena, which no longer grows.
func (b *keyBatch) finish() {
	for i := range b.recs {
		r := &b.recs[i]
		r.key, r.row = b.arena[r.k0:r.k1:r.k1], b.arena[r.k1:r.r1:r.r1]
	}
}

func (b *keyBatch) reset() {
	b.recs, b.arena, b.err = b.recs[:0], b.arena[:0], nil
}

func (b *probeBatch) finish() {
	for i := range b.recs {
		r := &b.recs[i]
		r.key, r.raw = b.arena[r.start:r.k1:r.k1], b.arena[r.k1:r.r1:r.r1]
	}
}

func (b *probeBatch) reset() {
	b.recs, b.arena, b.err, b.hot = b.recs[:0], b.arena[:0], nil, nil
}

// probeReader reads probe rows.
type probeReader struct {
	s        *side
	ks       key.Spec
	tcol     int
	clock    clock
	rows     int64
	lenient  bool // as keyReader's
	cannot   cannotCounts
	keepNull bool // a row whose key cannot match stays in its batch (marked null)
	// where selects the rows (Options.Where; nil: all), dropped the rows
	// it rejected.
	where   *where.Pred
	dropped atomic.Int64
}

func (pr *probeReader) read(b *probeBatch, n int) bool {
	r := pr.s.r
	b.first = pr.rows
	for len(b.recs) < n {
		if !r.Next() {
			if err := r.Err(); err != nil {
				b.err = err
			}
			return false
		}
		fields := r.Fields()
		if pr.where != nil {
			ok, err := pr.where.Match(fields, key.NullsOf(r))
			if err != nil {
				b.err = r.Errorf("%w", err)
				return false
			}
			if !ok {
				pr.dropped.Add(1)
				continue
			}
		}
		rec := probeRec{line: r.Line(), start: len(b.arena)}
		if pr.s.null(pr.ks, fields) {
			pr.cannot.null.Add(1)
			if !pr.keepNull {
				continue
			}
			rec.null = true
		}
		var err error
		if rec.null {
		} else if b.arena, err = pr.ks.Append(b.arena, fields); err != nil {
			if key.Unmatchable(err, pr.lenient) {
				b.arena = b.arena[:rec.start]
				pr.cannot.unmatchable.Add(1)
				if !pr.keepNull {
					continue
				}
				rec.null = true
			} else {
				b.err = r.Errorf("%w", err)
				return false
			}
		}
		rec.k1 = len(b.arena)
		if raw := r.Raw(); csvscan.PassRaw(raw, pr.s.sep) {
			b.arena = append(b.arena, raw...)
		} else { // the output is CSV: re-encode a TSV row, or one with a CR
			b.arena = csvscan.AppendFields(b.arena, fields)
		}
		rec.r1 = len(b.arena)
		if pr.tcol >= 0 {
			if rec.t, b.err = pr.clock.read(r, pr.s.header, fields, pr.tcol); b.err != nil {
				return false
			}
		}
		b.recs = append(b.recs, rec)
		pr.rows++
	}
	return true
}

// chain reads the rows of a probe side of many CSV files (a folder or a
// glob: source.Files) one file after the other, in the order of their
// names; each file's header is read and must be the first's. Its rows
// are named by their file and line.
type chain struct {
	ctx    context.Context
	option string
	files  []string
	header []string
	first  string // the file whose header is the side's (the first not empty)
	sep    byte   // every file's: the first's name's (source.Files refuses two)
	next   int
	cur    *csvscan.Reader
	rc     io.Closer
	err    error
}

// openChain opens the first of files and reads its header: the side's.
func openChain(ctx context.Context, option, path, name string, files []string) (*side, error) {
	c := &chain{ctx: ctx, option: option, files: files, sep: csvscan.SepFor(files[0])}
	if !c.open() {
		return nil, c.err
	}
	return &side{name: cmp.Or(name, path), path: path, rc: c, r: c, header: c.header, sep: c.sep}, nil
}

// open opens the next file and reads its header; false with c.err set
// when it fails or differs from the first's. An empty file (no header) of
// several is skipped, as csvscan.OpenInputs skips one for run: it holds
// no row; false with no error when the files left are all empty, and
// the first one's error when every file is.
func (c *chain) open() bool {
	var empty error
	for {
		if c.openFile() {
			return true
		}
		if len(c.files) < 2 || !errors.Is(c.err, csvscan.ErrNoHeader) {
			return false
		}
		if empty == nil {
			empty = c.err
		}
		c.err = nil
		if c.next >= len(c.files) {
			if c.header == nil {
				c.err = empty
			}
			return false
		}
	}
}

// openFile opens the next file and reads its header; false with c.err set
// when it fails or differs from the first's.
func (c *chain) openFile() bool {
	path := c.files[c.next]
	c.next++
	rc, name, err := csvscan.OpenContext(c.ctx, path)
	if err != nil {
		c.err = join.FileError(c.option, path, err)
		return false
	}
	r := csvscan.NewReader(rc, name)
	if err := r.SetSep(c.sep); err != nil {
		rc.Close()
		c.err = err
		return false
	}
	header, err := r.ReadHeader()
	if err != nil {
		rc.Close()
		c.err = err
		return false
	}
	if c.header == nil {
		c.header, c.first = header, name
	} else if d := csvscan.DiffNames(c.first, c.header, name, header); d != "" {
		rc.Close()
		c.err = fmt.Errorf("%s: %w", d, csvscan.ErrHeaderDiffers)
		return false
	}
	c.cur, c.rc = r, rc
	return true
}

func (c *chain) Next() bool {
	for c.err == nil {
		if c.cur.Next() {
			return true
		}
		if err := c.cur.Err(); err != nil {
			c.err = err
			return false
		}
		if c.next >= len(c.files) {
			return false
		}
		c.rc.Close()
		c.rc = closedFile{} // open may find only empty files: Close closes nothing twice
		if !c.open() {
			return false
		}
	}
	return false
}

// closedFile is a chain's file once closed.
type closedFile struct{}

func (closedFile) Close() error { return nil }

func (c *chain) Fields() [][]byte { return c.cur.Fields() }
func (c *chain) Raw() []byte      { return c.cur.Raw() }
func (c *chain) Line() int64      { return c.cur.Line() }
func (c *chain) Err() error       { return c.err }
func (c *chain) Errorf(format string, a ...any) error {
	return c.cur.Errorf(format, a...)
}
func (c *chain) Close() error { return c.rc.Close() }
