package join

import (
	"bytes"
	"fmt"
	"math"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/cbf"
)

// Filter is what a map worker needs of a filter: a membership test that is safe
// for concurrent readers. False positives are allowed, false negatives are not.
type Filter interface {
	Contains(key []byte) bool
}

// Kind names a filter.
type Kind string

const (
	None  Kind = "none"  // every row passes
	Exact Kind = "exact" // hash set of the keys: a semi-join, no false positives
	Bloom Kind = "bloom" // plain Bloom filter (bits-and-blooms/bloom/v3), same memory, cannot delete
	CBF   Kind = "cbf"   // counting Bloom filter, 4-bit counters
	ACBF  Kind = "acbf"  // ACBF with the optimal first level
	ACBF1 Kind = "acbf1" // ACBF_j: first level of j*m bits
	ACBF2 Kind = "acbf2"
	ACBF3 Kind = "acbf3"
)

// Kinds lists every kind, in report order.
var Kinds = []Kind{None, Exact, Bloom, CBF, ACBF, ACBF1, ACBF2, ACBF3}

// ParseKind parses a --filter value.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown filter %q (want one of none, exact, bloom, cbf, acbf, acbf1, acbf2, acbf3)", s)
}

// Sizing fixes the memory of a filter comparison. With FPP = 0 every filter
// gets BitsPerKey*n bits: the CBF m = BitsPerKey*n/4 counters, the ACBF the
// same 4m-bit budget, the Bloom filter 4m bits; K defaults to round((m/n) ln 2)
// and is the same for every filter. With FPP > 0 the chosen filter is instead
// sized so that its formula false positive rate is at most FPP (K then follows
// from that size unless set).
type Sizing struct {
	BitsPerKey float64 // default 32
	K          int     // 0: round((m/n) ln 2)
	FPP        float64 // 0: size by BitsPerKey
}

// MaxK is the most hash functions any kind takes (cbf.MaxK = acbf.MaxK = 64,
// and the Bloom decoder's bound), so that every filter built can be written
// to a filter file and read back. The default k, round((m/n) ln 2), is capped
// at MaxK too: beyond it the formula's false positive rate is below 1e-19.
const MaxK = 64

// MaxFilterBytes is the most memory one filter may take (1 GiB): checked
// before anything is allocated. Each map worker decodes its own copy, so a
// run holds up to mappers+1 copies.
const MaxFilterBytes = 1 << 30

// Built is a filter with its parameters.
type Built struct {
	Kind            Kind
	Filter          Filter
	N               int       // distinct keys
	KeysFingerprint [2]uint64 // KeysFingerprint of the keys it was built from
	M               uint64    // CBF counters of the budget (0 for none and exact)
	K               int       // hash functions (0 for none and exact)
	FirstLevelBits  uint64    // ACBF m1; the bit count for bloom; 4m for cbf
	MemoryBits      uint64    // memory of the structure's payload
	SerializedBytes int64     // what broadcasting it ships
	TheoreticalFPP  float64   // formula false positive rate with N keys
}

// residentBytes estimates the memory of one decoded copy: the payload, and
// for exact the Go map's own cost, about 64 bytes a key beyond the key bytes.
func (b *Built) residentBytes() uint64 {
	if b.Kind == Exact {
		return b.MemoryBits/8 + 64*uint64(b.N)
	}
	return b.MemoryBits / 8
}

// BuildFilter builds a filter of kind over the distinct keys. O(n*k).
func BuildFilter(kind Kind, keys [][]byte, s Sizing) (*Built, error) {
	n := uint64(len(keys))
	b := &Built{Kind: kind, N: len(keys), KeysFingerprint: KeysFingerprint(keys)}
	if kind == None {
		b.Filter, b.TheoreticalFPP = passAll{}, 1
		return b, nil
	}
	if kind == Exact {
		set := newKeySet(keys)
		b.Filter, b.MemoryBits, b.SerializedBytes = set, uint64(set.bytes)*8, int64(set.bytes)
		return b, nil
	}
	if n == 0 {
		return nil, fmt.Errorf("filter %s: no keys", kind)
	}
	if err := size(kind, n, s, b); err != nil {
		return nil, err
	}
	switch kind {
	case Bloom:
		f := bloom.New(uint(b.FirstLevelBits), uint(b.K))
		for _, key := range keys {
			f.Add(key)
		}
		var buf bytes.Buffer
		sz, err := f.WriteTo(&buf)
		if err != nil {
			return nil, err
		}
		b.Filter, b.SerializedBytes = bloomFilter{f}, sz
		b.TheoreticalFPP = cbf.FPP(b.FirstLevelBits, n, b.K) // same formula with m bits
	case CBF:
		f, err := cbf.New(b.M, b.K)
		if err != nil {
			return nil, err
		}
		for _, key := range keys {
			f.Add(key)
		}
		b.Filter, b.SerializedBytes, b.TheoreticalFPP = f, f.SerializedSize(), f.FPP()
	default: // the ACBFs
		cfg := acbf.Config{Counters: b.M, Capacity: n, K: b.K, FirstLevel: b.FirstLevelBits}
		f, err := acbf.Build(cfg, keys)
		if err != nil {
			return nil, fmt.Errorf("filter %s: %w", kind, err)
		}
		b.Filter, b.SerializedBytes, b.TheoreticalFPP = f, f.SerializedSize(), f.FPP()
	}
	return b, nil
}

