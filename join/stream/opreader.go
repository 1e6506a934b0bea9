package stream

import (
	"bytes"
	"io"
)

// opReader turns a key events file into plain CSV for csvscan: it passes the
// header record through, and from every later record it removes the first
// byte, the operation ('+' or '-'), which it queues for the caller (ops),
// one a record, in order. A record that is its operation alone ("-" of an
// empty key) becomes `""`, one empty field, so that csvscan does not skip
// it as a blank line and the queue stays aligned with the records. Blank
// lines pass through without an operation (csvscan skips them too).
//
// Record boundaries follow RFC 4180 as csvscan's do: a line break ends a
// record unless it is inside quotes (an odd count of '"' so far). Lines are
// never added or removed, so csvscan's line numbers are the file's. A line
// without a quote is passed with two IndexByte scans, not byte by byte.
//
// An opReader is for one goroutine (the csvscan Reader's); the queue is read
// by that same goroutine between csvscan reads.
type opReader struct {
	src     io.Reader
	in      []byte // read from src, not yet transformed: in[inPos:inEnd]
	inPos   int
	inEnd   int
	eof     bool
	err     error
	out     []byte // transformed, not yet returned: out[outPos:]
	outPos  int
	header  bool // the header record is done
	atStart bool // the next byte starts a record (after the header)
	quoted  bool // inside quotes
	pending bool // an operation was just taken: the record's first content byte comes next
	cr      bool // a '\r' at a record's start is held: blank line or an operation
	ops     []byte
	opHead  int
}

func newOpReader(src io.Reader) *opReader {
	return &opReader{src: src, in: make([]byte, 256<<10)}
}

// popOp returns the operation of the next record csvscan returned.
func (o *opReader) popOp() (byte, bool) {
	if o.opHead >= len(o.ops) {
		return 0, false
	}
	op := o.ops[o.opHead]
	o.opHead++
	if o.opHead > 4096 && o.opHead*2 > len(o.ops) {
		n := copy(o.ops, o.ops[o.opHead:])
		o.ops, o.opHead = o.ops[:n], 0
	}
	return op, true
}

func (o *opReader) Read(p []byte) (int, error) {
	for o.outPos >= len(o.out) {
		if o.err != nil {
			return 0, o.err
		}
		o.out, o.outPos = o.out[:0], 0
		if o.inPos >= o.inEnd {
			if o.eof {
				o.flushEnd()
				if len(o.out) == 0 {
					o.err = io.EOF
				}
				continue
			}
			n, err := o.src.Read(o.in)
			o.inPos, o.inEnd = 0, n
			if err == io.EOF {
				o.eof = true
			} else if err != nil {
				o.err = err
			}
			if n == 0 {
				continue
			}
		}
		o.transform()
	}
	n := copy(p, o.out[o.outPos:])
	o.outPos += n
	return n, nil
}

// flushEnd finishes at the end of input: a held '\r' is an operation (not a
// line end), and an operation with no content is the empty field.
func (o *opReader) flushEnd() {
	if o.cr {
		o.cr = false
		o.ops = append(o.ops, '\r')
		o.out = append(o.out, '"', '"')
		return
	}
	if o.pending {
		o.pending = false
		o.out = append(o.out, '"', '"')
	}
}

// transform moves in[inPos:inEnd] to out.
func (o *opReader) transform() {
	b := o.in[o.inPos:o.inEnd]
	o.inPos = o.inEnd
	for len(b) > 0 {
		switch {
		case !o.header:
			// The header: pass it through up to its end.
			n, end := o.scanRecord(b)
			o.out = append(o.out, b[:n]...)
			b = b[n:]
			if end {
				o.header, o.atStart = true, true
			}
		case o.cr:
			o.cr = false
			if b[0] == '\n' { // a blank CRLF line
				o.out = append(o.out, '\r', '\n')
				b = b[1:]
				continue
			}
			o.ops = append(o.ops, '\r') // an operation that is not one: the caller refuses it
			o.atStart, o.pending = false, true
		case o.atStart:
			switch b[0] {
			case '\n':
				o.out = append(o.out, '\n')
			case '\r':
				o.cr = true
			default:
				o.ops = append(o.ops, b[0])
				o.atStart, o.pending = false, true
			}
			b = b[1:]
		case o.pending:
			o.pending = false
			if b[0] == '\n' || (b[0] == '\r' && (len(b) < 2 || b[1] == '\n')) {
				// "-" alone: one empty field. (A '\r' at the end of the
				// buffer is taken as a CRLF; csvscan reads a lone '\r'
				// inside a field as data either way.)
				o.out = append(o.out, '"', '"')
			}
		default:
			n, end := o.scanRecord(b)
			o.out = append(o.out, b[:n]...)
			b = b[n:]
			if end {
				o.atStart = true
			}
		}
	}
}

// scanRecord returns how many bytes of b belong to the current record (up to
// and including its ending line break) and whether the record ended.
func (o *opReader) scanRecord(b []byte) (int, bool) {
	pos := 0
	for {
		rest := b[pos:]
		nl := bytes.IndexByte(rest, '\n')
		seg := rest
		if nl >= 0 {
			seg = rest[:nl]
		}
		if !o.quoted && bytes.IndexByte(seg, '"') < 0 {
			if nl < 0 {
				return len(b), false
			}
			return pos + nl + 1, true
		}
		for _, c := range seg {
			if c == '"' {
				o.quoted = !o.quoted
			}
		}
		if nl < 0 {
			return len(b), false
		}
		pos += nl + 1
		if !o.quoted {
			return pos, true
		}
	}
}
