package csvscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"
)

// Batch holds records read by NextBatch: for each, the record as it is in
// the file (without its line end), one of its fields, its byte offset and its
// line (0 when the Reader does not know lines: a range reader). What it
// returns points into the Reader's buffers and is valid until the Reader's
// next NextBatch or Next. The zero Batch is ready to use.
type Batch struct {
	buf  []byte // the Reader's buffer, which the offsets index
	base int64  // file offset of buf[0]
	recs []batchRec
	// field is the field of a record that took Next's path (then the only
	// record): a quoted field is unquoted outside buf.
	field   []byte
	general bool
	// ScanInts asks NextBatch to parse each record's field as Ints does
	// while it scans the record (the last column on the fast path), saving
	// Ints a pass over the fields.
	ScanInts bool
	ints     []int64 // Ints' values
	scanned  bool    // ints was made by the scan
}

// batchRec locates a record in Batch.buf: four int32 offsets and its line
// (a record is at most maxRecord bytes, the buffer a few times that).
type batchRec struct {
	rs, re, fs, fe int32
	line           int64
}

// Len returns the number of records.
func (b *Batch) Len() int { return len(b.recs) }

// Raw returns record i as it is in the file, without its line end.
func (b *Batch) Raw(i int) []byte {
	r := &b.recs[i]
	return b.buf[r.rs:r.re:r.re]
}

// RawLen is len(Raw(i)).
func (b *Batch) RawLen(i int) int { return int(b.recs[i].re - b.recs[i].rs) }

// Field returns the field NextBatch was asked for, of record i, unquoted.
func (b *Batch) Field(i int) []byte {
	if b.general {
		return b.field
	}
	r := &b.recs[i]
	return b.buf[r.fs:r.fe]
}

// Ints returns the values of the batch's leading records whose field is 1
// to 8 plain decimal digits (ParseDigits8's fast path): all Len() of them
// when every field is such a number, else those before the first that is
// not (empty, signed, longer, not a number) or that ends in the last 8 bytes
// of the buffer; that field and the rest are left to the caller. The values
// come from the scan when ScanInts is set and the fast path read the batch,
// else from one loop over the fields in place, without a call or a slice a
// field: the map phase's integer join keys. Valid until the next NextBatch.
// O(Len()).
func (b *Batch) Ints() []int64 {
	if b.scanned || b.general {
		return b.ints
	}
	b.ints = b.ints[:0]
	for i := range b.recs {
		v, ok := parseField8(b.buf, int(b.recs[i].fs), int(b.recs[i].fe))
		if !ok {
			break
		}
		b.ints = append(b.ints, v)
	}
	b.scanned = true
	return b.ints
}

// parseField8 is ParseDigits8 of buf[fs:fe], loading the 8 bytes at fs (those
// after the field shifted out): false unless the field is 1 to 8 plain
// digits and fs+8 <= len(buf).
func parseField8(buf []byte, fs, fe int) (int64, bool) {
	n := uint(fe - fs)
	if n-1 > 7 || fs+8 > len(buf) { // n-1 wraps for n = 0
		return 0, false
	}
	return digits8(binary.LittleEndian.Uint64(buf[fs:]), n)
}

// digits8 is the value of the n (1 to 8) bytes of w from its lowest, and
// whether they are all decimal digits. Small enough to inline into
// fastBatch.
func digits8(w uint64, n uint) (int64, bool) {
	// Keep the n digits and put them in the high bytes, with '0's below: the
	// number as 8 digits with leading zeros (the first digit is the lowest
	// byte, little-endian). Every byte is a digit iff its high nibble is 3
	// and adding 6 to it keeps the high nibble at 3 (Lemire's
	// is_made_of_eight_digits_fast).
	// n is 1 to 8 (the callers check): the shift counts are masked to 0-63
	// so that the compiler drops its code for counts of 64 and more (for n
	// = 8 the '0's are shifted out in two steps).
	w = w<<((64-8*n)&63) | 0x3030303030303030>>((8*n-8)&63)>>8
	return int64(parse8(w)), w&0xF0F0F0F0F0F0F0F0|(w+0x0606060606060606)&0xF0F0F0F0F0F0F0F0>>4 == 0x3333333333333333
}

