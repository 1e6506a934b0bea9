package filters

import (
	"errors"
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/cuckoo"
	"github.com/acbfjoin/acbfjoin/internal/option"
)

// Sizing fixes the memory of a filter. With FPP = 0 every sized kind gets
// about BitsPerKey*n bits: a CBF of m = BitsPerKey*n/4 counters, the ACBF
// the same 4m-bit budget, the Bloom and blocked filters 4m bits, the cuckoo
// filter the fingerprints that fit, the scalable filter a first sub-filter
// of BitsPerKey bits a key (it grows beyond; see SizeFor in scalable.go). K
// defaults to the k that minimises each kind's formula at its memory:
// round((m/n) ln 2) for the counting kinds, which share it, round((4m/n) ln
// 2) for the Bloom filter; a K given is used by every kind that hashes k
// times. With FPP > 0 each kind is instead sized so that its formula false
// positive rate is at most FPP (K then follows from that size unless set).
// The fields after FPP belong to one kind each and are ignored by the
// others. The zero value is 32 bits per key.
type Sizing struct {
	BitsPerKey float64 // default 32
	K          int     // 0: each kind's best; at most MaxK (blocked: MaxBlockedK)
	FPP        float64 // 0: size by BitsPerKey

	BucketSize      int     // cuckoo: fingerprints a bucket, 1, 2, 4 or 8 (0: 4)
	FingerprintBits int     // cuckoo: 1 to 32 (0: what the FPP or the memory allows)
	InitialCapacity uint64  // scalable: keys of the first sub-filter (0: 1000)
	Growth          float64 // scalable: at least 1 (0: 2)
	Tightening      float64 // scalable: between 0 and 1 (0: 0.5)
	// ACBFCapacity, for the acbf kinds: the keys whose counters the filter
	// keeps room for, at least the keys it holds (0: exactly those). A
	// larger capacity shrinks the optimal first level, m1 = 4m - ck
	// instead of 4m - nk, as in a cluster job that sizes its filter for the
	// key count it expects. With BitsPerKey the memory follows the keys
	// held and the first level shrinks; with FPP the first level keeps the
	// rate and the memory grows by the counters' room.
	ACBFCapacity uint64
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
		return sizingError("K", s.K, nil, "want 1 to %d hash functions", MaxK)
	case s.FPP != 0 && !(s.FPP > 0 && s.FPP < 1):
		return sizingError("FPP", s.FPP, nil, "want a rate between 0 and 1, such as 0.001")
	case s.FPP == 0 && s.BitsPerKey != 0 && !(s.BitsPerKey > 0):
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "want a positive number of bits per key, such as 16")
	case s.BitsPerKey > 0 && math.IsInf(s.BitsPerKey, 1):
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "want a finite number")
	case s.BucketSize != 0 && s.BucketSize != 1 && s.BucketSize != 2 && s.BucketSize != 4 && s.BucketSize != 8:
		return sizingError("BucketSize", s.BucketSize, nil, "want 1, 2, 4 or 8 fingerprints a bucket (0: 4)")
	case s.FingerprintBits != 0 && (s.FingerprintBits < minFingerprintBits || s.FingerprintBits > maxFingerprintBits):
		return sizingError("FingerprintBits", s.FingerprintBits, nil, "want %d to %d bits", minFingerprintBits, maxFingerprintBits)
	case s.ACBFCapacity > maxInitialCapacity:
		return sizingError("ACBFCapacity", s.ACBFCapacity, nil, "want at most %d keys", uint64(maxInitialCapacity))
	case s.InitialCapacity > maxInitialCapacity:
		return sizingError("InitialCapacity", s.InitialCapacity, nil, "want at most %d keys", uint64(maxInitialCapacity))
	case s.Growth != 0 && !(s.Growth >= 1 && s.Growth <= maxGrowth):
		return sizingError("Growth", s.Growth, nil, "want a factor from 1 to %g, such as 2", float64(maxGrowth))
	case s.Tightening != 0 && !(s.Tightening > 0 && s.Tightening < 1):
		return sizingError("Tightening", s.Tightening, nil, "want a ratio between 0 and 1, such as 0.5")
	}
	return nil
}

// Set returns the names and values of the fields of s that are not zero
// (for messages about options that do not apply).
func (s Sizing) Set() []SizingField {
	var out []SizingField
	for _, f := range []SizingField{{"BitsPerKey", s.BitsPerKey}, {"K", s.K}, {"FPP", s.FPP}, {"BucketSize", s.BucketSize},
		{"FingerprintBits", s.FingerprintBits}, {"InitialCapacity", s.InitialCapacity}, {"Growth", s.Growth}, {"Tightening", s.Tightening}, {"ACBFCapacity", s.ACBFCapacity}} {
		if !isZero(f.Value) {
			out = append(out, f)
		}
	}
	return out
}

