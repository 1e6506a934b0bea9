package csvscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// ErrSyntax is wrapped by every error about malformed CSV.
var ErrSyntax = errors.New("malformed CSV")

// ParseError reports malformed input with its place: the file, and the line (or,
// for a reader over a byte range of a file, the byte offset of the record).
type ParseError struct {
	File   string
	Line   int64 // 1-based; 0 when unknown (range readers)
	Offset int64 // byte offset of the record in the file
	Msg    string
	Err    error // what Errorf wrapped (%w), or nil
	// Row says Line is a row's number in a table (Parquet, Arrow: package
	// table), Offset its index: the error reads "file: row N: ...".
	Row bool
}

// ErrTableFile marks a Parquet or Arrow file read as CSV (ReadHeader):
// a command that can read it by its name says so.
var ErrTableFile = errors.New("a Parquet or Arrow file read as CSV")

// ErrNoHeader marks a file with no header: no line but blank ones (or
// none). A side of several files skips such a file (OpenInputs): it holds
// no row, as DuckDB reads an empty file of a glob.
var ErrNoHeader = errors.New("empty file: no header")

func (e *ParseError) Error() string {
	if e.Row {
		return fmt.Sprintf("%s: row %d: %s", e.File, e.Line, e.Msg)
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: record at byte %d: %s", e.File, e.Offset, e.Msg)
}

// Unwrap returns ErrSyntax and what the error wraps.
func (e *ParseError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrSyntax, e.Err}
	}
	return []error{ErrSyntax}
}

const readSize = 128 << 10 // bytes read per fill: a buffer that stays in the L2 cache while it is scanned (1 MiB: 8% slower map phase)

// sampleReadSize is a sample part's fill (InputOptions.Sample): a sample
// reads a thousand rows or so of a part, and 128 KiB reads of 16 parts
// cost Filter auto's sample 2-4 ms of CPU beside the build (issue 43).
const sampleReadSize = 16 << 10

// MaxFields is the most fields a record (the header included) may have. It
// only stops a file that is no table from making records of millions of
// fields (a record of 1 MiB may hold a million commas): nothing else in
// the reader or the join depends on it. It was 1024, which refused real
// wide files even when --columns took three of their columns.
const MaxFields = 1 << 16

// maxRecord is the longest record accepted (1 MiB): its bytes from its start
// to its line break, which every path of the Reader counts the same way. The
// split proofs of input.go rely on it: a record and its line break never span
// more than maxRecord+1 bytes. A variable only so that tests can make it small.
var maxRecord = 1 << 20

// bom is the UTF-8 byte order mark, which some tools write at the start of a
// CSV file; the reader skips it before the header.
const bom = "\xef\xbb\xbf"

// Reader streams the records of a CSV file with a header row: fields
// separated by a comma, or by another byte set with SetSep (a tab for TSV),
// RFC 4180 double quotes ("" inside a quoted field is one quote; a quoted
// field may hold the separator, quotes and line breaks), empty fields, LF or
// CRLF line ends, blank lines skipped. Every record must have as many fields
// as the header. The quoting rules do not change with the separator: a TSV
// file is read as Python's csv module and DuckDB read it with a tab
// delimiter, and a quote inside an unquoted field is an error naming the
// line, never data.
//
// Next does not allocate per record: Fields returns slices into the Reader's
// buffer, valid until the next call to Next. Unquoted records are split 8
// bytes at a time; only records that contain a quote take the slower path.
//
// A Reader is not safe for concurrent use; give each goroutine its own.
type Reader struct {
	name   string
	src    io.Reader
	buf    []byte
	start  int   // first unread byte in buf
	end    int   // end of the data in buf
	base   int64 // file offset of buf[0]
	eof    bool
	line   int64 // lines consumed so far (0 when unknown: range readers)
	known  bool  // whether line numbers are known
	recOff int64 // file offset of the current record
	recLn  int64 // line of the current record
	// seqBase orders the records of a side of many files (OpenInputs):
	// the bytes of the files before this reader's (SeqBase).
	seqBase int64
	fields  [][]byte
	raw     []byte // the current record as it is in the file, without its line end
	unq     []byte // unquoted copies of quoted fields
	want    int    // fields per record; 0 until the header is read
	err     error
	// qf bounds the quote-free data: buf[start:qf] holds no '"'; qf < start
	// means unknown. The fast path of Next splits lines below qf.
	qf int
	// onBad, if set, receives malformed records, which are then skipped.
	onBad func(*ParseError)
	// sep is the field separator, ',' unless SetSep changed it; sepw is it
	// in every byte of a word, for the 8-byte scans (fastLine, fastBatch).
	sep  byte
	sepw uint64
	// The masks of the block scanner (scanMasks), computed a block ahead
	// for NextBatch (masksAt) and NextField (masksQAt, with the quotes'
	// in mqs): mseps[i] and mnls[i] cover the 64 bytes at
	// buf[mk0+64i:]; mn words are valid, none after fill (which moves the
	// data) or setSep. Allocated on first use, only with blockAsm.
	mk0, mn     int
	mseps, mnls []uint64
	// mqs are the quotes' masks of the same words when mq is set:
	// NextField's block path fills all three (fillMasksQ), NextBatch's
	// only the first two (fillMasks).
	mqs []uint64
	mq  bool
	// NextField's: the record's line up to its line break while its
	// Fields are not split yet (nil once they are, and after Next), the
	// field it asked for, and that field's column (-1: none).
	lazy     []byte
	field    []byte
	fieldCol int
	// The record lineFieldMasks read last (lqOK): its quotes' places and
	// field fieldCol's bounds with its quotes, from the line's start
	// (AppendOthers).
	lq       []int32
	lfs, lfe int
	lqOK     bool
	// chunk is the bytes a fill reads at least room for (readSize; a
	// sample's parts sampleReadSize).
	chunk int
}