// Offset returns the byte offset of record i in the file.
func (b *Batch) Offset(i int) int64 { return b.base + int64(b.recs[i].rs) }

// Line returns the line of record i, or 0 when the Reader does not know it.
func (b *Batch) Line(i int) int64 { return b.recs[i].line }

// NextBatch reads up to max records (max >= 1) into b, keeping of each only
// field col (unquoted), and reports whether it read any; at the end of the
// input or at an error it returns false and Err says which. It reads what
// Next reads, record for record, skipped bad rows and errors included
// (TestBatchMatchesNext, FuzzBatch), but faster: a run of unquoted records of
// the header's field count is scanned for line breaks and separators only
// (64 bytes a step from the AVX2 block scanner, else 8 bytes at a time),
// without splitting every field; any other record (quoted, of another field
// count, too long, the last one without a line break) goes through Next's
// path, alone in its batch. Fields is not set by it.
func (r *Reader) NextBatch(col, max int, b *Batch) bool {
	r.lazy, r.lqOK = nil, false
	b.recs, b.general, b.field = b.recs[:0], false, nil
	b.ints, b.scanned = b.ints[:0], false
	if r.err != nil || col < 0 || (r.want != 0 && col >= r.want) {
		return false
	}
	r.fastBatch(col, max, b)
	if len(b.recs) > 0 {
		return true
	}
	// Nothing for the fast path at r.start: one record the general way.
	if !r.Next() {
		return false
	}
	ln := int64(0)
	if r.known {
		ln = r.recLn
	}
	rs := int32(r.recOff - r.base) // r.raw starts there in r.buf
	b.buf, b.base = r.buf, r.base
	b.recs = append(b.recs, batchRec{rs: rs, re: rs + int32(len(r.raw)), line: ln})
	b.field, b.general = r.fields[col], true
	return true
}