// SizingField is a field of a Sizing, by name.
type SizingField struct {
	Name  string
	Value any
}

func isZero(v any) bool {
	switch v := v.(type) {
	case int:
		return v == 0
	case uint64:
		return v == 0
	case float64:
		return v == 0
	}
	return false
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
	if sp.SizeFor != nil {
		if s.BitsPerKey == 0 {
			s.BitsPerKey = DefaultBitsPerKey
		}
		if s.FPP == 0 {
			if bits := s.BitsPerKey * float64(n); bits/8 > MaxFilterBytes {
				return Params{}, sizingError("BitsPerKey", s.BitsPerKey, nil, "%v bits per key for %d keys is %s, above the %s a filter may take (at most %.0f bits per key for %d keys)",
					s.BitsPerKey, n, bytesText(bits/8), bytesText(MaxFilterBytes), math.Floor(MaxFilterBytes*8/float64(n)), n)
			}
		}
		p, err := sp.SizeFor(n, s)
		if err != nil {
			return Params{}, err
		}
		return p, sp.checkMemory(p, n, s)
	}
	nf := float64(n)
	// room is the key count the layout leaves counter bits for: the keys
	// held, or the ACBF's capacity.
	room := n
	if s.ACBFCapacity != 0 && sp.Uses("ACBFCapacity") {
		if s.ACBFCapacity < n {
			return Params{}, sizingError("ACBFCapacity", s.ACBFCapacity, nil, "the filter holds %d keys: want a capacity of at least that (0: exactly the keys held)", n)
		}
		room = s.ACBFCapacity
	}
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
		// k is a whole number, so the optimum's bits can miss the rate by a
		// little (or by much, with a k given): the least first level at or
		// above it that meets the rate, doubling then halving the step.
		meets := func(bits float64) (bool, error) {
			p, err := sp.Layout(sp.CountersFor(uint64(bits), room, k), room, k)
			return err == nil && sp.FPP(p, n) <= s.FPP, err
		}
		lo, hi := bits, bits
		for {
			ok, err := meets(hi)
			if err != nil {
				return Params{}, err
			}
			if ok {
				break
			}
			if lo = hi; hi > 8*MaxFilterBytes {
				return Params{}, sizingError("FPP", s.FPP, nil, "a formula false positive rate of %v for %d keys with k = %d needs more than the %s a filter may take",
					s.FPP, n, k, bytesText(MaxFilterBytes))
			}
			hi = math.Ceil(hi * 1.25)
		}
		for hi-lo > 1 {
			mid := math.Floor((lo + hi) / 2)
			if ok, _ := meets(mid); ok {
				hi = mid
			} else {
				lo = mid
			}
		}
		m = sp.CountersFor(uint64(hi), room, k)
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
		if m == 0 {
			return Params{}, sizingError("BitsPerKey", bpk, nil, "%v bits per key for %d keys is less than 4 bits in all, the smallest filter: want at least %.3g", bpk, n, 2/nf)
		}
		if k == 0 {
			k = defaultK(float64(m), nf)
			if sp.DefaultK != nil {
				k = sp.DefaultK(m, n)
			}
		}
	}
	p, err := sp.Layout(m, room, k)
	var oe *option.Error
	if errors.As(err, &oe) && oe.Name == "Sizing.BitsPerKey" && s.FPP == 0 && s.BitsPerKey != 0 {
		oe.Value = s.BitsPerKey // the budget asked, not the one m rounded to
	}
	if err != nil {
		if room != n {
			return Params{}, sizingError("ACBFCapacity", s.ACBFCapacity, err, "counter room for %d keys (k = %d bits each) does not fit in the %d-bit budget of %d keys: a smaller capacity, more bits per key or a smaller k",
				room, k, 4*m, n)
		}
		return Params{}, err
	}
	return p, sp.checkMemory(p, n, s)
}

// checkMemory refuses parameters above MaxFilterBytes, naming the field that
// sized them.
func (sp *Spec) checkMemory(p Params, n uint64, s Sizing) error {
	if p.MemoryBits/8 > MaxFilterBytes {
		if s.FPP != 0 {
			return sizingError("FPP", s.FPP, nil, "a formula false positive rate of %v for %d keys needs %s in a %s filter, above the %s a filter may take",
				s.FPP, n, bytesText(float64(p.MemoryBits/8)), sp.Kind, bytesText(MaxFilterBytes))
		}
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "%d keys need %s in a %s filter, above the %s a filter may take",
			n, bytesText(float64(p.MemoryBits/8)), sp.Kind, bytesText(MaxFilterBytes))
	}
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

// Bounds of the kind-specific Sizing fields (the cuckoo and scalable
// packages check the same).
const (
	minFingerprintBits = 1
	maxFingerprintBits = cuckoo.MaxFingerprintBits
	maxInitialCapacity = 1 << 40 // keys: far beyond MaxFilterBytes at any rate
	maxGrowth          = 1 << 10
)
