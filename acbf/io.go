package acbf

import (
	"fmt"
	"io"
	"slices"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format, version 1 (all integers little-endian). It stores the
// paper's logical layout, not the in-memory bucketed one: the first level, then
// levels 2..d concatenated bit after bit, exactly m1 + Len*k bits of payload.
//
//	offset  size            field
//	0       4               magic "ACBF"
//	4       2               format version (1)
//	6       2               k
//	8       8               m (Counters; the budget is 4m bits)
//	16      8               n (Capacity)
//	24      8               m1 (first level bits)
//	32      8               Len, stored elements
//	40      8               d, number of levels including B1 (>= 1)
//	48      8*(d-1)         sizes of levels 2..d in bits
//	...     8*ceil(m1/64)   B1 as little-endian words, bit i at word i/64, bit i%64
//	...     8*ceil(S/64)    levels 2..d concatenated (S = sum of their sizes), same bit order
//	...     4               CRC-32C (Castagnoli) of every byte before it
//
// A decoder checks, before allocating each part, that the parameters are a valid
// Config, Len fits the idle space, d-1 <= S = Len*k; then that every level's size
// equals the number of ones of the level above, the last level has no ones, and
// padding bits are zero.
const (
	magic         = "ACBF"
	formatVersion = 1
	headerSize    = 48
	trailerSize   = 4
)

// lowerStream returns levels 2..d concatenated, as the paper lays them out.
// O(m1/64 + Len*k).
func (f *Filter) lowerStream() []uint64 {
	off := make([]uint64, len(f.lvl)) // where the next segment of each level goes
	var total uint64
	for j, s := range f.lvl {
		off[j] = total
		total += s
	}
	out := make([]uint64, words(total))
	for b := uint64(0); b < f.nb; b++ {
		w := f.bucket(b)
		_, segLen := f.b1Rank(b, b<<f.shift)
		var segStart uint64
		for j := 0; segLen > 0; j++ {
			copyBits(out, off[j], w, segStart, segLen)
			off[j] += segLen
			next := popRange(w, segStart, segStart+segLen)
			segStart += segLen
			segLen = next
		}
	}
	return out
}

// SerializedSize returns the number of bytes WriteTo writes.
func (f *Filter) SerializedSize() int64 {
	var s uint64
	for _, x := range f.lvl {
		s += x
	}
	return headerSize + 8*int64(len(f.lvl)) + 8*int64(words(f.m1)+words(s)) + trailerSize
}

// WriteTo writes the filter in the format described above and returns the number
// of bytes written. It implements io.WriterTo. O(m1/64 + Len*k).
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U16(uint16(f.k))
	ww.U64(f.cfg.Counters)
	ww.U64(f.cfg.Capacity)
	ww.U64(f.m1)
	ww.U64(f.n)
	ww.U64(uint64(1 + len(f.lvl)))
	for _, s := range f.lvl {
		ww.U64(s)
	}
	ww.Words(f.b1)
	ww.Words(f.lowerStream())
	return ww.Finish()
}

// ReadFrom replaces f with a filter read from r and returns the number of bytes
// consumed. It implements io.ReaderFrom. On any error (wrapping ErrFormat, and
// io.ErrUnexpectedEOF for a cut stream) f is unchanged. O(m1/64 + Len*k).
func (f *Filter) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, f, decode) }