// validSep reports why sep cannot separate fields, or nil if it can: any
// byte but the quote and the line end bytes ('"', '\n', '\r') and NUL.
// The quote and '\n' are excluded by the rules themselves; the split
// proofs of Input rely on it too (see Input).
func validSep(sep byte) error {
	switch sep {
	case '"':
		return fmt.Errorf("csvscan: separator %q: it is the quote character", sep)
	case '\n', '\r':
		return fmt.Errorf("csvscan: separator %q: it ends lines", sep)
	case 0:
		return fmt.Errorf("csvscan: separator %q: NUL is not a separator", sep)
	}
	return nil
}

// setSep sets the separator, validated by the caller.
func (r *Reader) setSep(sep byte) {
	r.sep, r.sepw = sep, uint64(sep)*0x0101010101010101
	r.mn = 0
}

// SetSep makes the Reader split fields at sep instead of ',': '\t' for a
// tab-separated file (SepFor tells by the file's name). Quoting stays RFC
// 4180's, with '"': a quoted field may hold sep, quotes and line breaks. Any
// byte but '"', '\n', '\r' and 0 is valid; SetSep returns an error for
// those, and for a Reader that has started reading: call it before
// ReadHeader.
func (r *Reader) SetSep(sep byte) error {
	if err := validSep(sep); err != nil {
		return err
	}
	if r.want != 0 || r.end != 0 || r.base != 0 || r.eof {
		return fmt.Errorf("csvscan: separator %q: set after %s was read from", sep, r.name)
	}
	r.setSep(sep)
	return nil
}

// SepFor returns the separator of a file by its name: '\t' when the name,
// without a trailing .gz or .zip, ends in .tsv or .tab (in any case), else
// ','. Standard input ("-") is ','.
func SepFor(path string) byte {
	name := strings.ToLower(path)
	for _, ext := range []string{".gz", ".zip"} {
		if strings.HasSuffix(name, ext) {
			name = strings.TrimSuffix(name, ext)
			break
		}
	}
	if strings.HasSuffix(name, ".tsv") || strings.HasSuffix(name, ".tab") {
		return '\t'
	}
	return ','
}

// SkipBad makes the Reader hand each malformed record (wrong field count, bad
// quoting, too long) to fn and go on with the next line, instead of stopping.
// I/O errors still stop it.
func (r *Reader) SkipBad(fn func(*ParseError)) { r.onBad = fn }

// NewReader returns a Reader for the whole of a file's content; name is used in
// error messages. Call ReadHeader first.
func NewReader(r io.Reader, name string) *Reader {
	r0 := &Reader{name: name, src: r, buf: make([]byte, readSize+1024), known: true}
	r0.setSep(',')
	return r0
}

// newRangeReader returns a Reader for a part of a file that starts at a record
// boundary at byte offset off (see Input). It has no header: every record must
// have nfields fields, separated by sep (valid). Errors name the record's byte
// offset instead of its line.
func newRangeReader(r io.Reader, name string, off int64, nfields int, sep byte) *Reader {
	return newRangeReaderSize(r, name, off, nfields, sep, readSize)
}

// newRangeReaderSize is newRangeReader reading chunk bytes at a time (at
// least: a record longer than its buffer grows it).
func newRangeReaderSize(r io.Reader, name string, off int64, nfields int, sep byte, chunk int) *Reader {
	r0 := &Reader{name: name, src: r, buf: make([]byte, chunk+1024), base: off, want: nfields, chunk: chunk}
	r0.setSep(sep)
	return r0
}

