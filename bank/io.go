package bank

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/wire"
	"github.com/acbfjoin/acbfjoin/key"
)

// A bank file, little-endian (internal/wire):
//
//	magic "ACJB", version u16 (4);
//	kind, key column, class column, key type, classing: u16 length + bytes each;
//	sizing (version 3): bits per key f64, fpp f64, budget u64 (bytes),
//	options u32, then for
//	each, by name: its name (u16 length + bytes), its value f64;
//	(versions 1 and 2: bits per key f64, k u32, fpp f64, bucket size u32,
//	fingerprint bits u32, initial capacity u64, growth f64, tightening f64,
//	read as the options k, bucket-size, fingerprint-bits,
//	initial-capacity, growth and tightening where not 0);
//	classes u32, then for each: label (u16 length + bytes), distinct keys
//	u64, key fingerprint 2 x u64, m u64, k u32, first level bits u64, memory
//	bits u64, formula FP f64, payload length u64, payload (the kind's own
//	format, filters.Built.Marshal);
//	(version 2) shared keys u64, then for each, in key order: key length
//	u32 and bytes, classes u32 (at least 2), class indexes u32 each,
//	ascending;
//	CRC-32C of everything before.
//
// Version 4 is version 3 but for the exact kind's payload, whose bitmap is
// written compact (filters, exact.go): a binary that reads up to version
// 3 refuses it rather than read a compact payload as a key list.
//
// Version 1 files (without the shared keys) are read, with SharedKnown
// false: they filter and validate, but cannot move keys. The m, k, first
// level and memory bits of each class are the filter's Summary as written;
// a reader takes them from the filter itself.
const (
	magic      = "ACJB"
	version    = 4
	maxOptions = 64
	maxLabel   = 1024
	maxText    = 1 << 12
	maxKey     = 1 << 20 // a key is a field of a record, at most 1 MiB
)

// MaxLabelBytes is the longest class label a bank holds.
const MaxLabelBytes = maxLabel

// WriteTo writes the bank in its file format. O(bytes of its filters).
func (b *Bank) WriteTo(out io.Writer) (int64, error) {
	w := wire.NewWriter(out)
	w.Header(magic, version)
	for _, s := range []string{string(b.Kind), b.KeyCol, b.ClassCol, b.KeyType, b.Classing.String()} {
		if len(s) > maxText {
			return 0, fmt.Errorf("%w: a setting of %d bytes, at most %d", ErrBank, len(s), maxText)
		}
		w.Str(s)
	}
	s := b.Sizing
	w.U64(math.Float64bits(s.BitsPerKey))
	w.U64(math.Float64bits(s.FPP))
	w.U64(uint64(s.Budget))
	w.U32(uint32(len(s.Options)))
	for _, name := range slices.Sorted(maps.Keys(s.Options)) {
		w.Str(name)
		w.U64(math.Float64bits(s.Options[name]))
	}
	w.U32(uint32(len(b.Classes)))
	for _, c := range b.Classes {
		if len(c.Label) > maxLabel {
			return 0, fmt.Errorf("%w: class label of %d bytes, at most %d", ErrBank, len(c.Label), maxLabel)
		}
		payload, err := c.Built.Marshal()
		if err != nil {
			return 0, err
		}
		w.Str(c.Label)
		bt := c.Built
		w.U64(uint64(bt.N))
		w.U64(bt.KeysFingerprint[0])
		w.U64(bt.KeysFingerprint[1])
		w.U64(bt.M)
		w.U32(uint32(bt.K))
		w.U64(bt.FirstLevelBits)
		w.U64(bt.MemoryBits)
		w.U64(math.Float64bits(bt.FPP))
		w.U64(uint64(len(payload)))
		w.Bytes(payload)
	}
	if !b.SharedKnown {
		return 0, fmt.Errorf("%w: the bank does not know its shared keys (read from a version 1 file): rebuild it with join bank build", ErrBank)
	}
	keys := slices.Sorted(maps.Keys(b.Shared))
	w.U64(uint64(len(keys)))
	for _, k := range keys {
		cs := b.Shared[k]
		w.U32(uint32(len(k)))
		w.Bytes([]byte(k))
		w.U32(uint32(len(cs)))
		for _, c := range cs {
			w.U32(uint32(c))
		}
	}
	return w.Finish()
}

