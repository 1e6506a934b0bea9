package csvscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// NextField reads the next record as Next does, record for record, with
// the same errors and skipped rows (TestNextFieldMatchesNext,
// FuzzNextField), but on its fast path it finds only field col (Field)
// and counts the others: Fields splits them when it is first called for
// the record. The fast path takes a record of one line, of the header's
// field count, whose quotes are simple ones (each quoted field is a quote
// at the field's start, bytes without a quote or line break, and a quote
// right before the separator or the line's end: the NBER patents' "US");
// any other record, or one at the end of the buffered data, is Next's.
// It suits a reader that wants one field of each record and the record
// whole (the join's key side: its key, and the raw line the key row is
// copied from); at 23 fields a record it does not visit each separator,
// counting them 64 bytes at a time on the block scanner's masks
// (lineFieldMasks, with AVX2) or 8 at a time (lineField, the portable
// path). col must be below the header's field count; with AnyFieldCount,
// or col out of range, it is Next.
func (r *Reader) NextField(col int) bool {
	r.lazy, r.lqOK = nil, false
	if r.err != nil || r.want == 0 || col < 0 || col >= r.want {
		r.fieldCol = -1
		return r.Next()
	}
	for {
		var v int
		if blockAsm {
			v = r.lineFieldMasks(col)
		} else {
			v = r.lineField(col)
		}
		switch v {
		case fieldRead:
			return true
		case fieldBlank:
			continue
		}
		if !r.Next() {
			return false
		}
		r.fieldCol = col
		return true
	}
}

// Field returns field col of the current record read by NextField,
// unquoted, valid as Fields' are.
func (r *Reader) Field() []byte {
	if r.lazy == nil {
		if r.fieldCol < 0 || r.fieldCol >= len(r.fields) {
			return nil
		}
		return r.fields[r.fieldCol]
	}
	return r.field
}

// What lineField did with the line at r.start.
const (
	fieldLeft  = iota // nothing: Next reads it
	fieldRead         // a record: Raw and Field set, Fields lazy
	fieldBlank        // a blank line, skipped
)

// lineField is NextField's fast path for the line at r.start (see
// NextField): 8 bytes a step, the separators, line breaks and quotes of
// each word as zeroBytes masks; the bytes inside quotes are the prefix
// parity of the quotes (a separator or line break there is data); each
// quote is checked to open a field or to close one right before its
// separator or line end; the separators outside quotes are counted by
// countMarks, and only those around field col are located.
func (r *Reader) lineField(col int) int {
	const quotes = 0x2222222222222222 // '"' in every byte
	const his = 0x8080808080808080    // the high bit of every byte
	buf := r.buf[:r.end]
	sepw, sep := r.sepw, r.sep
	ls := r.start
	nf := 0          // separators outside quotes before byte i
	fs, fe := ls, -1 // field col's bounds in the line, with its quotes
	var in uint64    // inside quotes at the end of the last word: his or 0
	for i := ls; i+8 <= len(buf); i += 8 {
		w := binary.LittleEndian.Uint64(buf[i:])
		ms, mn, mq := zeroBytes(w^sepw), zeroBytes(w^nls), zeroBytes(w^quotes)
		if mq == 0 && in == 0 && mn == 0 { // the common word: separators only
			c := countMarks(ms)
			if nf+c >= col {
				fs, fe = locate(ms, i, nf, col, fs, fe)
			}
			nf += c
			continue
		}
		// Inside quotes: the prefix parity of the quotes, bytes at or after
		// an opening quote and before its closing one; a carry from the
		// last word.
		q := mq
		q ^= q << 8
		q ^= q << 16
		q ^= q << 32
		q ^= in
		inq := mn & q // line breaks inside quotes
		ms &^= q
		mn &^= q
		if mn != 0 {
			mn &= -mn
			ms &= mn - 1
			mq &= mn - 1
			inq &= mn - 1
		}
		if inq != 0 {
			return fieldLeft // a quoted field runs on past the line: Next reads it
		}
		for m := mq; m != 0; m &= m - 1 {
			j := i + bits.TrailingZeros64(m)>>3
			if q&(m&-m) != 0 { // opening: at a field's start
				if j != ls && buf[j-1] != sep {
					return fieldLeft
				}
				continue
			}
			// Closing: right before a separator or the line's end.
			if !closesField(buf, j, sep) {
				return fieldLeft
			}
		}
		c := countMarks(ms)
		if nf+c >= col {
			fs, fe = locate(ms, i, nf, col, fs, fe)
		}
		nf += c
		in = (q >> 63) * his
		if mn == 0 {
			continue
		}
		return r.endLine(ls, i+bits.TrailingZeros64(mn)>>3, nf, col, fs, fe)
	}
	return fieldLeft // no line break in the buffered data
}

