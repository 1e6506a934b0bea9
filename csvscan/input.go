package csvscan

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// Input is a CSV file opened for one pass, its header read, that hands out
// Parts: pieces starting at proven record boundaries, for parallel readers.
//
// What is read, and how (docs/design.md, "Safety"):
//   - A plain regular file is cut into byte ranges (ReaderAt), read in
//     parallel; the bytes are read once more only to prove the cut points.
//   - Anything else (standard input "-", a pipe, a FIFO, a device, a gzip or
//     zip file) is read once, in order, by whichever Part asks for more: it
//     is cut into in-memory chunks at proven boundaries; when no boundary can
//     be proven the rest of the stream is one Part, read by one reader.
//
// A cut point is proven, given that the previous one is a record boundary,
// by either rule:
//   - Window: the maxRecord+2 bytes before it (or all bytes since the
//     previous boundary, if fewer) hold no quote and end with '\n'. No record
//     spans more than maxRecord+2 bytes, so the record that holds the
//     window's last line started inside the quote-free window and ends at
//     its first line break. Holds for every input, malformed rows skipped or
//     not.
//   - Parity: the bytes since the previous boundary hold an even number of
//     quotes and end with '\n'. In RFC 4180 CSV every record holds an even
//     number of quotes and a quoted field an odd number before its end, so
//     an even-parity line break ends a record. Malformed quoting breaks this,
//     so the rule is used only when the first malformed row stops the read
//     (not with SkipBad): every part before that row is cut right, the part
//     holding it starts right and fails at it, and the caller reports the
//     error with the lowest offset (FirstError), the sequential reader's.
//
// Neither rule looks at the field separator: only quotes and line breaks
// decide where records end, and the separator is never '"', '\n' or '\r'
// (see SetSep), so the proofs hold for a TSV file as for a CSV one.
//
// Next is safe for concurrent use; each Part is for one goroutine.
type Input struct {
	Path, Name string
	Header     []string
	HeaderRaw  []byte // the header as it is in the file, without a BOM or line end
	// Size is the number of bytes after the header, -1 for a stream.
	Size int64
	// Regular reports a plain regular file, read by ranges.
	Regular bool

	opt     InputOptions
	nfields int
	osFile  *os.File    // a regular file, for Unchanged
	info    os.FileInfo // its state when opened
	ctx     context.Context
	closeMu sync.Mutex // not mu: a Read blocked under mu must not block Close
	closers []io.Closer
	stop    func() bool // stops the AfterFunc that closes the stream

	mu     sync.Mutex
	file   io.ReaderAt // regular: read with ReadAt
	ranges []Range
	next   int
	// stream state: pend holds bytes read and not handed out, starting at a
	// proven boundary at file offset off after line lines.
	src       io.Reader
	pend      []byte
	off, line int64
	eof, done bool
	err       error
	free      [][]byte

	progress atomic.Int64

	// files are the inputs of a side of many files (OpenInputs), read one
	// after the other from files[cur]; each's seqBase is the bytes of the
	// files before it, fileSize its own.
	files    []*Input
	cur      int
	seqBase  int64
	fileSize int64
}

// InputOptions configures OpenInput.
type InputOptions struct {
	// Parts is how many byte ranges a regular file is cut into, at most
	// (default 1). Streams are cut into chunks of ChunkSize bytes.
	Parts int
	// SkipBad says the Parts' readers will skip malformed rows: only the
	// window rule proves a boundary then.
	SkipBad bool
	// Taper says the Parts are handed out as readers finish them, several
	// a reader: a large file's parts then shrink toward its end
	// (cutTargets). Without it they are equal, as they must be where each
	// reader gets one (a pass of as many parts as mappers, beam's Spans).
	Taper bool
	// Sample cuts a regular file at the first line break after each
	// target without proving it a record boundary (which reads up to
	// maxRecord+2 bytes before each cut: 15 MiB for a sample of 16 parts
	// of a few hundred KB). A cut inside a quoted field that spans lines
	// makes its part start mid-record: for statistical samples only, read
	// with SkipBad, where such a row is a sampling error, never a result.
	Sample bool
	// ChunkSize is the size of a stream's chunks (default 1 MiB).
	ChunkSize int
	// Name, if set, names the input in messages instead of its path (a
	// temporary copy of a stream keeps the stream's name).
	Name string
	// Sep is the field separator of the header and of every Part's
	// records: 0 means ','; '\t' reads a TSV file (SepFor tells by the
	// file's name). Quoting is RFC 4180's whatever the separator; see
	// SetSep for the valid separators.
	Sep byte
}

// sep returns the separator Sep stands for (0: ','), or why it is invalid.
func (opt InputOptions) sep() (byte, error) {
	if opt.Sep == 0 {
		return ',', nil
	}
	return opt.Sep, validSep(opt.Sep)
}

