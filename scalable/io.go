package scalable

import (
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format, version 1 (all integers little-endian):
//
//	offset  size        field
//	0       4           magic "SBF1"
//	4       2           format version (1)
//	6       8           n0, InitialCapacity
//	14      8           P0, FPP, as IEEE-754 float64 bits
//	22      8           s, Growth, as float64 bits
//	30      8           r, Tightening, as float64 bits
//	38      4           l, number of sub-filters (1..MaxFilters)
//	42      ...         l sub-filters, each:
//	        8             n_i, capacity
//	        8             c_i, keys added to it
//	        4             k_i, slices
//	        8             s_i, bits a slice
//	        8*ceil(k_i*s_i/64)  the bits as words, bit b at bit b%64 of word b/64,
//	                      slice j at bits j*s_i .. (j+1)*s_i - 1, a key's bit
//	                      in it placed by the probes of the package doc
//	...     4           CRC-32C (Castagnoli) of every byte before it
//
// The Config is stored with its defaults applied. A decoder checks that it is
// valid, that each sub-filter's (n_i, k_i, s_i) is the one the Config gives
// (the shape is stored so that the file can be read without the sizing rule,
// and checked so that it cannot contradict it), that every sub-filter but the
// last is full (c_i = n_i) and the last holds c_i <= n_i, all before reading
// the sub-filter's words; then that the padding bits past k_i*s_i are zero and
// that every slice has between 1 and c_i ones (each key sets exactly one bit a
// slice; none when c_i = 0).
const (
	magic         = "SBF1"
	formatVersion = 1
	headerSize    = 42
	subHeaderSize = 28
	trailerSize   = 4
)

// SerializedSize returns the number of bytes WriteTo writes. O(Filters()).
func (f *Filter) SerializedSize() int64 {
	size := int64(headerSize + trailerSize)
	for i := range f.subs {
		size += subHeaderSize + 8*int64(len(f.subs[i].words))
	}
	return size
}

// WriteTo writes the filter in the format described above and returns the
// number of bytes written. It implements io.WriterTo. O(MemoryBits/64).
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U64(f.cfg.InitialCapacity)
	ww.U64(math.Float64bits(f.cfg.FPP))
	ww.U64(math.Float64bits(f.cfg.Growth))
	ww.U64(math.Float64bits(f.cfg.Tightening))
	ww.U32(uint32(len(f.subs)))
	for i := range f.subs {
		sf := &f.subs[i]
		ww.U64(sf.capacity)
		ww.U64(sf.keys)
		ww.U32(uint32(sf.k))
		ww.U64(sf.slice)
		ww.Words(sf.words)
	}
	return ww.Finish()
}

// ReadFrom replaces f with a filter read from r and returns the number of
// bytes consumed. It implements io.ReaderFrom. On any error (wrapping
// ErrFormat, and io.ErrUnexpectedEOF for a cut stream) f is unchanged. Every
// sub-filter's header is checked against the Config before its words are
// read, and the words are read in bounded chunks, so a corrupt header cannot
// cause an allocation much larger than the input. O(MemoryBits/64).
func (f *Filter) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, f, decode) }

func decode(rr *wire.Reader) (*Filter, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	var cfg Config
	cfg.InitialCapacity = rr.U64()
	cfg.FPP = math.Float64frombits(rr.U64())
	cfg.Growth = math.Float64frombits(rr.U64())
	cfg.Tightening = math.Float64frombits(rr.U64())
	l := rr.U32()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	// Stored with defaults applied: a zero field is invalid here, not a default.
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if l < 1 || l > MaxFilters {
		return nil, fmt.Errorf("%w: %d sub-filters, want 1..%d", ErrFormat, l, MaxFilters)
	}
	g := &Filter{cfg: cfg, subs: make([]sub, 0, l)}
	for i := range int(l) {
		capacity, keys, k, slice := rr.U64(), rr.U64(), rr.U32(), rr.U64()
		if err := rr.Err(); err != nil {
			return nil, fmt.Errorf("%w: sub-filter %d header: %w", ErrFormat, i, err)
		}
		want, err := g.next()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		if capacity != want.capacity || uint64(k) != uint64(want.k) || slice != want.slice {
			return nil, fmt.Errorf("%w: sub-filter %d has capacity %d, %d slices of %d bits; the Config gives %d, %d of %d",
				ErrFormat, i, capacity, k, slice, want.capacity, want.k, want.slice)
		}
		if keys > capacity || (i < int(l)-1 && keys != capacity) {
			return nil, fmt.Errorf("%w: sub-filter %d of %d holds %d keys of capacity %d (only the last may be below it)",
				ErrFormat, i, l, keys, capacity)
		}
		words := rr.Words(want.words())
		if err := rr.Err(); err != nil {
			return nil, fmt.Errorf("%w: sub-filter %d bits: %w", ErrFormat, i, err)
		}
		g.subs = append(g.subs, sub{shape: want, keys: keys, words: words})
		g.bits += want.bits()
		g.n += keys
	}
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	for i := range g.subs {
		if err := g.subs[i].check(); err != nil {
			return nil, fmt.Errorf("%w: sub-filter %d: %v", ErrFormat, i, err)
		}
	}
	return g, nil
}

// check reports a sub-filter whose bits contradict its fill: a padding bit set,
// or a slice with no ones though keys were added, or more ones than keys.
func (sf *sub) check() error {
	if r := sf.bits() % 64; r != 0 && sf.words[len(sf.words)-1]>>r != 0 {
		return fmt.Errorf("padding bits past bit %d are not zero", sf.bits())
	}
	for j := range uint64(sf.k) {
		ones := onesIn(sf.words, j*sf.slice, (j+1)*sf.slice)
		if ones > sf.keys || (sf.keys > 0 && ones == 0) {
			return fmt.Errorf("slice %d has %d ones with %d keys", j, ones, sf.keys)
		}
	}
	return nil
}

// onesIn counts the set bits of positions lo..hi-1 of words. O((hi-lo)/64).
func onesIn(words []uint64, lo, hi uint64) uint64 {
	var n uint64
	for lo < hi {
		take := min(64-lo&63, hi-lo)
		w := words[lo>>6] >> (lo & 63)
		if take < 64 {
			w &= 1<<take - 1
		}
		n += uint64(bits.OnesCount64(w))
		lo += take
	}
	return n
}

// MarshalBinary returns the serialized filter (see WriteTo).
// It implements encoding.BinaryMarshaler.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return wire.Marshal(f, f.SerializedSize())
}

// UnmarshalBinary replaces f with the filter serialized in data, which must
// hold exactly one filter and nothing else. It implements
// encoding.BinaryUnmarshaler. On error (wrapping ErrFormat) f is unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	return wire.UnmarshalInto(data, f, decode, ErrFormat)
}
