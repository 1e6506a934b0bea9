package columnar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// readJSONL opens text as a JSON lines table and returns its names,
// types and rows as canonical text (a NULL as <nil>).
func readJSONL(t *testing.T, text string) (*Table, [][]string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(text), 0o644)
	tb, err := Open(context.Background(), path, "t.jsonl", JSONL, "", AllowNested)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { tb.Close() })
	tb.SkipNested()
	var rows [][]string
	r := NewReader(tb)
	for r.Next() {
		var row []string
		for j, f := range r.Fields() {
			if r.Null(j) {
				row = append(row, "<nil>")
			} else {
				row = append(row, string(f))
			}
		}
		rows = append(rows, row)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("a table that opened fails to read: %v", err)
	}
	return tb, rows, nil
}

// TestJSONLTypes: each column's type from all its values (the table in
// jsonl.go), NULLs for null and missing keys, columns in the order their
// keys first appear, blank lines skipped.
func TestJSONLTypes(t *testing.T) {
	tb, rows, err := readJSONL(t, `{"i": 1, "f": 1, "b": true, "s": "x", "m": 1, "n": null, "o": {"a": 1}}
{"i": -7, "f": 2.5, "b": false, "s": "", "m": "y", "o": [1]}

{"i": null, "f": 1e3, "s": "\u00e9\"", "m": true, "late": 9223372036854775807}
`)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ty := range tb.Types {
		types = append(types, ty.String())
	}
	wantNames := []string{"i", "f", "b", "s", "m", "n", "o", "late"}
	wantTypes := []string{"int64", "float64", "bool", "string", "string", "string", "JSON object or array", "int64"}
	if !slices.Equal(tb.Names, wantNames) || !slices.Equal(types, wantTypes) {
		t.Fatalf("names %q types %q, want %q %q", tb.Names, types, wantNames, wantTypes)
	}
	want := [][]string{
		{"1", "1", "true", "x", "1", "<nil>", "<nil>", "<nil>"},
		{"-7", "2.5", "false", "", "y", "<nil>", "<nil>", "<nil>"},
		{"<nil>", "1000", "<nil>", "é\"", "true", "<nil>", "<nil>", "9223372036854775807"},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("rows\n%q\nwant\n%q", rows, want)
	}
	if err := tb.Refuse([]int{6}, false); err == nil {
		t.Errorf("a nested column read: no refusal")
	}
}