// newChunkReader returns a Reader over data, a whole chunk held in memory that
// starts at a record boundary at byte offset off, after line lines of the file.
// It parses data in place (no copy, no read buffer) and knows line numbers.
func newChunkReader(data []byte, name string, off, line int64, nfields int, sep byte) *Reader {
	// qf -1: no quote found yet. Its zero value said a quote at 0, and
	// with data already in buf (not read by fill, which resets it) a first
	// line that was blank went to splitQuoted as a record of one empty
	// field, past the blank-line rule (FuzzInput: a stream's blank line
	// after the header, an extra empty row or a wrong field-count error).
	r := &Reader{name: name, buf: data, end: len(data), eof: true, base: off, line: line, known: true, want: nfields, qf: -1}
	r.setSep(sep)
	return r
}

// newStreamReader returns a Reader for the rest of a stream that starts at a
// record boundary at byte offset off, after line lines; buffered holds the
// first bytes, already read from src.
func newStreamReader(buffered []byte, src io.Reader, name string, off, line int64, nfields int, sep byte) *Reader {
	r := &Reader{name: name, src: src, buf: make([]byte, max(readSize+1024, len(buffered)+readSize/2)), base: off, line: line, known: true, want: nfields, qf: -1} // qf: as newChunkReader's
	r.setSep(sep)
	r.end = copy(r.buf, buffered)
	return r
}

func (r *Reader) fail(msg string, args ...any) bool {
	ln := int64(0)
	if r.known {
		ln = r.recLn
	}
	r.err = &ParseError{File: r.name, Line: ln, Offset: r.recOff, Msg: fmt.Sprintf(msg, args...)}
	return false
}

