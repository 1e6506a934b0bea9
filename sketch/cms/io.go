package cms

import (
	"fmt"
	"io"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format, version 1 (all integers little-endian):
//
//	offset  size        field
//	0       4           magic "CMS8"
//	4       2           format version (1)
//	6       2           flags: bit 0 Conservative, the others zero
//	8       8           Width
//	16      8           Depth
//	24      8           Seed
//	32      8           Total
//	40      8*W*D       counters, row-major (row j, column i at j*W+i)
//	...     4           CRC-32C (Castagnoli) of every byte before it
//
// A decoder also checks the invariants every reachable sketch keeps (see
// checkRows): a plain sketch's rows each sum to Total (unless Total
// saturated), a conservative sketch's rows each sum to at most Total.
const (
	magic            = "CMS8"
	formatVersion    = 1
	flagConservative = 1
	headerSize       = 40
	trailerSize      = 4
)

// SerializedSize returns the number of bytes WriteTo writes, 44 + 8*Width*Depth.
func (s *Sketch) SerializedSize() int64 {
	return headerSize + 8*int64(len(s.counters)) + trailerSize
}

// WriteTo writes the sketch in the format described above and returns the
// number of bytes written. It implements io.WriterTo. O(Width*Depth).
func (s *Sketch) WriteTo(w io.Writer) (int64, error) {
	var flags uint16
	if s.cfg.Conservative {
		flags |= flagConservative
	}
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U16(flags)
	ww.U64(uint64(s.cfg.Width))
	ww.U64(uint64(s.cfg.Depth))
	ww.U64(s.cfg.Seed)
	ww.U64(s.total)
	ww.Words(s.counters)
	return ww.Finish()
}

// ReadFrom replaces s with a sketch read from r and returns the number of
// bytes consumed. It implements io.ReaderFrom. On any error (wrapping
// ErrFormat, and io.ErrUnexpectedEOF for a cut stream) s is unchanged. The
// parameters are validated before the counters are read, and the counters are
// read in bounded chunks, so a corrupt header cannot cause a large
// allocation. O(Width*Depth).
func (s *Sketch) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, s, decode) }

func decode(rr *wire.Reader) (*Sketch, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	flags := rr.U16()
	width := rr.U64()
	depth := rr.U64()
	seed := rr.U64()
	total := rr.U64()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	if flags&^flagConservative != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrFormat, flags)
	}
	// Bound both sizes as uint64 before converting them to int.
	if depth < 1 || depth > MaxDepth || width < 1 || width > MaxCounters/depth {
		return nil, fmt.Errorf("%w: %w: Width = %d, Depth = %d, want Depth 1..%d and 1..%d counters in all",
			ErrFormat, ErrConfig, width, depth, MaxDepth, uint64(MaxCounters))
	}
	cfg := Config{Width: int(width), Depth: int(depth), Conservative: flags&flagConservative != 0, Seed: seed}
	if err := cfg.Validate(); err != nil { // the same rule, kept in one place
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	counters := rr.Words(width * depth)
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: counters: %w", ErrFormat, err)
	}
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if err := checkRows(cfg, counters, total); err != nil {
		return nil, err
	}
	t := newSketch(cfg, counters)
	t.total = total
	return t, nil
}

// checkRows checks the invariants of the counters of a sketch of Total total.
// A plain Add adds count to one counter per row, as does Merge row by row and
// Subtract in reverse, so while nothing saturates every row sums to Total
// exactly; and Total < 2^64-1 means nothing has saturated (a counter is never
// above Total). A conservative Add raises one counter per row by at most
// count, so each row sums to at most Total (saturating sums).
func checkRows(cfg Config, counters []uint64, total uint64) error {
	if !cfg.Conservative && total == saturated {
		return nil
	}
	w := cfg.Width
	for j := range cfg.Depth {
		var sum uint64
		for _, c := range counters[j*w : (j+1)*w] {
			sum = satAdd(sum, c)
		}
		if sum > total || (!cfg.Conservative && sum != total) {
			return fmt.Errorf("%w: row %d sums to %d, Total is %d", ErrFormat, j, sum, total)
		}
	}
	return nil
}

// MarshalBinary returns the serialized sketch (see WriteTo). It implements
// encoding.BinaryMarshaler.
func (s *Sketch) MarshalBinary() ([]byte, error) {
	return wire.Marshal(s, s.SerializedSize())
}

// UnmarshalBinary replaces s with the sketch serialized in data, which must
// hold exactly one sketch and nothing else. It implements
// encoding.BinaryUnmarshaler. On error s is unchanged.
func (s *Sketch) UnmarshalBinary(data []byte) error {
	return wire.UnmarshalInto(data, s, decode, ErrFormat)
}