// fastBatch appends to b the run of records at r.start, up to max, that are
// unquoted, end with '\n' in the buffered data, are at most maxRecord bytes
// and have r.want fields; blank lines among them are skipped as Next skips
// them. It stops before the first record that is not so and leaves r.start
// there.
func (r *Reader) fastBatch(col, max int, b *Batch) {
	if r.want == 0 {
		return // no header read: Next decides the field count
	}
	if r.qf < r.start {
		r.qf = r.end
		if q := bytes.IndexByte(r.buf[r.start:r.end], '"'); q >= 0 {
			r.qf = r.start + q
		}
	}
	buf := r.buf[:r.qf]
	b.buf, b.base = r.buf, r.base
	want, known := r.want, r.known
	sepw := r.sepw
	ls, fs := r.start, r.start // line start, current field start
	nf := 0                    // separators seen in the line
	ks, ke := 0, 0             // bounds of field col, once its separator is seen
	line := r.line
	recs := b.recs
	// Eight bytes at a time: the separators and line breaks of a word as bit
	// masks (zeroBytes: the high bit of each matching byte), visited in
	// order; the last bytes of the buffer one at a time (a mask of one
	// byte). The line break of a record is the bit that ends it: the byte
	// before it, for a CR, is in the same word unless the break is the
	// word's first byte.
	p := ls
	if col == want-1 {
		// The last column (the NBER join columns): line by line, counting
		// the separators of each line (countMarks) and taking the last
		// one's place, without visiting every separator; with ScanInts,
		// the field parsed as an integer while it is in the cache, until
		// the first that is not one (Ints).
		lastSep := -1
		ints, parse := b.ints, b.ScanInts
		b.scanned = parse
		// A step's masks: 64 bytes a bit each from the AVX2 block scanner
		// (masksAt), else 8 bytes the high bit each (zeroBytes); shift
		// turns a mask's bit index into its byte's, and a line's
		// separators are counted by the popcount of the mask's kind
		// (countMarks for the words, which on GOAMD64=v1 is cheaper than a
		// call).
		if blockAsm {
			s := lastRun{p: p, ls: ls, nf: nf, lastSep: lastSep, line: line, parse: parse}
			var stopped bool
			recs, ints, stopped = r.lastBlocks(&s, buf, want, max, known, recs, ints)
			p, ls, nf, lastSep, line, parse = s.p, s.ls, s.nf, s.lastSep, s.line, s.parse
			if stopped {
				b.ints = ints
				goto stop
			}
		}
		for {
			var mc, mn uint64
			step, shift := 8, 3
			switch {
			case blockAsm && p+64 <= len(buf):
				mc, mn = r.masksAt(p)
				step, shift = 64, 0
			case p+8 <= len(buf):
				w := binary.LittleEndian.Uint64(buf[p:])
				mc, mn = zeroBytes(w^sepw), zeroBytes(w^nls)
			default:
				goto tail
			}
			for ; mn != 0; mn &= mn - 1 {
				nl := mn & -mn
				below := mc & (nl - 1) // the line's separators in this step
				mc &^= nl | (nl - 1)
				if shift == 0 {
					nf += bits.OnesCount64(below)
				} else {
					nf += countMarks(below)
				}
				if below != 0 {
					lastSep = p + (63-bits.LeadingZeros64(below))>>shift
				}
				j := p + bits.TrailingZeros64(nl)>>shift
				end := j
				if end > ls && buf[end-1] == '\r' {
					end--
				}
				if end == ls { // a blank line: skipped, as Next does
					line++
					ls, nf, lastSep = j+1, 0, -1
					continue
				}
				if nf+1 != want || j-ls > maxRecord {
					b.ints = ints
					goto stop // Next reports or skips it
				}
				ks := ls
				if lastSep >= 0 {
					ks = lastSep + 1
				}
				line++
				if len(recs) == cap(recs) {
					recs = append(recs, batchRec{})
				} else {
					recs = recs[:len(recs)+1]
				}
				e := &recs[len(recs)-1]
				e.rs, e.re, e.fs, e.fe, e.line = int32(ls), int32(end), int32(ks), int32(end), line
				if !known {
					e.line = 0
				}
				if parse { // parseField8, written out: it does not inline
					n := uint(end - ks)
					if parse = n-1 <= 7 && ks+8 <= len(r.buf); parse {
						var v int64
						if v, parse = digits8(binary.LittleEndian.Uint64(r.buf[ks:]), n); parse {
							ints = append(ints, v)
						}
					}
				}
				ls, nf, lastSep = j+1, 0, -1
				if len(recs) == max {
					b.ints = ints
					goto stop
				}
			}
			if mc != 0 {
				if shift == 0 {
					nf += bits.OnesCount64(mc)
				} else {
					nf += countMarks(mc)
				}
				lastSep = p + (63-bits.LeadingZeros64(mc))>>shift
			}
			p += step
		}
	tail:
		// The last bytes of the buffer: the general loop below finishes the
		// line under way (its separators counted, the last one's field
		// start), and Ints parses the batch's fields after it.
		b.ints, b.scanned = ints[:0], false
		fs = ls
		if lastSep >= 0 {
			fs = lastSep + 1
		}
	}
	for p < len(buf) {
		var mc, mn uint64
		// A step's masks: 64 bytes a bit each (masksAt, AVX2), or 8 bytes
		// the high bit each (zeroBytes), or the last bytes one at a time;
		// shift turns a mask's bit index into its byte's.
		step, shift := 8, 3
		switch {
		case blockAsm && p+64 <= len(buf):
			mc, mn = r.masksAt(p)
			step, shift = 64, 0
		case p+8 <= len(buf):
			w := binary.LittleEndian.Uint64(buf[p:])
			mc, mn = zeroBytes(w^sepw), zeroBytes(w^nls)
		default:
			step = 1
			switch buf[p] {
			case r.sep:
				mc = 0x80
			case '\n':
				mn = 0x80
			}
		}
		for m := mc | mn; m != 0; m &= m - 1 {
			j := p + bits.TrailingZeros64(m)>>shift
			if mn&(m&-m) == 0 { // a separator
				if nf == col {
					ks, ke = fs, j
				}
				nf++
				fs = j + 1
				continue
			}
			// A line break: the line [ls, j) ends.
			end := j
			if end > ls && buf[end-1] == '\r' {
				end--
			}
			if end == ls { // a blank line: skipped, as Next does
				line++
				ls, fs, nf = j+1, j+1, 0
				continue
			}
			if nf+1 != want || j-ls > maxRecord {
				goto stop // Next reports or skips it
			}
			if nf == col { // the last field
				ks, ke = fs, end
			}
			line++
			// Fields written in place: a composite literal appended was built
			// on the stack with 4-byte stores and copied with 16-byte loads,
			// a store-forwarding stall that took half of the function's time.
			if len(recs) == cap(recs) {
				recs = append(recs, batchRec{})
			} else {
				recs = recs[:len(recs)+1]
			}
			e := &recs[len(recs)-1]
			e.rs, e.re, e.fs, e.fe, e.line = int32(ls), int32(end), int32(ks), int32(ke), line
			if !known {
				e.line = 0
			}
			ls, fs, nf = j+1, j+1, 0
			if len(recs) == max {
				goto stop
			}
		}
		p += step
	}
stop:
	b.recs = recs
	// The current record is the last one read (Raw, Offset, Line).
	if n := len(recs); n > 0 {
		last := &recs[n-1]
		r.raw, r.recOff, r.recLn = buf[last.rs:last.re], r.base+int64(last.rs), last.line
	}
	// Blank lines after the last record were consumed too; what starts at
	// ls is for the next call.
	r.start, r.line = ls, line
}