func decode(rr *wire.Reader) (*Filter, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	cfg := Config{K: int(rr.U16()), Counters: rr.U64(), Capacity: rr.U64(), FirstLevel: rr.U64()}
	n := rr.U64()
	depth := rr.U64()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	if cfg.FirstLevel == 0 {
		return nil, fmt.Errorf("%w: first level of 0 bits", ErrFormat)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	// Nothing proportional to the header's sizes is allocated before the payload
	// that backs it has been read.
	m1 := cfg.FirstLevel
	if capacity := (4*cfg.Counters - m1) / uint64(cfg.K); n > capacity {
		return nil, fmt.Errorf("%w: %d elements exceed the capacity %d", ErrFormat, n, capacity)
	}
	counterBits := n * uint64(cfg.K) // memory identity: bits below B1 = Len*k
	if depth < 1 || depth-1 > counterBits {
		return nil, fmt.Errorf("%w: %d levels for %d counter bits", ErrFormat, depth, counterBits)
	}
	sizes := make([]uint64, 0, min(depth-1, 1024))
	var total uint64
	for j := uint64(1); j < depth; j++ {
		s := rr.U64()
		if rr.Err() != nil {
			break
		}
		if s == 0 || s > counterBits-total {
			return nil, fmt.Errorf("%w: level %d has %d bits (%d of %d counter bits already used)", ErrFormat, j+1, s, total, counterBits)
		}
		total += s
		sizes = append(sizes, s)
	}
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: level sizes: %w", ErrFormat, err)
	}
	if total != counterBits {
		return nil, fmt.Errorf("%w: levels below B1 hold %d bits, want Len*k = %d", ErrFormat, total, counterBits)
	}
	b1 := rr.Words(words(m1))
	stream := rr.Words(words(total))
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: payload: %w", ErrFormat, err)
	}
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if !zeroTail(b1, m1) || !zeroTail(stream, total) {
		return nil, fmt.Errorf("%w: padding bits are not zero", ErrFormat)
	}
	f := newShape(cfg, b1)
	f.rebuildRanks()
	if err := f.importLevels(stream, sizes); err != nil {
		return nil, err
	}
	f.n = n
	return f, nil
}

// zeroTail reports whether the bits of w from nbits on are zero.
func zeroTail(w []uint64, nbits uint64) bool {
	if nbits&63 == 0 {
		return true
	}
	return w[len(w)-1]>>(nbits&63) == 0
}

// importLevels fills the buckets of f, whose b1 is set, from the concatenated
// lower levels. It checks that the levels are consistent with offset indexing:
// every level is exactly consumed by the ones of the level above.
func (f *Filter) importLevels(stream []uint64, sizes []uint64) error {
	end := make([]uint64, len(sizes)) // end of each level in the stream
	var acc uint64
	for j, s := range sizes {
		acc += s
		end[j] = acc
	}
	begin := func(j int) uint64 {
		if j == 0 {
			return 0
		}
		return end[j-1]
	}
	cur := make([]uint64, len(sizes))
	// Pass 1: the number of counter bits of each bucket, with bounds checks.
	nbits := make([]uint64, f.nb)
	for j := range cur {
		cur[j] = begin(j)
	}
	for b := uint64(0); b < f.nb; b++ {
		_, segLen := f.b1Rank(b, b<<f.shift)
		for j := 0; segLen > 0; j++ {
			if j == len(sizes) || cur[j]+segLen > end[j] {
				return fmt.Errorf("%w: level %d is shorter than the ones of level %d", ErrFormat, j+2, j+1)
			}
			nbits[b] += segLen
			ones := popRange(stream, cur[j], cur[j]+segLen)
			cur[j] += segLen
			segLen = ones
		}
	}
	for j := range cur {
		if cur[j] != end[j] {
			return fmt.Errorf("%w: level %d has %d bits, the level above has %d ones", ErrFormat, j+2, sizes[j], cur[j]-begin(j))
		}
	}
	// Pass 2: copy each bucket's segments.
	f.layout(nbits, 0)
	for j := range cur {
		cur[j] = begin(j)
	}
	for b := uint64(0); b < f.nb; b++ {
		w := f.bucket(b)
		_, segLen := f.b1Rank(b, b<<f.shift)
		var pos uint64
		for j := 0; segLen > 0; j++ {
			copyBits(w, pos, stream, cur[j], segLen)
			pos += segLen
			ones := popRange(stream, cur[j], cur[j]+segLen)
			cur[j] += segLen
			segLen = ones
		}
	}
	f.lvl = slices.Clone(sizes)
	return nil
}

// MarshalBinary returns the serialized filter (see WriteTo). It implements
// encoding.BinaryMarshaler.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return wire.Marshal(f, f.SerializedSize())
}

// UnmarshalBinary replaces f with the filter serialized in data, which must hold
// exactly one filter. It implements encoding.BinaryUnmarshaler. On error f is
// unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	return wire.UnmarshalInto(data, f, decode, ErrFormat)
}

// Equal reports whether f and other have the same configuration, elements and
// levels (bit for bit). O(m1/64 + Len*k).
func (f *Filter) Equal(other *Filter) bool {
	return f.cfg == other.cfg && f.n == other.n && slices.Equal(f.b1, other.b1) &&
		slices.Equal(f.lvl, other.lvl) && slices.Equal(f.lowerStream(), other.lowerStream())
}