// fill reads more data, keeping buf[start:end]. It reports whether any byte was
// added.
func (r *Reader) fill() bool {
	if r.eof {
		return false
	}
	r.qf = -1
	r.mn = 0 // the data moves: the block's masks are stale
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.base += int64(r.start)
		r.start, r.end = 0, n
	}
	chunk := r.chunk
	if chunk == 0 {
		chunk = readSize
	}
	if len(r.buf)-r.end < chunk/2 {
		if r.end > maxRecord {
			return false // the caller reports the over-long record
		}
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			if err != io.EOF {
				r.err = remote.Named("read", r.name, err)
			}
			r.eof = true
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// fillMore reads until at least max(4096, buffered) more bytes arrived, or the
// input ended: a record that spans many small reads is then rescanned a
// logarithmic number of times, not once per read.
func (r *Reader) fillMore() {
	want := max(4096, r.end-r.start)
	got := 0
	for got < want && !r.eof && r.err == nil {
		before := r.end - r.start
		if !r.fill() {
			return
		}
		got += r.end - r.start - before
	}
}

// ParseRecord parses one CSV record held in line (no header; nfields fields
// expected, 0 for any) with the Reader's rules. It sizes its buffer to the line
// instead of the streaming reader's megabyte, for callers that get lines one at
// a time (the Beam pipeline). It returns nil fields for a blank line. It is
// ParseRecordSep with sep ','.
func ParseRecord(line []byte, nfields int) ([][]byte, error) {
	return ParseRecordSep(line, nfields, ',')
}

// ParseRecordSep is ParseRecord for fields separated by sep ('\t' for TSV;
// see SetSep for the valid separators, and the error for others).
func ParseRecordSep(line []byte, nfields int, sep byte) ([][]byte, error) {
	if err := validSep(sep); err != nil {
		return nil, err
	}
	r := &Reader{name: "record", src: bytes.NewReader(line), buf: make([]byte, len(line)+readSize/256), want: nfields, known: true}
	r.setSep(sep)
	if !r.Next() {
		return nil, r.Err()
	}
	return r.Fields(), nil
}

// ReadHeader reads the header record and returns its column names. Later records
// must have as many fields.
func (r *Reader) ReadHeader() ([]string, error) {
	if r.base == 0 && r.start == 0 {
		for r.end < len(bom) && !r.eof && r.err == nil {
			r.fill()
		}
		if bytes.HasPrefix(r.buf[:r.end], []byte(bom)) {
			r.start = len(bom) // offsets stay file offsets: the header starts at byte 3
		}
		// A Parquet or Arrow file read as CSV (a pipe, a name without its
		// extension): say so, rather than take its bytes for column names.
		for r.end < 10 && !r.eof && r.err == nil {
			r.fill()
		}
		if format := tableMagic(r.buf[:r.end]); format != "" {
			r.err = &ParseError{File: r.name, Line: 1, Msg: fmt.Sprintf("this is no CSV: it begins as a%s %s file does; give its format (parquet or arrow)", article(format), format), Err: ErrTableFile}
			return nil, r.err
		}
		// A compression the reader does not undo (gzip and zip it does,
		// by their names): say which, not that its bytes hold a CR.
		if c := compressionMagic(r.buf[:r.end]); c != "" {
			r.err = &ParseError{File: r.name, Line: 1, Msg: fmt.Sprintf("this is no CSV: it begins as %s-compressed data does, which the join does not read: decompress it (or recompress it with gzip, named .gz)", c)}
			return nil, r.err
		}
	}
	if !r.Next() {
		if r.err != nil {
			return nil, r.err
		}
		return nil, &ParseError{File: r.name, Line: 1, Msg: "empty file: no header", Err: ErrNoHeader}
	}
	names := make([]string, len(r.fields))
	for i, f := range r.fields {
		names[i] = string(f)
		if bytes.IndexByte(f, '\r') >= 0 {
			// Lines ended by CR alone (classic Mac OS) read as one line: the
			// whole file would be the header and no rows. Refuse, not join
			// nothing.
			r.err = &ParseError{File: r.name, Line: 1, Offset: r.recOff,
				Msg: "the header holds a carriage return (\\r): lines ended by CR alone are not supported; convert them with tr '\\r' '\\n'"}
			return nil, r.err
		}
	}
	r.want = len(names)
	return names, nil
}

// AnyFieldCount lets later records have any number of fields, instead of
// the header's (ReadHeader sets that count): for files whose records are not
// all of one shape (join stream's key events, whose deletes hold the key
// only). The caller checks each record's count. O(1).
func (r *Reader) AnyFieldCount() { r.want = 0 }

// Next advances to the next record and reports whether there is one. At the end
// of the input or on an error it returns false; Err tells which.
func (r *Reader) Next() bool {
	r.lqOK = false // AppendOthers: not this record
	for {
		if r.next() {
			return true
		}
		var pe *ParseError
		if r.onBad == nil || !errors.As(r.err, &pe) {
			return false
		}
		r.onBad(pe)
		r.err = nil
		if r.base+int64(r.start) == pe.Offset && !r.skipLine() {
			return false
		}
	}
}

// skipLine moves past the line at r.start (a malformed record that was not
// consumed). It reports false at an I/O error.
func (r *Reader) skipLine() bool {
	for {
		if i := bytes.IndexByte(r.buf[r.start:r.end], '\n'); i >= 0 {
			r.start += i + 1
			r.line++
			return true
		}
		if r.eof {
			r.start = r.end
			return true
		}
		r.start = r.end // the line goes on: drop what is buffered
		r.fill()
		if r.err != nil {
			return false
		}
	}
}

func (r *Reader) next() bool {
	r.lazy = nil
	if r.err != nil {
		return false
	}
	for {
		switch r.fastLine() {
		case lineSplit:
			if len(r.fields) == 1 && len(r.fields[0]) == 0 {
				continue // blank line
			}
			if len(r.fields) == r.want {
				return true
			}
			return r.check()
		case lineQuoted: // never blank: it holds a quote
			return r.check()
		}
		// The general path: a quote ahead, a line past the buffered data, or
		// the last line without a newline.
		nl := bytes.IndexByte(r.buf[r.start:r.end], '\n')
		if nl < 0 && !r.eof {
			if r.end-r.start > maxRecord {
				r.recOff, r.recLn = r.base+int64(r.start), r.line+1
				return r.tooLong()
			}
			r.fillMore()
			if r.err != nil {
				return false
			}
			continue
		}
		lineEnd := r.end // the last line may lack a newline
		next := r.end
		if nl >= 0 {
			lineEnd = r.start + nl
			next = lineEnd + 1
		}
		if r.start == r.end {
			return false // end of input
		}
		r.recOff, r.recLn = r.base+int64(r.start), r.line+1
		if lineEnd-r.start > maxRecord {
			return r.tooLong()
		}
		line := r.buf[r.start:lineEnd]
		if bytes.IndexByte(line, '"') >= 0 {
			if simpleQuotes && r.splitQuoted(line, r.fields[:0], 0) {
				r.line++
				r.start = next
				return r.check()
			}
			ok, again := r.parseQuoted()
			if again {
				continue
			}
			return ok
		}
		r.line++
		r.start = next
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		r.raw = line
		if len(line) == 0 {
			continue // blank line
		}
		r.fields = r.fields[:0]
		for sep := r.sep; ; {
			i := bytes.IndexByte(line, sep)
			if i < 0 {
				r.fields = append(r.fields, line)
				break
			}
			r.fields = append(r.fields, line[:i])
			line = line[i+1:]
		}
		return r.check()
	}
}

func (r *Reader) check() bool {
	if r.want != 0 && len(r.fields) != r.want {
		return r.fail("%d fields, want %d", len(r.fields), r.want)
	}
	if len(r.fields) > MaxFields {
		return r.fail("more than %d fields, the most a CSV record may have (a wider table can be read as Parquet or Arrow)", MaxFields)
	}
	return true
}

// tooLong fails the current record for being longer than maxRecord, saying
// what the limit is and what to do: where its first maxRecord bytes (every
// caller has them buffered, so the message does not depend on how the
// bytes arrived) hold a quote, an unclosed one runs on; else no line break
// came in them (a binary file, /dev/zero).
func (r *Reader) tooLong() bool {
	why := "no line break within them (is this a text file?)"
	if bytes.IndexByte(r.buf[r.start:min(r.end, r.start+maxRecord)], '"') >= 0 {
		why = "a quoted field runs on past it: a quote left unclosed at this line, or a field of more than that (look for the quote)"
	}
	return r.fail("record longer than %d bytes (%s), the most a CSV record may take: %s; a longer record can be read as Parquet or Arrow", maxRecord, sizeText(maxRecord), why)
}

// sizeText is n bytes in MiB or KiB when it is a whole number of them.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// SWAR constants: a byte-wise test of 8 bytes at once. The separator's
// word is the Reader's (sepw): zeroBytes(w ^ r.sepw) marks its bytes.
const (
	lo7 = 0x7f7f7f7f7f7f7f7f
	nls = 0x0a0a0a0a0a0a0a0a // '\n'
)

// zeroBytes returns a mask with the high bit of every byte of x that is zero,
// and no other bit: (x&lo7)+lo7 sets the high bit of every byte whose low 7
// bits are not all zero, without carries between bytes; or-ing x adds bytes
// whose high bit is set. (Hacker's Delight, 2nd ed., 6-1.)
func zeroBytes(x uint64) uint64 {
	return ^((x&lo7 + lo7) | x | lo7)
}

// What fastLine did with the line at r.start.
const (
	lineLeft   = iota // nothing: the general path reads it
	lineSplit         // split: a line without quotes, maybe blank
	lineQuoted        // split by splitQuoted: a line with quotes
)

// fastLine splits the line at r.start if it ends with '\n' before the next
// quote in the buffer (lineSplit), or, when a quote comes first, if its
// quotes are simple ones (splitQuoted: lineQuoted). It looks at 8 bytes per
// step and jumps from one separator or newline to the next.
func (r *Reader) fastLine() int {
	if r.qf < r.start {
		r.qf = r.end
		if q := bytes.IndexByte(r.buf[r.start:r.end], '"'); q >= 0 {
			r.qf = r.start + q
		}
	}
	buf := r.buf[:r.qf]
	fields := r.fields[:0]
	sepw := r.sepw
	fs, i := r.start, r.start
	nl := -1
	for ; i+8 <= len(buf); i += 8 {
		w := binary.LittleEndian.Uint64(buf[i:])
		mc := zeroBytes(w ^ sepw)
		mn := zeroBytes(w ^ nls)
		if mn != 0 {
			mc &= mn&-mn - 1 // only the separators before the first newline
			for ; mc != 0; mc &= mc - 1 {
				j := i + bits.TrailingZeros64(mc)>>3
				fields = append(fields, buf[fs:j])
				fs = j + 1
			}
			nl = i + bits.TrailingZeros64(mn)>>3
			break
		}
		for ; mc != 0; mc &= mc - 1 {
			j := i + bits.TrailingZeros64(mc)>>3
			fields = append(fields, buf[fs:j])
			fs = j + 1
		}
	}
	if nl < 0 {
		for sep := r.sep; i < len(buf); i++ {
			if c := buf[i]; c == '\n' {
				nl = i
				break
			} else if c == sep {
				fields = append(fields, buf[fs:i])
				fs = i + 1
			}
		}
	}
	if nl < 0 && r.qf < r.end && simpleQuotes {
		// A quote ended the scan, in this line: the fields before it are
		// split; splitQuoted goes on from the field it is in.
		if q := bytes.IndexByte(r.buf[r.qf:r.end], '\n'); q >= 0 && r.qf+q-r.start <= maxRecord &&
			r.splitQuoted(r.buf[r.start:r.qf+q], fields, fs-r.start) {
			r.recOff, r.recLn = r.base+int64(r.start), r.line+1
			r.line++
			r.start = r.qf + q + 1
			return lineQuoted
		}
	}
	if nl < 0 || nl-r.start > maxRecord {
		r.fields = fields
		return lineLeft // the general path handles it
	}
	last := buf[fs:nl]
	r.raw = buf[r.start:nl]
	if n := len(last); n > 0 && last[n-1] == '\r' {
		last = last[:n-1]
		r.raw = r.raw[:len(r.raw)-1]
	}
	r.fields = append(fields, last)
	r.recOff, r.recLn = r.base+int64(r.start), r.line+1
	r.line++
	r.start = nl + 1
	return lineSplit
}

// simpleQuotes enables splitQuoted; tests turn it off to compare it with
// parseQuoted.
var simpleQuotes = true

// splitQuoted splits line, a record of one line that holds a quote (its
// bytes up to its line break, or to the end of the input), when every quote
// in it opens a field or closes one: a quoted field is a quote, bytes
// without a quote or line break (separators are data), and a quote right
// before a separator or the line's end ("BE",, as the NBER patents quote
// their text fields). Its fields are then slices of the line, unquoted in
// place, as fastLine's are, 8 bytes a step, and Raw is the line. fields
// are the fields of line[:fs], which holds no quote, already split (fs is
// a field's start). Any other record (a doubled quote, a quote inside an
// unquoted field or after a closing quote, a line break inside quotes) is
// left to parseQuoted, which reads it or says what is wrong: splitQuoted
// reports false and sets nothing. Fields and Raw are parseQuoted's, byte
// for byte (TestSplitQuotedMatchesParse).
func (r *Reader) splitQuoted(line []byte, fields [][]byte, fs int) bool {
	body := line // a CR before the break (or at the input's end) ends the record
	if n := len(body); n > 0 && body[n-1] == '\r' {
		body = body[:n-1]
	}
	raw := body                       // Raw without the line end: a CR before it is the last field's, as in fastLine's
	const quotes = 0x2222222222222222 // '"' in every byte
	sepw := r.sepw
	closed := -1 // the current field's closing quote, -1 before it
	inq := false // between a field's opening quote and its closing one
	var tail [8]byte
	for i := fs; i < len(body); i += 8 {
		var w uint64
		if i+8 <= len(body) {
			w = binary.LittleEndian.Uint64(body[i:])
		} else {
			// The last bytes, zero-padded: a zero byte is neither the
			// separator (validSep) nor a quote.
			tail = [8]byte{}
			copy(tail[:], body[i:])
			w = binary.LittleEndian.Uint64(tail[:])
		}
		ms, mq := zeroBytes(w^sepw), zeroBytes(w^quotes)
		if mq == 0 && !inq { // separators only, as fastLine splits them
			for ; ms != 0; ms &= ms - 1 {
				j := i + bits.TrailingZeros64(ms)>>3
				if closed >= 0 {
					if closed != j-1 {
						return false
					}
					fields = append(fields, body[fs+1:closed])
					closed = -1
				} else {
					fields = append(fields, body[fs:j])
				}
				fs = j + 1
			}
			continue
		}
		for m := ms | mq; m != 0; m &= m - 1 {
			j := i + bits.TrailingZeros64(m)>>3
			if mq&(m&-m) != 0 {
				switch {
				case inq:
					inq, closed = false, j
				case j == fs && closed < 0:
					inq = true
				default: // inside an unquoted field, or after a closing quote
					return false
				}
				continue
			}
			if inq {
				continue // a separator inside quotes is data
			}
			if closed >= 0 {
				if closed != j-1 {
					return false // bytes between the closing quote and the separator
				}
				fields = append(fields, body[fs+1:closed])
				closed = -1
			} else {
				fields = append(fields, body[fs:j])
			}
			fs = j + 1
		}
	}
	switch {
	case inq:
		return false // a quoted field goes on past the line break
	case closed >= 0:
		if closed != len(body)-1 {
			return false
		}
		fields = append(fields, body[fs+1:closed])
	default:
		fields = append(fields, body[fs:])
	}
	r.fields, r.raw = fields, raw
	return true
}

// parseQuoted parses the record at r.start, which contains a quote, byte by
// byte. It returns again = true when the record may continue past the buffered
// data: more was read and the caller must retry.
func (r *Reader) parseQuoted() (ok, again bool) {
	data := r.buf[r.start:r.end]
	r.fields = r.fields[:0]
	r.unq = r.unq[:0]
	// Field bounds into r.unq, resolved to slices at the end (r.unq may grow).
	type span struct{ a, b int }
	var spans [64]span
	sp := spans[:0]
	lines := int64(1)
	sep := r.sep
	i := 0
record:
	for {
		a := len(r.unq)
		if i < len(data) && data[i] == '"' {
			i++
			closed := false
			for i < len(data) {
				c := data[i]
				if c == '"' {
					if i+1 < len(data) && data[i+1] == '"' { // "" is one quote
						r.unq = append(r.unq, '"')
						i += 2
						continue
					}
					if i+1 == len(data) && !r.eof {
						return r.needMore() // a second quote may follow
					}
					i++
					closed = true
					break
				}
				if c == '\n' {
					lines++
				}
				r.unq = append(r.unq, c)
				i++
			}
			if !closed {
				if r.eof {
					return r.failAt(len(data), "quoted field %d is not closed before the end of the file", len(sp)+1), false
				}
				return r.needMore()
			}
		} else {
			for i < len(data) && data[i] != sep && data[i] != '\n' {
				c := data[i]
				if c == '"' {
					return r.failAt(i, "quote inside unquoted field %d", len(sp)+1), false
				}
				if c == '\r' {
					if i+1 == len(data) {
						if !r.eof {
							return r.needMore()
						}
						break // CR at the end of the input ends the line
					}
					if data[i+1] == '\n' {
						break // CRLF
					}
				}
				r.unq = append(r.unq, c)
				i++
			}
		}
		sp = append(sp, span{a, len(r.unq)})
		if i == len(data) {
			if !r.eof {
				return r.needMore()
			}
			break
		}
		switch data[i] {
		case sep:
			i++
			continue
		case '\n':
			i++
			break record
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					i += 2
					break record
				}
			} else if !r.eof {
				return r.needMore()
			} else {
				i++
				break record
			}
		}
		return r.failAt(i, "unexpected %q after the closing quote of field %d", data[i], len(sp)), false
	}
	// Raw is the record without its line end (LF, CR LF, or a CR at the
	// input's end): one CR, the line end's; a CR before it is the last
	// field's, as the fields have it (a review found a quoted row ending CR
	// CR LF written without its field's CR, the raw row having lost it).
	raw := data[:i]
	if n := len(raw); n > 0 && raw[n-1] == '\n' {
		raw = raw[:n-1]
	}
	if n := len(raw); n > 0 && raw[n-1] == '\r' {
		raw = raw[:n-1]
	}
	upToBreak := i
	if upToBreak > 0 && data[upToBreak-1] == '\n' {
		upToBreak--
	}
	if upToBreak > maxRecord {
		// The record's bytes up to its line break: refused over maxRecord
		// however much is buffered, as every path of the reader does (the
		// split proofs of input.go rely on it).
		return r.tooLong(), false
	}
	r.raw = raw
	r.start += i
	r.line += lines
	for _, s := range sp {
		r.fields = append(r.fields, r.unq[s.a:s.b])
	}
	return r.check(), false
}