// TestJSONLExact: what encoding/json would change unawares is kept or
// refused, never altered: integers beyond int64 keep their text (a string
// column: as float64 two of them were one key), bytes that are no UTF-8
// and lone surrogates are refused naming the line (as U+FFFD they met
// each other), a line over MaxJSONLine in a file says so.
func TestJSONLExact(t *testing.T) {
	testutil.SkipUnderRace(t)
	tb, rows, err := readJSONL(t, "{\"k\": 9223372036854775808}\n{\"k\": 9223372036854775809}\n{\"k\": 7}\n")
	if err != nil || tb.Types[0].Kind != String || fmt.Sprint(rows) != "[[9223372036854775808] [9223372036854775809] [7]]" {
		t.Errorf("integers beyond int64: %v, types %v, rows %q", err, tb.Types, rows)
	}
	for _, tc := range []struct{ text, want string }{
		{"{\"k\": \"a\xff\"}\n", "t.jsonl:1: not a valid file of its format: \"\\\"a\\xff\\\"\": not UTF-8"},
		{"{\"k\": 1}\n{\"k\": \"\\ud83d\"}\n", "t.jsonl:2: not a valid file of its format"},
		{"{\"k\": 1}\n{\"k\": \"" + strings.Repeat("x", MaxJSONLine) + "\"}\n", "t.jsonl:2: not a valid file of its format: a line longer than"},
		// A review's finds: a lone surrogate beside U+FFFD (escaped or
		// as its bytes) passed; an object's key was not checked at all,
		// so two names met as one column; a key given twice in one
		// object was read, its later non-NULL value winning.
		{"{\"k\": \"\\ufffd\\ud83d\"}\n", "t.jsonl:1: not a valid file of its format: \"\\\"\\\\ufffd\\\\ud83d\\\"\": a lone surrogate"},
		{"{\"k\": \"\xef\xbf\xbd\\udc00\"}\n", "t.jsonl:1: not a valid file of its format"},
		{"{\"k\": \"\\ud83dx\\ude00\"}\n", "t.jsonl:1: not a valid file of its format"},
		{"{\"k\": 1, \"\\ud83d\": 2, \"\\ud83e\": 3}\n", "t.jsonl:1: not a valid file of its format: the key"},
		{"{\"k\": 1, \"a\xff\": 2}\n", "t.jsonl:1: not a valid file of its format: the key"},
		{"{\"k\": 1}\n{\"k\": 1, \"v\": 2, \"k\": 3}\n", "t.jsonl:2: not a valid file of its format: the key \"k\" given twice"},
		{"{" + wideObject(100) + ", \"c50\": 1}\n", "t.jsonl:1: not a valid file of its format: the key \"c50\" given twice"}, // past the search: a set
	} {
		_, _, err := readJSONL(t, tc.text)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%.60q: %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, _, err := readJSONL(t, "{\"k\": \"\\ud83d\\ude00 \\ufffd \ufffd\"}\n"); err != nil {
		t.Errorf("a surrogate pair and U+FFFD as written: %v", err)
	}
	if tb, _, err := readJSONL(t, "{\"\\ud83d\\ude00\": 1, \"a\\\\ud83d\": \"\\\\udc00\"}\n"); err != nil || tb.Names[0] != "\U0001F600" || tb.Names[1] != `a\ud83d` {
		t.Errorf("keys of a surrogate pair and of an escaped backslash: %v", err)
	}
}

// TestJSONLChunks: a file of more than one chunk's lines reads back whole,
// by chunk and by selected rows, each row numbered as its line.
func TestJSONLChunks(t *testing.T) {
	testutil.SkipUnderRace(t)
	var b strings.Builder
	n := jsonlChunk + 100
	for i := range n {
		if i == 5 {
			b.WriteString("\n") // a blank line: no row
		}
		fmt.Fprintf(&b, "{\"k\": %d, \"v\": \"r%d\"}\n", i, i)
	}
	tb, rows, err := readJSONL(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if tb.Chunks() != 2 || tb.Rows() != int64(n) || len(rows) != n || rows[n-1][1] != fmt.Sprintf("r%d", n-1) {
		t.Fatalf("%d chunks, %d rows (%d read), last %q", tb.Chunks(), tb.Rows(), len(rows), rows[len(rows)-1])
	}
	cols, err := tb.ReadRows(1, []int{1}, []int{0, 99})
	if err != nil || string(cols[0].Bytes(0)) != fmt.Sprintf("r%d", jsonlChunk) || string(cols[0].Bytes(1)) != fmt.Sprintf("r%d", n-1) {
		t.Errorf("rows 0 and 99 of chunk 1: %v", err)
	}
}

// TestJSONLErrors: a line that is no JSON object, or holds two values, is
// refused naming the file and the line (ErrFormat); a file of no object
// has no column.
func TestJSONLErrors(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, tc := range []struct{ text, want string }{
		{"{\"a\": 1}\n[1, 2]\n", "t.jsonl:2: not a valid file of its format: not a JSON object"},
		{"{\"a\": 1}\n{\"a\": 2} {\"a\": 3}\n", "t.jsonl:2: not a valid file of its format: more than one JSON value"},
		{"{\"a\": 1}\n{\"a\": \n", "t.jsonl:2: not a valid file of its format"},
		{"\n\n", "t.jsonl: not a valid file of its format: no JSON object"},
		{"{\"a\": 1e999}\n", "t.jsonl:1: not a valid file of its format"},
		{"{\"a\": 1}\n" + strings.Repeat(" ", MaxJSONLine+1), "t.jsonl:2: not a valid file of its format: a line longer than 16777216 bytes"},
	} {
		_, _, err := readJSONL(t, tc.text)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestJSONLStream: JSON lines on a stream are copied to a file for the
// typing pass; a byte order mark and CRLF line ends are read; a stream
// without line breaks (/dev/zero) stops at MaxJSONLine, not the disk's
// end, and nothing is left behind.
func TestJSONLStream(t *testing.T) {
	testutil.SkipUnderRace(t)
	dir := t.TempDir()
	tb, err := OpenStream(context.Background(), io.NopCloser(strings.NewReader("\ufeff{\"k\": 7}\r\n{\"k\": 8}\r\n")), "stdin", JSONL, dir)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows() != 2 || tb.Names[0] != "k" || tb.Types[0].Kind != Int {
		t.Errorf("%d rows, names %q, types %v", tb.Rows(), tb.Names, tb.Types)
	}
	tb.Close()
	zeros := &repeating{}
	_, err = OpenStream(context.Background(), io.NopCloser(zeros), "stdin", JSONL, dir)
	if err == nil || !strings.HasPrefix(err.Error(), "stdin:1: not a valid file of its format: not a JSON object") || zeros.read > 2<<20 {
		t.Errorf("zeros: %v after %d bytes", err, zeros.read)
	}
	endless := &repeating{head: []byte("{")} // an object that never ends
	_, err = OpenStream(context.Background(), io.NopCloser(endless), "stdin", JSONL, dir)
	if err == nil || !strings.HasPrefix(err.Error(), "stdin:1: not a valid file of its format: a line longer than") || endless.read > 2*MaxJSONLine {
		t.Errorf("an endless line: %v after %d bytes", err, endless.read)
	}
	_, err = OpenStream(context.Background(), io.NopCloser(io.MultiReader(strings.NewReader("{\"k\": 1}\n"), &repeating{head: []byte("\x89PNG")})), "stdin", JSONL, dir)
	if err == nil || !strings.HasPrefix(err.Error(), "stdin:2: not a valid file of its format: not a JSON object") {
		t.Errorf("other bytes: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left in the temporary folder", len(ents))
	}
}

// FuzzJSONL: any bytes open as JSON lines or fail with ErrFormat naming
// the file, never a panic; a table that opens reads every row, and as
// many as it counted.
func FuzzJSONL(f *testing.F) {
	for _, s := range []string{"{\"a\": 1}\n", "{\"a\": \"x\", \"b\": [1]}\n\n{\"a\": null}", "{}\n", "{\"a\":1}{\"b\":2}", "{\"a\": 1.5e3, \"a\": \"dup\"}\n", "\xff\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, rows, err := readJSONL(t, string(data))
		if err != nil {
			if !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), "t.jsonl") {
				t.Fatalf("error %v: not ErrFormat naming the file", err)
			}
			return
		}
		if int64(len(rows)) != tb.Rows() {
			t.Fatalf("%d rows read, %d counted", len(rows), tb.Rows())
		}
	})
}

// wideObject is n keys c0, c1, ... of the values 0, 1, ..., without braces.
func wideObject(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "\"c%d\": %d", i, i)
	}
	return b.String()
}