// size fills M, K, FirstLevelBits and MemoryBits.
func size(kind Kind, n uint64, s Sizing, b *Built) error {
	nf := float64(n)
	if s.K < 0 || s.K > MaxK {
		return fmt.Errorf("filter %s: k = %d hash functions: want 1 to %d", kind, s.K, MaxK)
	}
	if s.FPP != 0 {
		if !(s.FPP > 0 && s.FPP < 1) {
			return fmt.Errorf("--fpp %v: want 0 < p < 1", s.FPP)
		}
		// The Bloom optimum: bits = -n ln p / ln^2 2, k = (bits/n) ln 2
		// (Broder and Mitzenmacher 2004). For the ACBF those are the first
		// level's bits; the budget adds n*k counter bits.
		bits := math.Ceil(-nf * math.Log(s.FPP) / (math.Ln2 * math.Ln2))
		k := s.K
		if k == 0 {
			k = min(MaxK, max(1, int(math.Round(bits/nf*math.Ln2))))
		}
		if bits/8 > MaxFilterBytes {
			return fmt.Errorf("filter %s: a formula false positive rate of %v for %d keys needs %s, above the %s a filter may take", kind, s.FPP, n, bytesText(bits/8), bytesText(MaxFilterBytes))
		}
		switch kind {
		case Bloom:
			b.M = uint64(math.Ceil(bits / 4))
		case CBF:
			b.M = uint64(bits)
		case ACBF:
			b.M = uint64(math.Ceil((bits + nf*float64(k)) / 4))
		default:
			j := float64(kind[4] - '0')
			b.M = uint64(math.Ceil(bits / j))
			if need := uint64(math.Ceil(nf * float64(k) / (4 - j))); b.M < need {
				b.M = need // room for the counters: n*k <= (4-j)*m
			}
		}
		b.K = k
	} else {
		bpk := s.BitsPerKey
		if bpk == 0 {
			bpk = 32
		}
		if !(bpk >= 4) {
			return fmt.Errorf("--bits-per-key %v: want at least 4", bpk)
		}
		if bits := bpk * nf; bits/8 > MaxFilterBytes {
			return fmt.Errorf("filter %s: %v bits per key for %d keys is %s, above the %s a filter may take (at most %.0f bits per key for %d keys)",
				kind, bpk, n, bytesText(bits/8), bytesText(MaxFilterBytes), math.Floor(MaxFilterBytes*8/nf), n)
		}
		b.M = uint64(math.Round(bpk * nf / 4))
		b.K = s.K
		if b.K == 0 {
			b.K = min(MaxK, max(1, int(math.Round(float64(b.M)/nf*math.Ln2))))
		}
	}
	switch kind {
	case Bloom:
		b.FirstLevelBits = 4 * b.M
	case CBF:
		b.FirstLevelBits = 4 * b.M
	case ACBF:
		b.FirstLevelBits = 0 // resolved below
	default:
		b.FirstLevelBits = uint64(kind[4]-'0') * b.M
	}
	if kind == ACBF {
		cfg := acbf.ConfigOptimal(b.M, n, b.K)
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("filter %s: %.4g bits per key cannot hold k = %d counter bits per key beside a first level (they share the budget): use --bits-per-key > %d or a smaller --k: %w",
				kind, 4*float64(b.M)/nf, b.K, b.K, err)
		}
		b.FirstLevelBits = cfg.FirstLevelBits()
	} else if kind == ACBF1 || kind == ACBF2 || kind == ACBF3 {
		j := uint64(kind[4] - '0')
		if n*uint64(b.K) > (4-j)*b.M {
			need := math.Ceil(4 * float64(b.K) / float64(4-j))
			return fmt.Errorf("filter %s: k = %d counter bits per key do not fit beside a first level of %d*m bits: use --bits-per-key >= %.0f or a smaller --k", kind, b.K, j, need)
		}
	}
	b.MemoryBits = 4 * b.M
	return nil
}

// bytesText prints a byte count in binary units.
func bytesText(b float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.4g %s", b, units[i])
}

// bloomFilter adapts bits-and-blooms' Test to Contains.
type bloomFilter struct{ f *bloom.BloomFilter }

func (b bloomFilter) Contains(key []byte) bool { return b.f.Test(key) }

type passAll struct{}

func (passAll) Contains([]byte) bool { return true }

// keySet is the exact filter: a Go map of the keys.
type keySet struct {
	m     map[string]struct{}
	bytes int // payload: the keys' bytes plus a length byte each
}

func newKeySet(keys [][]byte) *keySet {
	s := &keySet{m: make(map[string]struct{}, len(keys))}
	for _, k := range keys {
		if _, ok := s.m[string(k)]; !ok {
			s.m[string(k)] = struct{}{}
			s.bytes += len(k) + 1
		}
	}
	return s
}

// Contains looks the key up; the string conversion in a map index does not
// allocate.
func (s *keySet) Contains(key []byte) bool {
	_, ok := s.m[string(key)]
	return ok
}