// failAt fails the record at r.start for a problem found pos bytes into it.
// Past maxRecord bytes the record is too long whatever else is wrong: a
// reader that buffered less would have stopped there, so the message does
// not depend on how the bytes arrived.
func (r *Reader) failAt(pos int, msg string, args ...any) bool {
	if pos > maxRecord {
		return r.tooLong()
	}
	return r.fail(msg, args...)
}

// needMore reads more input for a record that continues past the buffer.
func (r *Reader) needMore() (ok, again bool) {
	if r.end-r.start > maxRecord { // its line break is past the buffer
		return r.tooLong(), false
	}
	r.fillMore()
	return false, r.err == nil
}

// Fields returns the fields of the current record, unquoted. The slices are
// valid until the next call to Next. After NextField's fast path the first
// call splits the record (splitQuoted, which accepts every line that path
// does).
func (r *Reader) Fields() [][]byte {
	if r.lazy != nil {
		line := r.lazy
		r.lazy = nil
		if !r.splitQuoted(line, r.fields[:0], 0) {
			// Not reached: NextField's fast path takes only lines that
			// splitQuoted splits (FuzzNextField).
			r.fields, _ = ParseRecordSep(r.raw, r.want, r.sep)
		}
	}
	return r.fields
}

// Raw returns the current record as it appears in the file (quotes included),
// without its line end. Valid until the next call to Next.
func (r *Reader) Raw() []byte { return r.raw }

