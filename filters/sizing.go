package filters

import (
	"errors"
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/internal/option"
)

// Sizing fixes the memory of a filter. With FPP = 0 every sized kind gets
// BitsPerKey*n bits: a CBF of m = BitsPerKey*n/4 counters, the ACBF the same
// 4m-bit budget, the Bloom filter 4m bits; K defaults to round((m/n) ln 2) and
// is the same for every kind. With FPP > 0 the kind is instead sized so that
// its formula false positive rate is at most FPP (K then follows from that
// size unless set). The zero value is 32 bits per key.
type Sizing struct {
	BitsPerKey float64 // default 32
	K          int     // 0: round((m/n) ln 2), at most MaxK
	FPP        float64 // 0: size by BitsPerKey
}

// DefaultBitsPerKey is Sizing.BitsPerKey when it is 0.
const DefaultBitsPerKey = 32

// MaxK is the most hash functions any kind takes (cbf.MaxK = acbf.MaxK = 64,
// and the Bloom decoder's bound), so that every filter built can be encoded
// and decoded. The default k is capped at MaxK too: beyond it the formula's
// false positive rate is below 1e-19.
const MaxK = 64

// MaxFilterBytes is the most memory one filter may take (1 GiB), checked from
// its parameters before anything is allocated.
const MaxFilterBytes = 1 << 30

// ErrSizing is wrapped by every error about a Sizing (an option.Error naming
// the field).
var ErrSizing = errors.New("filters: invalid sizing")

// sizingError returns an option.Error for Sizing field name.
func sizingError(name string, value any, cause error, format string, a ...any) error {
	return &option.Error{Pkg: "filters", Name: "Sizing." + name, Value: value, Reason: fmt.Sprintf(format, a...), Err: ErrSizing, Cause: cause}
}

// Validate checks the fields of s that do not depend on a kind or a key count.
func (s Sizing) Validate() error {
	switch {
	case s.K < 0 || s.K > MaxK:
		return sizingError("K", s.K, nil, "want 1 to %d hash functions (0: round((m/n) ln 2))", MaxK)
	case s.FPP != 0 && !(s.FPP > 0 && s.FPP < 1):
		return sizingError("FPP", s.FPP, nil, "want a rate between 0 and 1, such as 0.001")
	case s.FPP == 0 && s.BitsPerKey != 0 && !(s.BitsPerKey >= 4):
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "want at least 4 (one 4-bit counter per key)")
	case s.BitsPerKey > 0 && math.IsInf(s.BitsPerKey, 1):
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "want a finite number")
	}
	return nil
}

// defaultK is round((m/n) ln 2), between 1 and MaxK: the k that minimises a
// Bloom filter's false positive rate with m bits per n keys (Broder and
// Mitzenmacher 2004), taken from the CBF's m counters as the paper does.
func defaultK(m, n float64) int {
	return min(MaxK, max(1, int(math.Round(m/n*math.Ln2))))
}

// Size returns the parameters of kind s for n distinct keys (n >= 1).
func (sp *Spec) Size(n uint64, s Sizing) (Params, error) {
	if err := s.Validate(); err != nil {
		return Params{}, err
	}
	if !sp.Sized {
		return Params{}, nil
	}
	nf := float64(n)
	var m uint64
	k := s.K
	if s.FPP != 0 {
		// The Bloom optimum: bits = -n ln p / ln^2 2, k = (bits/n) ln 2
		// (Broder and Mitzenmacher 2004), for the bits a query reads; the
		// kind says how many counters give its first level that many.
		bits := math.Ceil(-nf * math.Log(s.FPP) / (math.Ln2 * math.Ln2))
		if bits/8 > MaxFilterBytes {
			return Params{}, sizingError("FPP", s.FPP, nil, "a formula false positive rate of %v for %d keys needs %s, above the %s a filter may take",
				s.FPP, n, bytesText(bits/8), bytesText(MaxFilterBytes))
		}
		if k == 0 {
			k = defaultK(bits, nf)
		}
		m = sp.CountersFor(uint64(bits), n, k)
	} else {
		bpk := s.BitsPerKey
		if bpk == 0 {
			bpk = DefaultBitsPerKey
		}
		if bits := bpk * nf; bits/8 > MaxFilterBytes {
			return Params{}, sizingError("BitsPerKey", bpk, nil, "%v bits per key for %d keys is %s, above the %s a filter may take (at most %.0f bits per key for %d keys)",
				bpk, n, bytesText(bits/8), bytesText(MaxFilterBytes), math.Floor(MaxFilterBytes*8/nf), n)
		}
		m = uint64(math.Round(bpk * nf / 4))
		if k == 0 {
			k = defaultK(float64(m), nf)
		}
	}
	p, err := sp.Layout(m, n, k)
	if err != nil {
		return Params{}, err
	}
	if p.MemoryBits/8 > MaxFilterBytes {
		if s.FPP != 0 {
			return Params{}, sizingError("FPP", s.FPP, nil, "a formula false positive rate of %v for %d keys needs %s in a %s filter, above the %s a filter may take",
				s.FPP, n, bytesText(float64(p.MemoryBits/8)), sp.Kind, bytesText(MaxFilterBytes))
		}
		return Params{}, sizingError("BitsPerKey", s.BitsPerKey, nil, "%d keys need %s in a %s filter, above the %s a filter may take",
			n, bytesText(float64(p.MemoryBits/8)), sp.Kind, bytesText(MaxFilterBytes))
	}
	return p, nil
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
