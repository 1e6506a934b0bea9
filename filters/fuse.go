package filters

import (
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/fuse"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// Fuse is a binary fuse filter (package fuse; Graf and Lemire 2022):
// static, built once from all its keys, with f-bit fingerprints (8, 16 or
// 32) in an array of about 1.125 n entries, false positive rate 2^-f. Its
// fingerprint is the fingerprint-bits option, or the least f that meets
// Sizing.FPP, or the largest f whose array fits in Sizing.BitsPerKey bits a
// key (8 if none does: the least filter, whose fixed segments exceed the
// bits of a few keys; fewer than 9 bits a key are refused).
const Fuse Kind = "fuse"

// fuseParams are a binary fuse filter's: F-bit fingerprints in Slots
// entries (Memory = Slots*F bits).
type fuseParams struct {
	F      int    `json:"f"`
	Slots  uint64 `json:"slots"`
	Memory uint64 `json:"memory_bits"`
}

func (p fuseParams) String() string   { return fmt.Sprintf("fuse(f=%d,slots=%d)", p.F, p.Slots) }
func (p fuseParams) Shape() string    { return fmt.Sprintf("f=%d", p.F) }
func (p fuseParams) Summary() Summary { return Summary{FirstLevelBits: p.Memory, MemoryBits: p.Memory} }

func fuseParamsOf(f *fuse.Filter) fuseParams {
	return fuseParams{F: f.FingerprintBits(), Slots: f.Slots(), Memory: f.MemoryBits()}
}

type fuseKind struct {
	ownFormat[fuse.Filter, *fuse.Filter, fuseParams]
}

func init() {
	register(&Spec{Kind: Fuse, Doc: "a binary fuse filter of f-bit fingerprints, FP 2^-f, about 1.125f bits a key (Graf and Lemire 2022); static: no key added or deleted once built",
		Order: 11, Sized: true, f: fuseKind{ownFormat[fuse.Filter, *fuse.Filter, fuseParams]{params: fuseParamsOf}}, Options: []Option{
			{Name: OptionFingerprintBits, Int: true, Min: 8, Max: 32, Want: "8, 16 or 32", Valid: func(v float64) bool { return fuse.ValidBits(int(v)) }, Doc: "bits a fingerprint, 8, 16 or 32 (default: what the target FPP or bits per key give)"},
		}})
}

// fuseLeastBitsPerKey is what the least fuse filters take a key as they
// grow: 8-bit fingerprints in 1.125 slots a key (Graf and Lemire 2022).
const fuseLeastBitsPerKey = 9.0

// fuseWidths are the fingerprint widths, narrowest first.
var fuseWidths = []int{8, 16, 32}

func (fuseKind) size(n uint64, s Sizing) (Params, error) {
	if n > fuse.MaxKeys {
		return nil, sizingError("BitsPerKey", s.BitsPerKey, nil, "%d keys, more than a fuse filter holds (%d)", n, uint64(fuse.MaxKeys))
	}
	slots := fuse.Slots(n)
	f := s.intOption(OptionFingerprintBits, 0)
	switch {
	case f != 0 && !fuse.ValidBits(f):
		return nil, sizingError(OptionFingerprintBits, f, nil, "want 8, 16 or 32")
	case f != 0:
	case s.FPP != 0:
		// The narrowest fingerprint whose rate 2^-f meets the target.
		for _, g := range fuseWidths {
			if fuse.FPP(g) <= s.FPP {
				f = g
				break
			}
		}
		if f == 0 {
			return nil, sizingError("FPP", s.FPP, nil, "a fuse filter reaches at best %.3g (32-bit fingerprints)", fuse.FPP(32))
		}
	default:
		// The widest fingerprint whose array fits BitsPerKey*n bits, or
		// the least filter, of 8-bit fingerprints: the array has at least
		// three segments, more than the bits of a few keys (38 bits a key
		// for 10 keys), as a blocked filter has at least one block. Fewer
		// bits a key than 8-bit fingerprints take in the limit (1.125
		// slots a key) is a request no fuse filter meets: refused, as the
		// cuckoo filter refuses its.
		if s.BitsPerKey < fuseLeastBitsPerKey {
			return nil, sizingError("BitsPerKey", s.BitsPerKey, nil, "a fuse filter takes at least %.0f bits a key (8-bit fingerprints in 1.125 slots a key; %d keys take %.3g)",
				fuseLeastBitsPerKey, n, float64(slots*8)/float64(n))
		}
		f = 8
		for _, g := range fuseWidths {
			if float64(slots*uint64(g)) <= s.BitsPerKey*float64(n) {
				f = g
			}
		}
	}
	return fuseParams{F: f, Slots: slots, Memory: slots * uint64(f)}, nil
}

func (fuseKind) build(p Params, keys keylist.List) (Filter, Params, int64, error) {
	f, err := fuse.BuildList(keys, p.(fuseParams).F)
	if err != nil {
		return nil, nil, 0, err
	}
	return f, fuseParamsOf(f), f.SerializedSize(), nil
}

// fpp is 2^-f: a non-member's fingerprint matches the XOR of its three
// entries with that chance whatever the keys (Graf and Lemire 2022, Sec.
// 2); a filter of no keys passes nothing.
func (fuseKind) fpp(p Params, n uint64) float64 {
	if n == 0 {
		return 0
	}
	return math.Ldexp(1, -p.(fuseParams).F)
}