// Line returns the line number of the current record (the header is line 1), or
// 0 for a range reader.
func (r *Reader) Line() int64 {
	if !r.known {
		return 0
	}
	return r.recLn
}

// Pos returns the file offset of the first byte not yet consumed: after
// ReadHeader, where the first record starts.
func (r *Reader) Pos() int64 { return r.base + int64(r.start) }

// lines returns how many lines the Reader has consumed (0 when unknown).
func (r *Reader) lines() int64 { return r.line }

// buffered returns the bytes read from the source but not consumed yet.
func (r *Reader) buffered() []byte { return r.buf[r.start:r.end] }

// Name returns the file name used in error messages.
func (r *Reader) Name() string { return r.name }

// Offset returns the byte offset of the current record in the file.
func (r *Reader) Offset() int64 { return r.recOff }

// SeqBase is what orders the records of a side of many files
// (OpenInputs) one file after the other: the bytes of the files before
// this reader's (0 for a side of one file). A record's place in the side
// is SeqBase + Offset; Offset stays its place in its file, which messages
// and ParseError give.
func (r *Reader) SeqBase() int64 { return r.seqBase }

// Err returns the first error met, or nil at a clean end of input.
func (r *Reader) Err() error { return r.err }

// Errorf returns a ParseError for the current record, for callers that find a
// field invalid.
func (r *Reader) Errorf(format string, args ...any) error {
	e := fmt.Errorf(format, args...) // %w wraps, as fmt.Errorf does
	r.fail("%s", e.Error())
	err := r.err.(*ParseError)
	r.err = nil
	if errors.Unwrap(e) != nil || len(unwrapAll(e)) > 0 {
		err.Err = e
	}
	return err
}

