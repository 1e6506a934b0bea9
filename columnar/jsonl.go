package columnar

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"
)

// JSON lines (.jsonl, .ndjson): one JSON object a line, as DuckDB's
// read_json and Polars' read_ndjson read them. The format's whole
// implementation: a pass over the file at open types every top-level key
// (a column, in the order the keys first appear) from its values and cuts
// the file into chunks of jsonlChunk lines; a chunk is read again and
// parsed by the columns asked. A key missing from a line, or null, is
// NULL. A column's type, from all its values:
//
//	every value an integer within int64         int64
//	integers, some beyond int64                 string (their JSON text, exact)
//	numbers, some not integers                  float64
//	true and false                              bool
//	strings                                     string
//	strings and numbers or booleans mixed       string (a number or boolean as its JSON text)
//	an object or an array anywhere              nested (left out with --columns, never read)
//	null everywhere                             string (all NULL)
//
// A blank line is skipped; a line that is no JSON object is an error
// naming the file and the line (ErrFormat). A stream (standard input, a
// pipe) is copied to a file first (Table's spool), for the typing pass.
type jsonlFile struct {
	t      *Table
	f      *os.File
	index  map[string]int // a key's column
	starts []int64        // each chunk's first byte
	rows   []int64        // and rows
	lines  []int64        // and its first line's number
	sizes  []int64        // and bytes
}

// jsonlChunk is the lines of a chunk: a mapper's unit of work.
const jsonlChunk = 1 << 16

// MaxJSONLine is the longest JSON line read (a line break within it, or
// the end): a bound on the memory a line takes, and on what a stream
// without line breaks (/dev/zero) copies before it is refused, as CSV's
// 1 MiB a record is.
const MaxJSONLine = 16 << 20

// errLongLine is the error of a line longer than MaxJSONLine.
func errLongLine(name string, line int64) error {
	return fmt.Errorf("%s:%d: %w: a line longer than %d bytes (%d MiB), the most a JSON line may take: no line break within them (is this JSON lines?)", name, line, ErrFormat, MaxJSONLine, MaxJSONLine>>20)
}

// lineLimit reads r, failing once a line runs past MaxJSONLine or begins
// as no JSON object does (its first byte but spaces and a byte order mark
// is no '{'): a stream of JSON lines is copied through it, so that one
// without line breaks (/dev/zero) or of other bytes (/dev/urandom) stops
// at once, not at the disk's end.
type lineLimit struct {
	r       io.Reader
	name    string
	run     int   // bytes since the last line break
	line    int64 // line breaks read
	started bool  // the line's first byte but spaces was seen
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			l.run, l.started = 0, false
			l.line++
			continue
		}
		if l.run++; l.run > MaxJSONLine {
			return 0, errLongLine(l.name, l.line+1)
		}
		switch {
		case l.started, c == ' ', c == '\t', c == '\r', l.line == 0 && l.run <= 3 && (c == 0xef || c == 0xbb || c == 0xbf):
		case c == '{':
			l.started = true
		default:
			return 0, fmt.Errorf("%s:%d: %w: not a JSON object", l.name, l.line+1, ErrFormat)
		}
	}
	return n, err
}

// The kinds of JSON value a column held (jsonlFile's typing).
const (
	jInt = 1 << iota
	jBig // an integer beyond int64 (its text kept: a string column)
	jFloat
	jBool
	jString
	jNested
)

// openJSONL types the JSON lines of f into t (Names, Types) and indexes
// its chunks. O(the file), one pass.
func openJSONL(ctx context.Context, t *Table, f *os.File) (*jsonlFile, error) {
	b := &jsonlFile{t: t, f: f, index: map[string]int{}}
	var kinds []int
	r := bufio.NewReaderSize(&lineLimit{r: f, name: t.Name}, 1<<20)
	var off int64
	var line, rows int64
	for {
		text, err := r.ReadBytes('\n')
		if err != nil && err != io.EOF { // a line too long (lineLimit, naming the file), or a read's error: before its partial text
			if errors.Is(err, ErrFormat) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		if len(text) > 0 {
			line++
			if line%8192 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if rows%jsonlChunk == 0 && len(bytes.TrimSpace(text)) > 0 {
				if n := len(b.starts); n > 0 {
					b.sizes = append(b.sizes, off-b.starts[n-1])
				}
				b.starts, b.rows, b.lines = append(b.starts, off), append(b.rows, 0), append(b.lines, line)
			}
			ok, perr := eachField(text, func(k string, v json.RawMessage) error {
				c, seen := b.index[k]
				if !seen {
					c = len(t.Names)
					b.index[k] = c
					t.Names = append(t.Names, k)
					kinds = append(kinds, 0)
				}
				kind, err := kindOf(v)
				kinds[c] |= kind
				return err
			})
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w: %v", t.Name, line, ErrFormat, perr)
			}
			if ok {
				rows++
				b.rows[len(b.rows)-1]++
			}
			off += int64(len(text))
		}
		if err == io.EOF {
			break
		}
	}
	if n := len(b.starts); n > 0 {
		b.sizes = append(b.sizes, off-b.starts[n-1])
	}
	if len(t.Names) == 0 {
		return nil, fmt.Errorf("%s: %w: %w", t.Name, ErrFormat, ErrNoObject)
	}
	for _, k := range kinds {
		t.Types = append(t.Types, typeOfKinds(k))
	}
	return b, nil
}