// masksAt returns the separator and line-break masks (masks64Go's) of the
// 64 bytes at r.buf[p:p+64], which must be data (p+64 <= r.end), from the
// block of masks computed ahead; when the block does not cover them it
// computes the next one from p (fillMasks). A word not on the block's grid
// (a batch starts where the last one stopped) is two words' masks shifted
// together. Cost: O(1) plus, once every maskBlockWords words, one call of
// the block scanner; the masks of a block are used across NextBatch calls
// until fill moves the data.
func (r *Reader) masksAt(p int) (seps, nls uint64) {
	off := p - r.mk0
	if off < 0 || off+64 > r.mn<<6 {
		r.fillMasks(p)
		off = 0
	}
	i, j, sh := off>>6, (off+63)>>6, uint(off&63)
	// sh == 0: i == j and x<<64 is 0 in Go.
	return r.mseps[i]>>sh | r.mseps[j]<<(64-sh), r.mnls[i]>>sh | r.mnls[j]<<(64-sh)
}

// fillMasks computes the masks of up to maskBlockWords 64-byte words of
// data from r.buf[p] (p+64 <= r.end) in one scanMasks call, never reading
// past r.end: a tail of under 64 bytes is left to the word loop. O(block).
func (r *Reader) fillMasks(p int) {
	if r.mseps == nil {
		r.mseps, r.mnls = make([]uint64, maskBlockWords), make([]uint64, maskBlockWords)
	}
	r.mk0, r.mn, r.mq = p, scanMasks(r.buf[p:r.end], r.sep, r.mseps, r.mnls), false
}

// masksQAt is masksAt with the quotes' mask too, from a block that has
// them (fillMasksQ). The same rules and cost.
func (r *Reader) masksQAt(p int) (seps, nls, qs uint64) {
	off := p - r.mk0
	if off < 0 || off+64 > r.mn<<6 || !r.mq {
		r.fillMasksQ(p)
		off = 0
	}
	i, j, sh := off>>6, (off+63)>>6, uint(off&63)
	return r.mseps[i]>>sh | r.mseps[j]<<(64-sh), r.mnls[i]>>sh | r.mnls[j]<<(64-sh), r.mqs[i]>>sh | r.mqs[j]<<(64-sh)
}

// fillMasksQ is fillMasks with the quotes' masks (scanMasksQ).
func (r *Reader) fillMasksQ(p int) {
	if r.mseps == nil {
		r.mseps, r.mnls = make([]uint64, maskBlockWords), make([]uint64, maskBlockWords)
	}
	if r.mqs == nil {
		r.mqs = make([]uint64, maskBlockWords)
	}
	r.mk0, r.mn, r.mq = p, scanMasksQ(r.buf[p:r.end], r.sep, r.mseps, r.mnls, r.mqs), true
}

// countMarks returns how many bytes a zeroBytes mask marks (its bits are
// high bits of bytes only): the marks moved to the low bits of their bytes
// and summed into the top byte by one multiplication (at most 8: no carry
// between bytes). bits.OnesCount64 is a CPU check and, on GOAMD64=v1, a
// function call whose spills in fastBatch's loop cost more than the
// separator's word does.
func countMarks(m uint64) int {
	return int((m >> 7) * 0x0101010101010101 >> 56)
}