// unwrapAll returns what e wraps with Unwrap() []error (fmt.Errorf of
// several %w).
func unwrapAll(e error) []error {
	if u, ok := e.(interface{ Unwrap() []error }); ok {
		return u.Unwrap()
	}
	return nil
}

// ErrNotInteger is wrapped by ParseInt's errors: a field that is not a
// decimal integer of int64 (a key of type int that is text).
var ErrNotInteger = errors.New("not an integer")

// intError is an error of ParseInt.
type intError struct{ msg string }

func (e *intError) Error() string        { return e.msg }
func (e *intError) Is(target error) bool { return target == ErrNotInteger }

// ParseInt parses a decimal integer field without allocating. Unsigned
// fields of 1 to 8 digits whose slice has room for 8 bytes (fields returned by
// Reader do, being slices of its buffer) are parsed 8 bytes at once.
func ParseInt(b []byte) (int64, error) {
	if v, ok := ParseDigits8(b); ok {
		return v, nil
	}
	return parseIntSlow(b)
}

// ParseDigits8 is ParseInt's fast path, small enough to inline: the value of
// b if it is 1 to 8 plain decimal digits with room for 8 bytes in its slice
// (fields returned by Reader have it), and true; else false, and ParseInt
// decides.
func ParseDigits8(b []byte) (int64, bool) {
	n := uint(len(b))
	if n-1 > 7 || cap(b) < 8 { // n-1 wraps for n = 0
		return 0, false
	}
	return digits8(binary.LittleEndian.Uint64(b[:8]), n)
}