// ErrNoObject marks a JSON lines file without an object (empty, or
// blank lines only): no column. One of several files of a side is
// skipped (OpenFiles): it holds no row.
var ErrNoObject = errors.New("no JSON object, so no column")

// eachField calls fn with each key and value of the JSON object on a line;
// ok false for a blank line.
func eachField(text []byte, fn func(k string, v json.RawMessage) error) (ok bool, err error) {
	text = bytes.TrimSpace(bytes.TrimPrefix(text, []byte("\ufeff"))) // a byte order mark, as writers on Windows put first
	if len(text) == 0 {
		return false, nil
	}
	if text[0] != '{' {
		return false, errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	if _, err := dec.Token(); err != nil { // {
		return false, err
	}
	var seen []string // the object's keys: one given twice is refused, as DuckDB does
	var seenSet map[string]bool
	for dec.More() {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		k, _ := tok.(string)
		// The key as written (between its quotes, after a comma and
		// spaces): bytes that are no UTF-8 or a lone surrogate would read
		// as U+FFFD and two names would become one column.
		if raw := text[before:dec.InputOffset()]; bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
			if q, e := bytes.IndexByte(raw, '"'), bytes.LastIndexByte(raw, '"'); q >= 0 && e > q {
				if err := checkString(raw[q : e+1]); err != nil {
					return false, fmt.Errorf("the key %w", err)
				}
			}
		}
		if seenSet != nil {
			if seenSet[k] {
				return false, fmt.Errorf("the key %q given twice in one object", k)
			}
			seenSet[k] = true
		} else {
			if slices.Contains(seen, k) {
				return false, fmt.Errorf("the key %q given twice in one object", k)
			}
			if seen = append(seen, k); len(seen) > 32 { // a wide object: a set, not a search a key
				seenSet = make(map[string]bool, 2*len(seen))
				for _, s := range seen {
					seenSet[s] = true
				}
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false, err
		}
		if err := fn(k, v); err != nil {
			return false, err
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return false, err
	}
	if dec.More() || dec.InputOffset() != int64(len(text)) {
		return false, errors.New("more than one JSON value on the line")
	}
	return true, nil
}

// kindOf is the kind of a JSON value (0 for null); a number beyond
// float64 (1e999) is an error.
func kindOf(v json.RawMessage) (int, error) {
	switch v[0] {
	case 'n':
		return 0, nil
	case '"':
		return jString, checkString(v)
	case 't', 'f':
		return jBool, nil
	case '{', '[':
		return jNested, nil
	}
	if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return jInt, nil
	} else if errors.Is(err, strconv.ErrRange) && !bytes.ContainsAny(v, ".eE") {
		return jBig, nil // an integer beyond int64: as float64 it would lose digits
	}
	if x, err := strconv.ParseFloat(string(v), 64); err != nil || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s: a number beyond float64", v)
	}
	return jFloat, nil
}

// checkString refuses a JSON string that encoding/json would change
// unawares: bytes that are no UTF-8, or an escaped lone surrogate
// (\ud83d alone), both read as U+FFFD, so that two different keys
// would meet (DuckDB refuses them too). O(len(v)).
func checkString(v []byte) error {
	if !utf8.Valid(v) {
		return fmt.Errorf("%.40q: not UTF-8", v)
	}
	// Each \u escape of a surrogate: a high one (d800-dbff) must be
	// followed at once by a low one (dc00-dfff), and a low one must
	// follow a high one. (Looking for U+FFFD in the decoded text missed
	// a lone surrogate in a string that also held U+FFFD.)
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		i++ // the escaped byte: \\ or \" or n, t, u...
		if i >= len(v) || v[i] != 'u' {
			continue
		}
		r, ok := hex4(v[i+1:])
		if !ok {
			continue // encoding/json refuses it
		}
		i += 4
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if lo, ok := hex4(v[min(i+3, len(v)):]); i+2 < len(v) && v[i+1] == '\\' && v[i+2] == 'u' && ok && lo >= 0xdc00 && lo < 0xe000 {
				i += 6 // the pair
				continue
			}
			return fmt.Errorf("%.40q: a lone surrogate (\\ud800-\\udfff without its pair)", v)
		case r >= 0xdc00 && r < 0xe000:
			return fmt.Errorf("%.40q: a lone surrogate (\\ud800-\\udfff without its pair)", v)
		}
	}
	return nil
}