// endLine ends lineField's and lineFieldMasks' scan of the line at ls,
// whose line break is at nl, with nf separators outside quotes and field
// col's bounds fs, fe (with its quotes; fe < 0: the last field): a
// blank line skipped, a record left to Next (CRs before the break, the
// wrong field count, too long), or the record read (Field, Raw, the lazy
// line; r.lfs and r.lfe field col's bounds in the line). O(1).
func (r *Reader) endLine(ls, nl, nf, col, fs, fe int) int {
	buf := r.buf
	end := nl
	if end > ls && buf[end-1] == '\r' {
		end--
	}
	if end > ls && buf[end-1] == '\r' {
		return fieldLeft // CRs before the break: Next's Raw drops them all, or one
	}
	if end == ls { // a blank line, skipped as Next skips it
		r.line++
		r.start = nl + 1
		return fieldBlank
	}
	if nf+1 != r.want || nl-ls > maxRecord || nf+1 > MaxFields {
		return fieldLeft // Next reports it, or skips it
	}
	if fe < 0 {
		fe = end // the last field
	}
	f := buf[fs:fe]
	if len(f) > 0 && f[0] == '"' {
		f = f[1 : len(f)-1] // checked by the scan: it closes right before fe
	}
	r.field, r.raw, r.lazy = f, buf[ls:end], buf[ls:nl]
	r.fieldCol = col
	r.lfs, r.lfe = fs-ls, fe-ls
	r.recOff, r.recLn = r.base+int64(ls), r.line+1
	r.line++
	r.start = nl + 1
	return fieldRead
}

// locate updates the bounds fs, fe of field col (the field after the
// col'th separator outside quotes) with the separators ms of the word at
// byte i, nf of them before it: field col starts after separator col-1
// and ends at separator col. O(popcount(ms)) at most, for the one or two
// words that hold them.
func locate(ms uint64, i, nf, col, fs, fe int) (int, int) {
	for ; ms != 0 && nf <= col; ms &= ms - 1 {
		j := i + bits.TrailingZeros64(ms)>>3
		if nf == col {
			fe = j
		} else if nf == col-1 {
			fs = j + 1
		}
		nf++
	}
	return fs, fe
}

// lineFieldMasks is lineField on the block scanner's masks (blockAsm): 64
// bytes a step, the separators, line breaks and quotes of each as bits
// (masksQAt); the bytes inside quotes are the quotes' prefix parity, six
// shifts a step; an opening quote must follow a separator or the line's
// start, a closing one precede a separator or the line's end, both tested
// on the masks (a closing quote before a CR or past the step, by its
// bytes). The same verdicts and record as lineField
// (TestNextFieldMatchesNext and FuzzNextField run both); a line that
// runs past the last whole step of the buffered data is lineField's.
// lineField took 80 ns a row of the NBER patents, 10^7 of them a third
// of the 10^7-key build's scan on the Intel Xeon (perf): 8 bytes a step
// and a loop over each quote.
func (r *Reader) lineFieldMasks(col int) int {
	buf := r.buf[:r.end]
	sep := r.sep
	ls := r.start
	nf := 0           // separators outside quotes before byte p
	fs, fe := ls, -1  // field col's bounds in the line, with its quotes
	var carry uint64  // every bit set when byte p is inside quotes
	prev := uint64(1) // bit 0: byte p follows a separator or starts the line
	r.lq = r.lq[:0]
	for p := ls; p+64 <= len(buf); p += 64 {
		s, n, q := r.masksQAt(p)
		in := prefixXor(q) ^ carry // bit i: byte i is inside quotes (an opening quote is, a closing one not)
		below := ^uint64(0)        // the bytes before the line's end
		out := n &^ in
		if out != 0 {
			below = out&-out - 1
		}
		if n&in&below != 0 {
			return fieldLeft // a quoted field runs on past the line: Next reads it
		}
		if q &= below; q != 0 {
			if q&in&^(s<<1|prev) != 0 {
				return fieldLeft // an opening quote inside a field
			}
			for bad := q &^ in &^ ((s | n) >> 1); bad != 0; bad &= bad - 1 {
				// A closing quote before neither a separator nor a line
				// break in this step: before CR LF, or past the step.
				if !closesField(buf, p+bits.TrailingZeros64(bad), sep) {
					return fieldLeft
				}
			}
			for m := q; m != 0; m &= m - 1 { // the quotes' places, for AppendOthers
				r.lq = append(r.lq, int32(p-ls+bits.TrailingZeros64(m)))
			}
		}
		ms := s &^ in & below
		c := bits.OnesCount64(ms)
		if nf+c >= col {
			fs, fe = locateBits(ms, p, nf, col, fs, fe)
		}
		nf += c
		if out == 0 {
			carry = -(in >> 63)
			prev = s >> 63
			continue
		}
		v := r.endLine(ls, p+bits.TrailingZeros64(out), nf, col, fs, fe)
		r.lqOK = v == fieldRead // r.lq holds this record's quotes (AppendOthers)
		return v
	}
	return r.lineField(col) // the line's end is in the last 63 bytes, or beyond
}