// parse8 converts 8 ASCII digits, the first in the lowest byte, to their value
// with three multiplications (Lemire, "Fast number parsing", 2021: pairs, then
// quads, then the whole).
func parse8(w uint64) uint64 {
	w -= 0x3030303030303030
	w = w*10 + w>>8 // each byte pair: 10*first + second, in the low byte
	const mask = 0x000000FF000000FF
	const mul1 = 100 + 1000000<<32
	const mul2 = 1 + 10000<<32
	return ((w&mask)*mul1 + (w>>16&mask)*mul2) >> 32
}

func parseIntSlow(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, &intError{"empty integer"}
	}
	neg := false
	s := b
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
		if len(s) == 0 {
			return 0, &intError{fmt.Sprintf("invalid integer %q", b)}
		}
	}
	if len(s) > 18 {
		v, err := strconv.ParseInt(string(b), 10, 64) // rare: let strconv handle overflow
		if err != nil {
			return 0, &intError{fmt.Sprintf("invalid integer %q: %v", b, errors.Unwrap(err))}
		}
		return v, nil
	}
	var v int64
	for _, c := range s {
		d := c - '0' // wraps for bytes below '0'
		if d > 9 {
			return 0, &intError{fmt.Sprintf("invalid integer %q", b)}
		}
		v = v*10 + int64(d)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// tableMagic names the format whose magic begins head: "PAR1" then a
// control byte (Parquet's first page header), "ARROW1" then a NUL (Arrow's
// file format); "" for anything else, which is read as CSV.
func tableMagic(head []byte) string {
	switch {
	case len(head) > 4 && string(head[:4]) == "PAR1" && head[4] < 0x20 && head[4] != '\t' && head[4] != '\n' && head[4] != '\r':
		return "Parquet"
	case len(head) > 6 && string(head[:6]) == "ARROW1" && head[6] == 0:
		return "Arrow IPC"
	case len(head) >= 8 && string(head[:4]) == "\xff\xff\xff\xff" && head[7] < 0x80:
		// The IPC stream format's continuation marker, then its first
		// message's length (little-endian, positive).
		return "Arrow IPC stream"
	}
	return ""
}

// compressionMagic names the compression whose magic bytes head starts
// with: gzip (read as such only by a .gz name), bzip2, xz, zstd, lz4;
// "" for none. No text file starts with these bytes (bzip2's "BZh" is
// followed by a block size digit and a block's magic).
func compressionMagic(head []byte) string {
	switch {
	case len(head) >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8:
		return "gzip"
	case len(head) >= 10 && string(head[:3]) == "BZh" && head[3] >= '1' && head[3] <= '9' && string(head[4:10]) == "\x31\x41\x59\x26\x53\x59":
		return "bzip2"
	case len(head) >= 6 && string(head[:6]) == "\xfd7zXZ\x00":
		return "xz"
	case len(head) >= 4 && string(head[:4]) == "\x28\xb5\x2f\xfd":
		return "zstd"
	case len(head) >= 4 && string(head[:4]) == "\x04\x22\x4d\x18":
		return "lz4"
	}
	return ""
}

// article is "n" before a word that starts with a vowel ("an Arrow").
func article(w string) string {
	if w != "" && strings.ContainsRune("AEIOU", rune(w[0])) {
		return "n"
	}
	return ""
}