// hex4 is the value of the four hexadecimal digits b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// typeOfKinds is the column type of the kinds its values held.
func typeOfKinds(k int) Type {
	switch {
	case k&jNested != 0:
		return Type{Kind: Nested, Desc: "JSON object or array"}
	case k == jInt:
		return Type{Kind: Int, Width: 64}
	case k&jBig != 0 && k&jFloat == 0:
		return Type{Kind: String} // integers, some beyond int64: their JSON text, exact
	case k&^(jInt|jFloat|jBig) == 0 && k != 0:
		return Type{Kind: Float, Width: 64}
	case k == jBool:
		return Type{Kind: Bool}
	}
	return Type{Kind: String}
}

func (b *jsonlFile) chunks() int                  { return len(b.starts) }
func (b *jsonlFile) chunkRows(i int) int64        { return b.rows[i] }
func (b *jsonlFile) chunkBytes(i int) int64       { return b.sizes[i] }
func (b *jsonlFile) columnBytes(int, int) int64   { return 0 }
func (b *jsonlFile) stats(int, int) (Stats, bool) { return Stats{}, false }
func (b *jsonlFile) close() error                 { return nil } // the Table closes f

func (b *jsonlFile) next([]int) ([]*Column, int, error) {
	return nil, 0, fmt.Errorf("%s: not a stream", b.t.Name)
}

// read parses chunk i's lines again and builds the columns cols (with
// rows, only those rows). Safe for concurrent use (ReadAt).
func (b *jsonlFile) read(i int, cols, rows []int) ([]*Column, error) {
	data := make([]byte, b.sizes[i])
	if _, err := b.f.ReadAt(data, b.starts[i]); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", b.t.Name, err)
	}
	n := int(b.rows[i])
	want := make(map[int]int, len(cols)) // column -> its place in cols
	out := make([]*Column, len(cols))
	for j, c := range cols {
		want[c] = j
		out[j] = newJSONColumn(b.t.Types[c], n)
	}
	row, line := 0, b.lines[i]
	for len(data) > 0 {
		text := data
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			text, data = data[:k+1], data[k+1:]
		} else {
			data = nil
		}
		ok, err := eachField(text, func(k string, v json.RawMessage) error {
			if j, asked := want[b.index[k]]; asked && v[0] != 'n' {
				return out[j].setJSON(row, v)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w: %v", b.t.Name, line, ErrFormat, err)
		}
		if ok {
			row++
		}
		line++
	}
	for _, c := range out {
		c.finishJSON()
		if rows != nil {
			*c = *c.Select(rows)
		}
	}
	return out, nil
}

// newJSONColumn is a column of n NULLs of type t, filled by setJSON.
func newJSONColumn(t Type, n int) *Column {
	c := &Column{Type: t, n: n, valid: make([]bool, n)}
	switch t.Kind {
	case Int, Bool:
		c.ints = make([]int64, n)
	case Float:
		c.floats = make([]float64, n)
	case String:
		c.offs = make([]int, n+1)
		c.strs = make([][]byte, n)
	}
	return c
}

// setJSON sets value i from the JSON value v (not null), of a kind its
// column's type holds (openJSONL typed it from every value).
func (c *Column) setJSON(i int, v json.RawMessage) error {
	c.valid[i] = true
	switch c.Type.Kind {
	case Int:
		x, err := strconv.ParseInt(string(v), 10, 64)
		c.ints[i] = x
		return err
	case Float:
		x, err := strconv.ParseFloat(string(v), 64)
		if err == nil && (math.IsInf(x, 0) || math.IsNaN(x)) {
			err = fmt.Errorf("%s: beyond float64", v)
		}
		c.floats[i] = x
		return err
	case Bool:
		if v[0] == 't' {
			c.ints[i] = 1
		}
		return nil
	case String:
		if v[0] != '"' {
			c.strs[i] = append([]byte(nil), v...) // a number or boolean in a column of strings: its JSON text
			return nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		c.strs[i] = []byte(s)
		return nil
	}
	return nil // Nested: never asked (Table.withNested)
}

// finishJSON lays a string column's values out as every column's (offs,
// data) and drops its all-valid mask.
func (c *Column) finishJSON() {
	if c.strs != nil {
		for i, s := range c.strs {
			c.data = append(c.data, s...)
			c.offs[i+1] = len(c.data)
		}
		c.strs = nil
	}
	for _, ok := range c.valid {
		if !ok {
			return
		}
	}
	c.valid = nil
}