// AppendOthers appends the fields of the record NextField read but field
// col (the one it asked for), as AppendFields writes them (comma-separated,
// each as AppendField writes it), and reports true; or reports false with
// dst as it was, when it cannot tell them from the line alone: a record
// not read on the block scanner's path (lineFieldMasks), a separator other
// than the comma, a CR in the line, 2 fields or fewer. A quoted field
// whose value needs no quotes loses them, one that does keeps them (the
// path allows no quote inside one). It copies the line in runs between
// the quotes lineFieldMasks found: the key side's build made this copy
// with a search for each quote and for the line's CR and LF, 70 ns a NBER
// patent row (perf). O(len(line)).
func (r *Reader) AppendOthers(dst []byte) ([]byte, bool) {
	raw := r.raw
	if !r.lqOK || r.sep != ',' || r.want <= 2 || bytes.IndexByte(raw, '\r') >= 0 {
		return dst, false
	}
	fs, fe := r.lfs, r.lfe // field col with its quotes, in raw
	switch {
	case fs == 0:
		return r.appendRuns(dst, raw, fe+1, len(raw)), true
	case fe == len(raw):
		return r.appendRuns(dst, raw, 0, fs-1), true
	}
	dst = append(r.appendRuns(dst, raw, 0, fs-1), ',')
	return r.appendRuns(dst, raw, fe+1, len(raw)), true
}

// appendRuns appends raw[lo:hi], whole fields of the record lineFieldMasks
// read, as AppendFields writes them: the runs between quotes as they
// are, each quoted value without its quotes when it needs none (r.lq
// holds the quotes' places in pairs, an opening and its closing one).
// It relies on lineFieldMasks taking no doubled quote (a quote inside a
// quoted value: its closing quote is followed by another, which the
// closing check refuses); were one taken, "a""b" would come out as ab
// (TestNextFieldMatchesNext and TestAppendOthers would fail).
func (r *Reader) appendRuns(dst, raw []byte, lo, hi int) []byte {
	p := lo
	for i := 0; i+1 < len(r.lq); i += 2 {
		o, c := int(r.lq[i]), int(r.lq[i+1])
		if o < lo || c >= hi {
			continue // a quoted field outside the run (the key's)
		}
		v := raw[o+1 : c]
		if needsQuotes(v) {
			dst = append(dst, raw[p:c+1]...)
		} else {
			dst = append(append(dst, raw[p:o]...), v...)
		}
		p = c + 1
	}
	return append(dst, raw[p:hi]...)
}

// locateBits is locate on a mask of a bit a byte: ms's bits are the
// separators of the 64 bytes at i.
func locateBits(ms uint64, i, nf, col, fs, fe int) (int, int) {
	for ; ms != 0 && nf <= col; ms &= ms - 1 {
		j := i + bits.TrailingZeros64(ms)
		if nf == col {
			fe = j
		} else if nf == col-1 {
			fs = j + 1
		}
		nf++
	}
	return fs, fe
}

// closesField reports whether the quote at buf[j] can close a field:
// followed by the separator sep, a line break, or CR LF, within buf
// (past it: not known, which the callers leave to the field-by-field
// reader). The word loop (lineField) and the masks (lineFieldMasks) share
// it. O(1), inlined.
func closesField(buf []byte, j int, sep byte) bool {
	if j+1 >= len(buf) {
		return false
	}
	switch buf[j+1] {
	case sep, '\n':
		return true
	case '\r':
		return j+2 < len(buf) && buf[j+2] == '\n'
	}
	return false
}

// prefixXor returns the inclusive prefix XOR of m's bits: bit i is the
// parity of m's bits 0 to i (the ladder of shifts; simdjson computes it
// with a carry-less multiplication). O(1).
func prefixXor(m uint64) uint64 {
	m ^= m << 1
	m ^= m << 2
	m ^= m << 4
	m ^= m << 8
	m ^= m << 16
	m ^= m << 32
	return m
}