// Read reads a bank file from r (name is for messages): magic, version,
// checksum, nothing after it, and every class's filter decoded by its kind.
// A corrupt file is an error wrapping ErrBank, never a panic, and allocates
// no more than the bytes present (plus a chunk).
func Read(r io.Reader, name string) (*Bank, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w file: %s", name, ErrBank, fmt.Sprintf(format, a...))
	}
	rr := wire.NewReader(r)
	v, err := rr.Header(magic, 1, version)
	switch {
	case errors.Is(err, wire.ErrMagic):
		return nil, bad("not a filter bank (%v); write one with join bank build", err)
	case errors.Is(err, wire.ErrVersion):
		return nil, bad("format version %d, this join reads versions 1 to %d: rebuild it with join bank build", v, version)
	case err != nil:
		return nil, bad("%v", err)
	}
	var strs [5]string
	for i := range strs {
		strs[i] = rr.Str(maxText)
	}
	b := &Bank{Kind: filters.Kind(strs[0]), KeyCol: strs[1], ClassCol: strs[2], KeyType: strs[3], FileVersion: int(v)}
	if v >= 3 {
		b.Sizing.BitsPerKey = math.Float64frombits(rr.U64())
		b.Sizing.FPP = math.Float64frombits(rr.U64())
		b.Sizing.Budget = int64(rr.U64())
		no := rr.U32()
		if no > maxOptions {
			return nil, bad("%d sizing options", no)
		}
		for range no {
			name, val := rr.Str(maxText), math.Float64frombits(rr.U64())
			if rr.Err() == nil {
				b.Sizing = b.Sizing.With(name, val)
			}
		}
	} else {
		// Versions 1 and 2 wrote each kind's field.
		b.Sizing.BitsPerKey = math.Float64frombits(rr.U64())
		k := rr.U32()
		b.Sizing.FPP = math.Float64frombits(rr.U64())
		for _, o := range []struct {
			name string
			v    float64
		}{{"k", float64(k)}, {"bucket-size", float64(rr.U32())}, {"fingerprint-bits", float64(rr.U32())},
			{"initial-capacity", float64(rr.U64())}, {"growth", math.Float64frombits(rr.U64())}, {"tightening", math.Float64frombits(rr.U64())}} {
			if o.v != 0 {
				b.Sizing = b.Sizing.With(o.name, o.v)
			}
		}
	}
	nc := rr.U32()
	if rr.Err() != nil {
		return nil, bad("%v", rr.Err())
	}
	sp, err := filters.Lookup(strs[0])
	if err != nil {
		return nil, bad("%v", err)
	}
	if b.Classing, err = ParseClassing(strs[4]); err != nil {
		return nil, bad("%v", err)
	}
	if err := b.Sizing.Validate(); err != nil {
		return nil, bad("%v", err)
	}
	if kc, kt, err := key.Canonical(b.KeyCol, key.Type(b.KeyType)); err != nil || kc != b.KeyCol || string(kt) != b.KeyType {
		return nil, bad("key column %q of type %q", b.KeyCol, b.KeyType)
	}
	if nc > MaxClasses {
		return nil, bad("%d classes", nc)
	}
	type pending struct {
		c       *Class
		payload []byte
	}
	var ps []pending
	for range nc {
		c := &Class{Label: rr.Str(maxLabel), Built: &filters.Built{Spec: sp}}
		bt := c.Built
		bt.N = int(min(rr.U64(), math.MaxInt32))
		bt.KeysFingerprint = [2]uint64{rr.U64(), rr.U64()}
		rr.U64() // the summary as written (m, k, first level and memory
		rr.U32() // bits): the filter's own parameters are read from it
		rr.U64()
		rr.U64()
		bt.FPP = math.Float64frombits(rr.U64())
		pl := rr.U64()
		if rr.Err() != nil {
			return nil, bad("%v", rr.Err())
		}
		if pl > filters.MaxFilterBytes+1<<20 {
			return nil, bad("class %q: a filter of %d bytes", c.Label, pl)
		}
		ps = append(ps, pending{c, rr.ByteSlice(pl)})
	}
	if v >= 2 {
		b.SharedKnown = true
		ns := rr.U64()
		for i := uint64(0); i < ns && rr.Err() == nil; i++ {
			kl := rr.U32()
			if kl > maxKey {
				return nil, bad("a shared key of %d bytes", kl)
			}
			key := string(rr.ByteSlice(uint64(kl)))
			nk := rr.U32()
			if rr.Err() != nil {
				break
			}
			if nk < 2 || nk > nc {
				return nil, bad("a shared key in %d classes", nk)
			}
			cs := make([]int, nk)
			for j := range cs {
				cs[j] = int(rr.U32())
				if cs[j] >= int(nc) || j > 0 && cs[j] <= cs[j-1] {
					return nil, bad("a shared key's classes %v", cs[:j+1])
				}
			}
			if b.Shared == nil {
				b.Shared = map[string][]int{}
			}
			if _, dup := b.Shared[key]; dup {
				return nil, bad("shared key %q twice", key)
			}
			b.Shared[key] = cs
		}
	}
	if err := rr.Verify(); err != nil {
		return nil, bad("%v (the file is truncated or corrupt)", err)
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		return nil, bad("trailing bytes")
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.c.Label] {
			return nil, bad("class %q twice", p.c.Label)
		}
		seen[p.c.Label] = true
		if p.c.Built.Filter, p.c.Built.Params, err = sp.DecodeParams(p.payload); err != nil {
			return nil, bad("class %q: %v", p.c.Label, err)
		}
		if p.c.Built.Params != nil {
			p.c.Built.Summary = p.c.Built.Params.Summary()
		}
		p.c.Built.SerializedBytes = int64(len(p.payload))
		b.Classes = append(b.Classes, p.c)
	}
	return b, nil
}

// Decode reads a bank from data (Read over a byte slice).
func Decode(data []byte, name string) (*Bank, error) { return Read(bytes.NewReader(data), name) }
