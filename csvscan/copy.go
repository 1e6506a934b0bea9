package csvscan

import (
	"bytes"
	"io"
)

// Copy copies the CSV stream src (its header, then its records) to dst byte
// for byte and reads it as a Reader with separator sep does while it
// copies, so that a copy never holds more than the Reader would take: it
// stops at the first malformed record (longer than 1 MiB, more than 1024
// fields, another field count than the header's, bad quoting) with the
// Reader's error, which names the stream as name and the line. With
// skipBad the header must still be good, but malformed records are copied
// for the reader of the copy to skip, except that no line keeps more than
// the 1 MiB and a byte of a record (the rest of a longer one is dropped: it
// is skipped as too long all the same, and a line that never ends costs
// no space). An error of dst is returned as it is. It returns the bytes
// written. O(bytes), memory the Reader's buffer.
func Copy(dst io.Writer, src io.Reader, name string, sep byte, skipBad bool) (int64, error) {
	if err := validSep(sep); err != nil {
		return 0, err
	}
	lc := &lineCap{w: dst}
	tee := &teeReader{r: src, w: lc}
	r := NewReader(tee, name)
	r.setSep(sep)
	if _, err := r.ReadHeader(); err != nil {
		if tee.err != nil {
			return lc.n, tee.err
		}
		return lc.n, err
	}
	if skipBad {
		r.SkipBad(func(*ParseError) {})
	}
	for r.Next() {
	}
	if tee.err != nil {
		return lc.n, tee.err
	}
	return lc.n, r.Err()
}

// teeReader writes to w what it reads from r; a failed write ends the
// reads with its error, kept in err.
type teeReader struct {
	r   io.Reader
	w   io.Writer
	err error
}

func (t *teeReader) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	if n > 0 {
		if _, werr := t.w.Write(p[:n]); werr != nil {
			t.err = werr
			return n, werr
		}
	}
	return n, err
}

// lineCap writes to w all but the bytes of a line past its first
// maxRecord+1 (a record of such a line is too long whatever follows).
type lineCap struct {
	w    io.Writer
	line int // bytes of the current line so far, its '\n' not included
	n    int64
}

func (c *lineCap) Write(p []byte) (int, error) {
	start := 0 // p[start:i] is to be written
	for i := 0; i < len(p); {
		// Every line that ends within the current line's room is short
		// enough: jump past the last line end there (a scan of up to 1
		// MiB, not one a line).
		room := max(maxRecord+1-c.line, 0)
		window := p[i:min(len(p), i+room+1)]
		if j := bytes.LastIndexByte(window, '\n'); j >= 0 {
			i, c.line = i+j+1, 0
			continue
		}
		if len(window) <= room { // p ends within the room
			c.line += len(window)
			break
		}
		// The line is longer than its room: write up to the room, skip
		// the rest of the line (its '\n' is kept).
		if err := c.write(p[start : i+room]); err != nil {
			return i, err
		}
		end := len(p)
		if j := bytes.IndexByte(p[i+room:], '\n'); j >= 0 {
			end = i + room + j
		}
		start, i, c.line = end, end, maxRecord+1
	}
	if err := c.write(p[start:]); err != nil {
		return start, err
	}
	return len(p), nil
}

func (c *lineCap) write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return err
}