// Part is one piece of an Input: a Reader positioned at a record boundary.
// Call Release when done with it.
type Part struct {
	*Reader
	// Len is the number of bytes it covers; 0 for the rest of a stream.
	Len     int64
	release func()
}

// Release returns a stream chunk's memory to its Input.
func (p *Part) Release() {
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

// ErrFolder is returned when an input names a folder.
var ErrFolder = errors.New("is a folder, want a file")

// stdinName is how standard input ("-") is named in messages.
const stdinName = "stdin"

// OpenInput opens path ("-" for standard input) and reads its header. Opening
// a FIFO waits for a writer, but returns ctx's error when ctx ends first;
// when ctx ends while the stream is read, the stream is closed so that a
// blocked read returns. A UTF-8 byte order mark before the header is skipped;
// gzip and zip content is recognised by its first bytes. An invalid
// opt.Sep is an error, returned before the file is opened.
func OpenInput(ctx context.Context, path string, opt InputOptions) (*Input, error) {
	if _, err := opt.sep(); err != nil {
		return nil, err
	}
	s, err := openStream(ctx, path)
	if err != nil {
		return nil, err
	}
	return openInput(ctx, path, s, opt)
}

// openInput reads the header of an opened stream.
func openInput(ctx context.Context, path string, s *stream, opt InputOptions) (*Input, error) {
	opt.Parts = max(opt.Parts, 1)
	if opt.ChunkSize <= 0 {
		opt.ChunkSize = 1 << 20
	}
	if opt.Name != "" {
		s.name = opt.Name
	}
	in := &Input{Path: path, Name: s.name, opt: opt, closers: s.closers, Size: -1, ctx: ctx, stop: s.stop, osFile: s.file, info: s.info}
	var err error
	if in.opt.Sep, err = opt.sep(); err != nil {
		in.Close()
		return nil, err
	}
	r := NewReader(s.r, s.name)
	r.setSep(in.opt.Sep)
	header, err := r.ReadHeader()
	if err != nil {
		in.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	in.Header, in.HeaderRaw, in.nfields = header, bytes.Clone(r.Raw()), len(header)
	if s.regular != nil {
		in.Regular, in.file = true, s.regular
		start := r.Pos()
		in.Size, in.fileSize = s.size-start, s.size
		if in.ranges, err = splitRanges(s.regular, start, s.size, opt.Parts, !opt.SkipBad, opt.Sample, opt.Taper); err != nil {
			in.Close()
			return nil, remote.Named("read", s.name, err)
		}
		return in, nil
	}
	in.src = s.r
	in.pend = append(make([]byte, 0, max(opt.ChunkSize, len(r.buffered()))+4096), r.buffered()...)
	in.off, in.line = r.Pos(), r.lines()
	in.eof = r.eof
	in.progress.Store(int64(len(in.pend)))
	return in, nil
}

// Progress returns how many bytes after the header have been read, as they
// are read: from the ranges of a regular file, or taken from a stream.
func (in *Input) Progress() int64 {
	if in.files != nil {
		var n int64
		for _, f := range in.files {
			n += f.Progress()
		}
		return n
	}
	return in.progress.Load()
}

// ErrChanged is returned by Unchanged for a file written while it was read.
var ErrChanged = errors.New("changed while it was read")

// Unchanged reports an error wrapping ErrChanged if the input is a regular
// file whose size or modification time differs from when it was opened: a
// file truncated, appended to or rewritten during the read gave records of no
// one version of it. Call it after the last Part was read. Streams (pipes,
// standard input) cannot be checked and always pass.
func (in *Input) Unchanged() error {
	for _, f := range in.files {
		if err := f.Unchanged(); err != nil {
			return err
		}
	}
	if in.osFile == nil {
		return nil
	}
	st, err := in.osFile.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", in.Name, err)
	}
	if st.Size() != in.info.Size() || !st.ModTime().Equal(in.info.ModTime()) {
		return fmt.Errorf("%s %w (%d bytes when opened, %d now; modified %s): its rows are of no one version of the file; run again on a copy that nothing writes",
			in.Name, ErrChanged, in.info.Size(), st.Size(), st.ModTime().Format("15:04:05.000"))
	}
	return nil
}

// Close releases the file. It is safe to call more than once.
func (in *Input) Close() error {
	var errs []error
	for _, f := range in.files {
		errs = append(errs, f.Close())
	}
	if in.stop != nil {
		in.stop()
	}
	return errors.Join(append(errs, in.closeAll())...)
}

func (in *Input) closeAll() error {
	in.closeMu.Lock()
	cl := in.closers
	in.closers = nil
	in.closeMu.Unlock()
	var errs []error
	for _, c := range cl {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Next returns the next Part, or nil when every byte has been handed out. An
// error reading a stream is returned here; malformed records are the Part's
// Reader's to report.
func (in *Input) Next() (*Part, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.files != nil {
		for ; in.cur < len(in.files); in.cur++ {
			f := in.files[in.cur]
			p, err := f.Next()
			if err != nil || p != nil {
				if p != nil {
					p.Reader.seqBase = f.seqBase
				}
				return p, err
			}
		}
		return nil, nil
	}
	if in.Regular {
		if in.next >= len(in.ranges) {
			return nil, nil
		}
		rg := in.ranges[in.next]
		in.next++
		n := rg.End - rg.Start
		// Progress counts the bytes as they are read, so that it advances
		// smoothly rather than a range at a time.
		chunk := readSize
		if in.opt.Sample {
			chunk = sampleReadSize
		}
		r := newRangeReaderSize(&countReader{io.NewSectionReader(in.file, rg.Start, n), &in.progress}, in.Name, rg.Start, in.nfields, in.opt.Sep, chunk)
		return &Part{Reader: r, Len: n}, nil
	}
	if in.done || in.err != nil {
		return nil, in.err
	}
	for {
		if in.eof {
			in.done = true
			if len(in.pend) == 0 {
				return nil, nil
			}
			return in.chunk(len(in.pend)), nil
		}
		if len(in.pend) >= in.opt.ChunkSize {
			if cut := proveCut(in.pend, !in.opt.SkipBad); cut > 0 {
				return in.chunk(cut), nil
			}
			if len(in.pend) >= 4*(maxRecord+2)+in.opt.ChunkSize {
				// No boundary can be proven (quoted line breaks and skipped
				// rows): the rest of the stream is read by one reader.
				in.done = true
				r := newStreamReader(in.pend, &countReader{in.src, &in.progress}, in.Name, in.off, in.line, in.nfields, in.opt.Sep)
				in.pend = nil
				return &Part{Reader: r}, nil
			}
		}
		if err := in.fill(); err != nil {
			in.err = err
			return nil, err
		}
	}
}

// fill reads more of the stream into pend. Called with mu held.
func (in *Input) fill() error {
	if len(in.pend) == cap(in.pend) {
		in.pend = append(in.pend, make([]byte, cap(in.pend))...)[:len(in.pend)]
	}
	n, err := in.src.Read(in.pend[len(in.pend):cap(in.pend)])
	in.pend = in.pend[:len(in.pend)+n]
	in.progress.Add(int64(n))
	if err == io.EOF {
		in.eof = true
		return nil
	}
	if err != nil {
		if in.ctx.Err() != nil {
			return in.ctx.Err() // the stream was closed to end a blocked read
		}
		return remote.Named("read", in.Name, err)
	}
	return nil
}

// chunk hands out pend[:cut] as a Part and keeps the rest. Called with mu held.
func (in *Input) chunk(cut int) *Part {
	data := in.pend[:cut]
	var nb []byte
	if k := len(in.free); k > 0 {
		nb, in.free = in.free[k-1][:0], in.free[:k-1]
	} else {
		nb = make([]byte, 0, in.opt.ChunkSize+4096)
	}
	in.pend = append(nb, in.pend[cut:]...)
	r := newChunkReader(data, in.Name, in.off, in.line, in.nfields, in.opt.Sep)
	in.off += int64(cut)
	in.line += int64(bytes.Count(data, []byte{'\n'}))
	return &Part{Reader: r, Len: int64(cut), release: func() {
		in.mu.Lock()
		if len(in.free) < 8 && cap(data) <= 2*(in.opt.ChunkSize+4096) {
			in.free = append(in.free, data[:0])
		}
		in.mu.Unlock()
	}}
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// proveCut returns the end of the longest prefix of b, which starts at a
// record boundary, that provably ends at one (see Input), or 0.
func proveCut(b []byte, parity bool) int {
	nl := bytes.LastIndexByte(b, '\n')
	if nl < 0 {
		return 0
	}
	end := nl + 1
	lq := bytes.LastIndexByte(b[:end], '"')
	if lq < 0 || end-(maxRecord+2) > lq {
		return end // window rule
	}
	if !parity {
		return 0
	}
	// The last line break after an even number of quotes: walk back over
	// the segments between quotes, whose parity alternates.
	hi, odd := len(b), bytes.Count(b, []byte{'"'})%2 == 1
	for {
		lo := bytes.LastIndexByte(b[:hi], '"')
		if !odd {
			if i := bytes.LastIndexByte(b[lo+1:hi], '\n'); i >= 0 {
				return lo + 1 + i + 1
			}
		}
		if lo < 0 {
			return 0
		}
		hi, odd = lo, !odd
	}
}

// cutTargets returns the n+1 bounds of n parts of [start, size): start,
// the n-1 target cuts splitRanges moves to proven record boundaries, and
// size. Equal parts, but with taper where the smallest part would still
// hold a window (maxRecord+2 bytes, so that clearWindows' windows do not
// overlap): then part j holds (2(n-j)-1)/n^2 of the bytes (the cuts at
// 1-(1-i/n)^2: for n = 8, 23% down to 1.6%). The readers take the parts
// in order as each finishes its last (Input.Next), so the phase ends with
// short parts: the time one reader waits for the others at the end is
// at most a short part's, where with equal parts it was up to an eighth
// of the file (the NBER join's two mappers ended 3-17 ms apart, Intel
// Xeon). Only where the caller hands the parts out so
// (InputOptions.Taper): with a part a reader, the first reader would read
// three quarters of a file in two parts. Sampling (InputOptions.Sample)
// keeps equal parts: its rows are spread evenly over the file. O(n).
func cutTargets(start, size int64, n int, taper bool) []int64 {
	n = max(n, 1)
	t := make([]int64, n+1)
	span := size - start
	taper = taper && n > 1 && span/int64(n)/int64(n) >= int64(maxRecord+2)
	for i := range n + 1 {
		// start + span*num/den in 128 bits: span*(1-(1-i/n)^2) =
		// span*i*(2n-i)/n^2 tapered, span*i/n not.
		num, den := uint64(i), uint64(n)
		if taper {
			num, den = uint64(i)*uint64(2*n-i), uint64(n)*uint64(n)
		}
		hi, lo := bits.Mul64(uint64(span), num)
		q, _ := bits.Div64(hi, lo, den) // num <= den: q <= span
		t[i] = start + int64(q)
	}
	t[n] = size
	return t
}

// splitRanges cuts [start, size) of a regular file, start being a record
// boundary, into at most n ranges at proven boundaries (see Input). A target
// cut that cannot be proven is dropped: its range runs on to the next.
//
// With sample (InputOptions.Sample) each cut is the first line break after
// its target, unproven: O(n) reads of a line.
func splitRanges(f io.ReaderAt, start, size int64, n int, parity, sample, taper bool) ([]Range, error) {
	if start >= size {
		return nil, nil
	}
	var ranges []Range
	prev := start
	// With parity: quotes counted from start up to counted (its parity odd).
	counted, odd := start, false
	quoteless := make([]bool, max(n, 1))
	var parities []bool // with parity: the quotes' parity before each target, counted on every core
	targets := cutTargets(start, size, n, taper && !sample)
	if _, local := f.(*os.File); !sample && parallelWindows && local && n > 1 && (size-start)/int64(n) >= int64(maxRecord+2) {
		// Parts longer than a window: the windows do not overlap. Parts
		// shorter would read a window of each (1 MiB: 32 MiB for a file of
		// 1 MiB in 64 parts, where splitRanges reads it once), and a
		// remote file's reads take a lock and reuse their streams in
		// order (remote.File): both are left to splitRanges.
		quoteless = clearWindows(f, start, size, targets)
		onClearWindows()
		last := 0 // the last target whose window holds a quote (or was not read)
		for i := 1; i < n; i++ {
			if !quoteless[i] {
				last = i
			}
		}
		if parity && last > 0 {
			parities = quoteParities(f, start, targets, last)
		}
	}
	// 64 KiB a read: the windows are read through a buffer that stays in
	// the L2 cache. A fresh MiB, faulted in page by page and copied into at
	// memory speed, made the cuts of the NBER citations (7 windows of
	// 1 MiB) and of their quoted key file about 24 ms of CPU before either
	// side's first row (Intel Xeon, perf), 5% of the whole join.
	buf := make([]byte, 64<<10)
	for i := 1; i < n; i++ {
		target := targets[i]
		if target <= prev {
			continue
		}
		cut, err := lineEnd(f, target-1, size)
		if err != nil {
			return nil, err
		}
		if cut >= size {
			break
		}
		if sample {
			ranges = append(ranges, Range{prev, cut})
			prev = cut
			continue
		}
		q := int64(-1)
		if !quoteless[i] {
			lo := max(prev, cut-int64(maxRecord+2))
			if q, err = indexQuote(f, lo, cut, buf); err != nil {
				return nil, err
			}
		}
		if q >= 0 {
			if !parity {
				continue
			}
			// Count quotes up to target, then find the first line break at
			// or after it with an even count.
			if parities != nil && counted <= target {
				counted, odd = target, parities[i]
			}
			for counted < target {
				m := min(int64(len(buf)), target-counted)
				if _, err := f.ReadAt(buf[:m], counted); err != nil && err != io.EOF {
					return nil, err
				}
				odd = odd != (bytes.Count(buf[:m], []byte{'"'})%2 == 1)
				counted += m
			}
			if cut, counted, odd, err = evenLineEnd(f, counted, size, odd, buf); err != nil {
				return nil, err
			}
			if cut >= size {
				break
			}
		}
		ranges = append(ranges, Range{prev, cut})
		prev = cut
	}
	return append(ranges, Range{prev, size}), nil
}

// parallelWindows enables clearWindows; tests turn it off to compare the
// cuts with and without it, and count its uses by onClearWindows.
var (
	parallelWindows = true
	onClearWindows  = func() {}
)

// clearWindows reads, on up to GOMAXPROCS goroutines, the window of each
// target cut of splitRanges (the maxRecord+2 bytes before the first line
// break at or after it, from start at the least) and reports in quoteless[i]
// that the i-th target's holds no quote: its cut is proven, as the window
// splitRanges asks of it is no larger. A false is no verdict (a quote, or
// a read error, which splitRanges meets again): splitRanges reads that
// window itself. The windows, 1 MiB each, were the open's cost: 7 of them
// for the NBER citations, read one after another. O(n MiB) reads.
func clearWindows(f io.ReaderAt, start, size int64, targets []int64) []bool {
	n := len(targets) - 1
	quoteless := make([]bool, max(n, 1))
	var next atomic.Int32
	next.Store(1)
	var wg sync.WaitGroup
	for range min(max(n-1, 0), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			buf := make([]byte, 64<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				cut, err := lineEnd(f, targets[i]-1, size)
				if err != nil || cut >= size {
					continue
				}
				q, err := indexQuote(f, max(start, cut-int64(maxRecord+2)), cut, buf)
				quoteless[i] = err == nil && q < 0
			}
		})
	}
	wg.Wait()
	return quoteless
}

// parityChunk is the most quoteParities counts in one piece (tests make
// it small), and onParities counts its uses.
var (
	parityChunk int64 = 4 << 20
	onParities        = func() {}
)

// quoteParities returns, for each i in [1, last] (last < n), whether an
// odd number of quotes lies in [start, target i) (splitRanges' targets),
// counted in pieces of at most parityChunk on every core (the bytes past
// target last are not read); nil on a read error, which splitRanges then
// meets itself. A quoted file's cuts need the parity of
// every quote before them: splitRanges counted them in one pass, 855 MB
// of a quoted 10^7-row key side read in 64 KiB reads on one core, 0.19 s
// before the build's first row (Intel Xeon, perf). O(size - start) reads.
func quoteParities(f io.ReaderAt, start int64, targets []int64, last int) []bool {
	n := len(targets) - 1
	onParities()
	// Piece bounds: every target, and a cut every parityChunk between.
	bounds := []int64{start}
	for i := 1; i <= last; i++ {
		target := targets[i]
		for b := bounds[len(bounds)-1]; target-b > parityChunk; b = bounds[len(bounds)-1] {
			bounds = append(bounds, b+parityChunk)
		}
		if target > bounds[len(bounds)-1] {
			bounds = append(bounds, target)
		}
	}
	odd := make([]bool, len(bounds)-1) // piece j: [bounds[j], bounds[j+1])
	var failed atomic.Bool
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(len(odd), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			buf := make([]byte, 64<<10)
			for j := int(next.Add(1) - 1); j < len(odd) && !failed.Load(); j = int(next.Add(1) - 1) {
				c := 0
				for off := bounds[j]; off < bounds[j+1]; {
					m, err := f.ReadAt(buf[:min(int64(len(buf)), bounds[j+1]-off)], off)
					c += bytes.Count(buf[:m], []byte{'"'})
					if m == 0 || err != nil && err != io.EOF {
						failed.Store(true)
						return
					}
					off += int64(m)
				}
				odd[j] = c%2 == 1
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return nil
	}
	parities := make([]bool, n)
	p, j := false, 0
	for i := 1; i <= last; i++ {
		target := targets[i]
		for ; j < len(odd) && bounds[j+1] <= target; j++ {
			p = p != odd[j]
		}
		parities[i] = p
	}
	return parities
}

// Ranges returns the byte ranges the Parts of a regular file cover, in
// order, each starting at a proven record boundary (nil for a stream). A
// caller that reads them elsewhere (another process, a pipeline's worker)
// opens each with OpenRange.
func (in *Input) Ranges() []Range {
	if in.files != nil {
		var all []Range
		for _, f := range in.files {
			all = append(all, f.ranges...)
		}
		return all
	}
	return slices.Clone(in.ranges)
}

// OpenRange opens the regular file at path and returns a Reader of the
// records in rg, one of the Ranges of an Input of the same file and options
// (nfields its header's fields, sep its separator), and the file to close.
// The Reader knows byte offsets, not line numbers (as a Part's). The file
// must not have changed since the ranges were made: a caller that cares
// compares its size and time (Input.Unchanged does, for one process).
func OpenRange(path string, rg Range, nfields int, sep byte) (*Reader, io.Closer, error) {
	if sep == 0 {
		sep = ','
	}
	if err := validSep(sep); err != nil {
		return nil, nil, err
	}
	if rg.Start < 0 || rg.End < rg.Start {
		return nil, nil, fmt.Errorf("%s: invalid range [%d, %d)", path, rg.Start, rg.End)
	}
	f, err := openReaderAt(path)
	if err != nil {
		return nil, nil, err
	}
	return newRangeReader(io.NewSectionReader(f, rg.Start, rg.End-rg.Start), path, rg.Start, nfields, sep), f, nil
}

// readerAtCloser is a file read by ReadAt: local, or remote (remote.File).
type readerAtCloser interface {
	io.ReaderAt
	io.ReadCloser
}

// openReaderAt opens the local or remote (remote.Is) file path.
func openReaderAt(path string) (readerAtCloser, error) {
	if remote.Is(path) {
		return remote.Open(context.Background(), path)
	}
	return os.Open(path)
}

// indexQuote returns the offset of the first '"' in [lo, hi) of f, or -1.
func indexQuote(f io.ReaderAt, lo, hi int64, buf []byte) (int64, error) {
	for off := lo; off < hi; {
		m := min(int64(len(buf)), hi-off)
		n, err := f.ReadAt(buf[:m], off)
		if i := bytes.IndexByte(buf[:n], '"'); i >= 0 {
			return off + int64(i), nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
		off += int64(n)
	}
	return -1, nil
}

// evenLineEnd returns the offset after the first '\n' at or after off that
// follows an even number of quotes, given the parity before off; or size.
// It also returns how far it counted and the parity there.
func evenLineEnd(f io.ReaderAt, off, size int64, odd bool, buf []byte) (int64, int64, bool, error) {
	for off < size {
		m := min(int64(len(buf)), size-off)
		n, err := f.ReadAt(buf[:m], off)
		for i := 0; i < n; i++ {
			switch buf[i] {
			case '"':
				odd = !odd
			case '\n':
				if !odd {
					return off + int64(i) + 1, off + int64(i) + 1, odd, nil
				}
			}
		}
		off += int64(n)
		if err != nil && err != io.EOF {
			return 0, 0, false, err
		}
		if n == 0 {
			break
		}
	}
	return size, off, odd, nil
}

// stream is an opened input: its content (decompressed), the name for
// messages, and for a plain regular file the file itself.
type stream struct {
	r       io.Reader
	name    string
	closers []io.Closer
	regular io.ReaderAt // non-nil for a plain regular file
	size    int64
	stop    func() bool // stops the close-on-cancel of a stream
	// file and info are the opened file and its state at open, for a
	// regular file (compressed or not): Input.Unchanged compares them.
	file *os.File
	info os.FileInfo
}

// openStream opens path for openInput: "-" is standard input; a FIFO is
// opened without blocking past ctx; gzip and zip are recognised by content.
func openStream(ctx context.Context, path string) (*stream, error) {
	var f *os.File
	name := path
	if path == "-" {
		name = stdinName
		// A regular file on standard input is read from where its offset
		// stands ({ head -n 3 >/dev/null; join ... --input -; } < f reads
		// what cat would), through a duplicate of the descriptor, which
		// shares the offset. Otherwise a new descriptor of standard input,
		// in the runtime's poller where the file allows (a pipe, a
		// terminal), so that closing it ends a blocked read; os.Stdin itself
		// if that fails.
		if st, err := os.Stdin.Stat(); err == nil && st.Mode().IsRegular() {
			fd, err := syscall.Dup(syscall.Stdin)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", stdinName, err)
			}
			f = os.NewFile(uintptr(fd), stdinName)
		} else if g, err := os.Open("/dev/stdin"); err == nil {
			f = g
		} else {
			f = os.NewFile(uintptr(syscall.Stdin), stdinName)
		}
	} else if remote.Is(path) {
		rf, err := remote.Open(ctx, path)
		if err != nil {
			return nil, err
		}
		return sniffStream(ctx, &stream{r: rf, name: name, closers: []io.Closer{rf}}, rf, rf, rf.Size(), path)
	} else {
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, &os.PathError{Op: "open", Path: path, Err: ErrFolder}
		}
		if f, err = openFile(ctx, path, st); err != nil {
			return nil, err
		}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &stream{r: f, name: name, closers: []io.Closer{f}}
	regular := st.Mode().IsRegular() && path != "-"
	if !regular {
		// When ctx ends, close the file: a read blocked on a pipe or a
		// terminal then returns (os.File reads of those go through the
		// runtime's poller, which Close wakes).
		s.stop = context.AfterFunc(ctx, func() { f.Close() })
		return sniffStream(ctx, s, f, nil, 0, path)
	}
	s.file, s.info = f, st
	return sniffStream(ctx, s, f, f, st.Size(), path)
}

// sniffStream reads the first bytes of s's file f (ra: f as a ReaderAt of
// size bytes, a regular or remote file; nil for a stream) and puts a gzip
// or zip reader over it, or leaves a plain regular file to be read by
// ranges. path is the path given ("-" for standard input).
func sniffStream(ctx context.Context, s *stream, f io.ReadCloser, ra io.ReaderAt, size int64, path string) (*stream, error) {
	name := s.name
	regular := ra != nil
	fail := func(err error) (*stream, error) {
		if s.stop != nil {
			s.stop()
		}
		f.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	// Sniff the first bytes: a regular file with ReadAt, a stream through
	// a buffer that keeps them.
	var magic []byte
	if regular {
		var b [4]byte
		n, _ := ra.ReadAt(b[:], 0)
		magic = b[:n]
	} else {
		br := bufio.NewReaderSize(f, 64<<10)
		magic, _ = br.Peek(8)
		s.r = br
		if format := tableMagic(magic); format != "" && path == "-" {
			// Standard input that is a table: handed whole to its reader.
			return nil, &TableError{Name: name, Format: format, r: br, closers: s.closers, stop: s.stop}
		}
	}
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(s.r)
		if err != nil {
			return fail(fmt.Errorf("%s: not a gzip file: %w", name, err))
		}
		s.r, s.closers = zr, []io.Closer{zr, f}
	case bytes.HasPrefix(magic, []byte("PK\x03\x04")) || bytes.HasPrefix(magic, []byte("PK\x05\x06")):
		if !regular {
			return fail(fmt.Errorf("%s: a zip archive can only be read from a file, not a pipe or device (unzip -p it)", name))
		}
		zr, err := zip.NewReader(ra, size)
		if err != nil {
			return fail(fmt.Errorf("%s: not a zip file: %w", name, err))
		}
		entry, err := zipEntry(zr, name)
		if err != nil {
			return fail(err)
		}
		rc, err := entry.Open()
		if err != nil {
			return fail(fmt.Errorf("%s: %w", name, err))
		}
		s.r, s.name, s.closers = rc, name+":"+printable(entry.Name), []io.Closer{rc, f}
	default:
		if regular {
			s.regular, s.size = ra, size
		}
	}
	return s, nil
}

// TableError is OpenInput's error for standard input that begins as a
// Parquet file, an Arrow IPC file or an Arrow IPC stream does: a reader of
// tables can read it (Read gives the stream from its first byte; Close
// closes it). Left unread, it says what it is, as ReadHeader does.
type TableError struct {
	Name    string
	Format  string // "Parquet", "Arrow IPC", "Arrow IPC stream"
	r       io.Reader
	closers []io.Closer
	stop    func() bool
}

func (e *TableError) Error() string {
	return fmt.Sprintf("%s:1: this is no CSV: it begins as a%s %s file does; give its format (parquet or arrow)", e.Name, article(e.Format), e.Format)
}

// Is reports a TableError as ErrTableFile, as ReadHeader's refusal of a
// table read as CSV.
func (e *TableError) Is(target error) bool { return target == ErrTableFile }

// Parquet reports whether the stream is Parquet (else Arrow IPC).
func (e *TableError) Parquet() bool { return e.Format == "Parquet" }

// Read reads the stream from its first byte.
func (e *TableError) Read(p []byte) (int, error) { return e.r.Read(p) }

// Close closes the stream.
func (e *TableError) Close() error {
	if e.stop != nil {
		e.stop()
	}
	var err error
	for _, c := range e.closers {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// openFile opens path for reading. A FIFO blocks in open until a writer
// comes; if ctx ends first, openFile unblocks it (by opening the FIFO for
// writing and closing it) and returns ctx's error.
func openFile(ctx context.Context, path string, st os.FileInfo) (*os.File, error) {
	if st.Mode()&os.ModeNamedPipe == 0 || ctx.Done() == nil {
		return os.Open(path)
	}
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
		// Open it for writing ourselves, which ends the blocked open. A
		// FIFO removed or renamed meanwhile cannot be opened by its path:
		// the open then blocks for good, and is left to the process's end
		// (waiting for it made the process deaf to SIGINT and SIGTERM).
		// ENXIO says no reader has it open yet: the goroutine's open has
		// not begun (a context that ends at once, a loaded machine), and
		// it would begin and block for good after this gave up, a thread
		// lost in every such call (TestOpenFIFOCancelled). So it is tried
		// again while that open may still come, up to fifoRetries times.
		for try := 0; ; try++ {
			w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err == nil {
				w.Close()
				if r := <-ch; r.f != nil {
					r.f.Close()
				}
				return nil, ctx.Err()
			}
			if !errors.Is(err, syscall.ENXIO) || try == fifoRetries {
				go func() {
					if r := <-ch; r.f != nil {
						r.f.Close()
					}
				}()
				return nil, ctx.Err()
			}
			select {
			case r := <-ch: // it opened: a writer came meanwhile
				if r.f != nil {
					r.f.Close()
				}
				return nil, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}
}

// fifoRetries bounds openFile's tries to end a FIFO's open that has not
// begun: a millisecond apart, a second in all. A variable only so that a
// test can wait for the open however loaded the machine is.
var fifoRetries = 1000

// printable returns s, or s quoted if it holds anything but printable
// characters (a name taken from a file may hold escape sequences).
func printable(s string) string {
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return strconv.Quote(s)
		}
	}
	return s
}

// FirstError returns, of errs, the ParseError with the lowest offset (the
// one a sequential read meets first: see Input), else the first non-nil
// error.
func FirstError(errs []error) error {
	var first error
	var best *ParseError
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil {
			first = err
		}
		var pe *ParseError
		// Of a side of many files, read in the order of their names, the
		// first file's first.
		if errors.As(err, &pe) && (best == nil || pe.File < best.File || pe.File == best.File && pe.Offset < best.Offset) {
			best, first = pe, err
		}
	}
	return first
}

// ErrHeaderDiffers marks a file of a side of many files whose header is
// not the first file's (OpenInputs).
var ErrHeaderDiffers = errors.New("the files of a side must have the same header")

// OpenInputs opens paths, regular files (a side given as a folder or a
// glob), as one Input named opt.Name: the Parts of the first file, then of
// the second, and so on, the opt.Parts ranges shared by the files' sizes
// (one at least a file), each file read as OpenInput reads one (its own header skipped, its messages
// naming it); a record's place in the side is its reader's SeqBase plus
// its Offset. Every file's header must be the first's (the same names in
// the same order; ErrHeaderDiffers names the file and the column). A
// compressed file (.gz, .zip) is read as OpenInput reads one, in chunks
// (the whole Input is then not Regular); a path that is not a regular
// file (standard input, a FIFO) is refused: the files of a side are read
// more than once. One path is an Input of one file, its readers naming it.
func OpenInputs(ctx context.Context, paths []string, opt InputOptions) (*Input, error) {
	if len(paths) == 0 {
		return nil, errors.New("csvscan: OpenInputs of no file")
	}
	if _, err := opt.sep(); err != nil {
		return nil, err
	}
	all := &Input{Path: opt.Name, Name: opt.Name, opt: opt, ctx: ctx, Regular: true}
	// opt.Parts ranges in all, shared by the files' sizes (at least one a
	// file): a side of many small files is not cut into many more parts
	// than one file of the same bytes.
	sizes := make([]int64, len(paths))
	var total int64
	for i, p := range paths {
		st, err := os.Stat(p)
		if err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file (a FIFO, a device): the files of a side are read more than once", p)
		}
		if err == nil {
			sizes[i] = st.Size()
			total += st.Size()
		}
	}
	var firstEmpty error
	for i, p := range paths {
		fopt := opt
		fopt.Name = ""
		fopt.Parts = 1
		if total > 0 {
			fopt.Parts = max(1, int((int64(max(opt.Parts, 1))*sizes[i]+total-1)/total))
		}
		f, err := OpenInput(ctx, p, fopt)
		if err != nil && len(paths) > 1 && errors.Is(err, ErrNoHeader) {
			// An empty file of several (a part no row went to) holds no
			// row: skipped, unless every file is one.
			if firstEmpty == nil {
				firstEmpty = err
			}
			continue
		}
		if err != nil {
			all.Close()
			return nil, err
		}
		if len(all.files) == 0 {
			all.Header, all.HeaderRaw, all.nfields = f.Header, f.HeaderRaw, f.nfields
		} else if err := sameHeader(all.files[0], f); err != nil {
			f.Close()
			all.Close()
			return nil, err
		}
		// A record's place: after every byte of the files before it; a
		// compressed file (read as a stream, in chunks: Regular false) is
		// given 2^40 places, its records' offsets being in the
		// decompressed bytes.
		f.seqBase = all.seqBase
		if f.Regular {
			all.seqBase += f.fileSize
			all.Size += f.Size
		} else {
			all.seqBase += 1 << 40
			all.Regular, all.Size = false, -1
		}
		all.files = append(all.files, f)
	}
	if len(all.files) == 0 && firstEmpty != nil {
		return nil, firstEmpty // every file empty: no header
	}
	if !all.Regular {
		all.Size = -1
	}
	all.seqBase = 0
	return all, nil
}

// sameHeader refuses b, a file of the side whose first file is a, unless
// its header names a's columns in a's order (DiffNames).
func sameHeader(a, b *Input) error {
	if d := DiffNames(a.Name, a.Header, b.Name, b.Header); d != "" {
		return fmt.Errorf("%s: %w", d, ErrHeaderDiffers)
	}
	return nil
}

// DiffNames says how the columns b of the file bName differ from a, its
// side's first file aName's: the first name added, missing or out of
// place, "" when they are the same. The one rule by which the files of a
// side agree (csvscan's OpenInputs, columnar's OpenFiles, join stream's
// probe files). O(columns).
func DiffNames(aName string, a []string, bName string, b []string) string {
	for c := range max(len(a), len(b)) {
		switch {
		case c >= len(a):
			return fmt.Sprintf("%s: has a column %q that %s has not", bName, b[c], aName)
		case c >= len(b):
			return fmt.Sprintf("%s: has no column %q, which %s has", bName, a[c], aName)
		case a[c] != b[c]:
			return fmt.Sprintf("%s: its column %d is %q where %s's is %q", bName, c+1, b[c], aName, a[c])
		}
	}
	return ""
}
