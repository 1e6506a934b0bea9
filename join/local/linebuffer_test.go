package local

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestLineBufferBusyOutput: a reducer's batch that finds the output held
// by another is kept and grown rather than waited with, and written
// whole at its next chance: every line once, none cut, in each writer's
// order.
func TestLineBufferBusyOutput(t *testing.T) {
	var out bytes.Buffer
	s := NewCSV(&out).(*csvSink)
	a, b := s.Writer().(*lineBuffer), s.Writer().(*lineBuffer)
	line := func(w string, i int) []byte { return []byte(fmt.Sprintf("%s,%06d,%s", w, i, strings.Repeat("x", 90))) }
	s.mu.Lock() // another writer holds the output
	n := 0
	for ; len(a.buf) < 1<<20; n++ {
		if err := a.Write(nil, 0, 0, line("a", n), nil); err != nil {
			t.Fatal(err)
		}
	}
	if s.out.Buffered() != 0 || out.Len() != 0 {
		t.Fatalf("%d bytes written while the output was held", s.out.Buffered()+out.Len())
	}
	s.mu.Unlock()
	for i := range 3000 {
		if err := b.Write(nil, 0, 0, line("b", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Write(nil, 0, 0, line("a", n), nil); err != nil { // a's next row: the output is free
		t.Fatal(err)
	}
	n++
	if len(a.buf) != 0 {
		t.Fatalf("a still holds %d bytes with the output free", len(a.buf))
	}
	if err := errorsJoin(a.Flush(), b.Flush(), s.Finish(nil)); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{"a": 0, "b": 0}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		f := strings.Split(l, ",")
		if len(f) < 3 || len(f[2]) != 90 {
			t.Fatalf("a cut line: %q", l)
		}
		i, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if i != seen[f[0]] {
			t.Fatalf("writer %s: line %d where %d was due", f[0], i, seen[f[0]])
		}
		seen[f[0]]++
	}
	if seen["a"] != n || seen["b"] != 3000 {
		t.Fatalf("lines %v, want a %d, b 3000", seen, n)
	}
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