// useTwoCol says lastBlocks calls twoColSteps where blockAsm holds and the
// CPU has it; tests turn it off to run the line loop alone.
var useTwoCol = hasTwoCol

// twoColState is lastBlocks' state handed to twoColSteps and back: the
// step's mask words and the end of those filled (addresses), the buffer,
// the last step's start (len(buf)-64), the line under way as lastRun has
// it, the next record and the end of those to write (addresses), and
// maxRecord, and the steps' start within their first mask word (0-63).
// Addresses are uintptrs: the slices they point into stay
// live in lastBlocks. The assembly reads its fields by offset
// (TestTwoColStateLayout).
type twoColState struct {
	seps, nls, sepsEnd uintptr
	buf                uintptr
	pEnd               int
	p, ls, lastSep, nf int
	line, lineMask     int64
	rec, recEnd        uintptr
	maxRec, sh         int
}

// lastRun is the state of the last-column scan that fastBatch hands to
// lastBlocks and takes back: the step's position p, the line under way (its
// start ls, its separators nf, its last separator lastSep, -1 for none),
// lines consumed, and whether the integers are still being parsed.
type lastRun struct {
	p, ls, nf, lastSep int
	line               int64
	parse              bool
}

// lastBlocks is fastBatch's loop for the last column on the block
// scanner's masks, written apart so that its state stays in registers (in
// fastBatch's body it was spilled to the stack at every line): it appends
// to recs the records of the whole 64-byte steps of buf from s.p, and
// to ints while s.parse their last fields' integers (parseLast8, in a
// pass of its own after the records are found), with the same rules, up
// to max records, and
// reports whether fastBatch is to stop (a record for Next, or max
// reached). It leaves in s what the rest of fastBatch's loop goes on from.
// Blank lines are skipped; a line of another field count or longer than
// maxRecord stops it at that line's start. O(bytes scanned).
func (r *Reader) lastBlocks(s *lastRun, buf []byte, want, max int, known bool, recs []batchRec, ints []int64) ([]batchRec, []int64, bool) {
	p, ls, nf, line, parse := s.p, s.ls, s.nf, s.line, s.parse
	// lastSep below ls means none: ls-1 makes the field start lastSep+1
	// whether the line has a separator or not.
	lastSep := s.lastSep
	if lastSep < ls {
		lastSep = ls - 1
	}
	seps := want - 1
	maxRec := maxRecord
	lineMask := int64(0) // the records' line numbers: line & lineMask
	if known {
		lineMask = -1
	}
	full := r.buf // the integers' 8-byte loads may read past buf (r.qf)
	n, nInts := len(recs), len(ints)
	parse = parse && nInts == n
	if max <= n {
		return recs, ints, true
	}
	recs = slices.Grow(recs, max-n)[:max]
	if parse {
		ints = slices.Grow(ints, max-nInts)[:max]
	}
	stop := false
	// twoColSteps (assembly) takes the two-column steps (one separator
	// a line: an edge list such as cite75_99) while their separators and
	// line breaks alternate; the line loop below does the step it stopped
	// at (a blank line, another field count, a first line over
	// maxRecord, fewer records left to max than lines), or the masks are
	// refilled first.
	two := blockAsm && useTwoCol && seps == 1 && maxRec >= 64 && len(recs) > 0
	var ts twoColState
	if two {
		ts = twoColState{
			buf:      uintptr(unsafe.Pointer(unsafe.SliceData(buf))),
			pEnd:     len(buf) - 64,
			lineMask: lineMask,
			recEnd:   uintptr(unsafe.Pointer(unsafe.SliceData(recs))) + uintptr(max)*unsafe.Sizeof(batchRec{}),
			maxRec:   maxRec,
		}
	}
	for p+64 <= len(buf) {
		off := p - r.mk0
		if off < 0 || off+64 > r.mn<<6 {
			r.fillMasks(p)
			off = 0
		}
		if two && nf <= 1 {
			// Words i to the last with a whole step from i's byte sh.
			i, sh := off>>6, off&63
			last := r.mn
			if sh != 0 {
				last-- // the step's masks take word i+1's too
			}
			ts.seps = uintptr(unsafe.Pointer(&r.mseps[i]))
			ts.nls = uintptr(unsafe.Pointer(&r.mnls[i]))
			ts.sepsEnd = uintptr(unsafe.Pointer(unsafe.SliceData(r.mseps))) + uintptr(last)*8
			ts.sh = sh
			ts.p, ts.ls, ts.lastSep, ts.nf, ts.line = p, ls, lastSep, nf, line
			ts.rec = uintptr(unsafe.Pointer(&recs[n]))
			twoColSteps(&ts)
			n = int((ts.rec - uintptr(unsafe.Pointer(unsafe.SliceData(recs)))) / unsafe.Sizeof(batchRec{}))
			p, ls, lastSep, nf, line = ts.p, ts.ls, ts.lastSep, ts.nf, ts.line
			if n == max {
				stop = true
				goto done
			}
			if p+64 > len(buf) {
				break
			}
			if off = p - r.mk0; off+64 > r.mn<<6 {
				continue // the masks' end: refilled at the loop's top
			}
		}
		i, sh := off>>6, uint(off&63)
		mc, mn := r.mseps[i]>>sh, r.mnls[i]>>sh
		if sh != 0 {
			mc |= r.mseps[i+1] << (64 - sh)
			mn |= r.mnls[i+1] << (64 - sh)
		}
		for mn != 0 {
			j := p + bits.TrailingZeros64(mn)
			low := (mn & -mn) - 1 // the bytes before the line break
			mn &= mn - 1
			below := mc & low
			mc &^= low
			nf += bits.OnesCount64(below)
			if below != 0 {
				lastSep = p + 63 - bits.LeadingZeros64(below)
			}
			end := j
			if end > ls && buf[end-1] == '\r' {
				end--
			}
			if end == ls { // a blank line: skipped, as Next does
				line++
				ls, nf, lastSep = j+1, 0, j
				continue
			}
			if nf != seps || j-ls > maxRec {
				stop = true // Next reports or skips it
				goto done
			}
			ks := lastSep + 1
			line++
			e := &recs[n]
			e.rs, e.re, e.fs, e.fe, e.line = int32(ls), int32(end), int32(ks), int32(end), line&lineMask
			n++
			ls, nf, lastSep = j+1, 0, j
			if n == max {
				stop = true
				goto done
			}
		}
		nf += bits.OnesCount64(mc)
		if mc != 0 {
			lastSep = p + 63 - bits.LeadingZeros64(mc)
		}
		p += 64
	}
done:
	if lastSep < ls {
		lastSep = -1
	}
	if parse {
		// The records' last fields parsed in a pass of their own, after
		// the scan: up to the first that is no integer of 1-8 digits.
		k := parseLast8(full, recs[nInts:n], ints[nInts:n])
		nInts += k
		parse = nInts == n
	}
	s.p, s.ls, s.nf, s.lastSep, s.line, s.parse = p, ls, nf, lastSep, line, parse
	return recs[:n], ints[:nInts], stop
}

// parseLast8 parses each record's field fs:fe of full as an integer of 1
// to 8 decimal digits into out (as long as recs), up to the first that is
// not one (or whose 8-byte load would pass full's end), and returns how
// many it parsed. With blockAsm, four at a time in AVX2
// (parseLast8AVX2: 0.52-0.55 against 3.2-3.4 ns a record on the AMD EPYC
// family 26, BenchmarkParseLast8), the rest and the group where one fails
// record by record, as without. The same results either way
// (TestParseLast8, FuzzParseLast8). O(len(recs)).
func parseLast8(full []byte, recs []batchRec, out []int64) int {
	out = out[:len(recs)]
	j0 := 0
	if blockAsm && len(recs) >= 4 {
		j0 = parseLast8AVX2(unsafe.SliceData(full), len(full), unsafe.SliceData(recs), len(recs), unsafe.SliceData(out))
	}
	for j := j0; j < len(recs); j++ {
		v, ok := parseField8(full, int(recs[j].fs), int(recs[j].fe))
		if !ok {
			return j
		}
		out[j] = v
	}
	return len(recs)
}
