package join

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/wire"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// Filter files hold a broadcast filter with the settings it was built for, so
// `join run --filter-file` can reuse it and refuse it for another join.
//
//	magic "ACJF", version u16 (3), kind, key column, key type (u16 length +
//	bytes each), distinct keys u64, key set fingerprint 2 x u64 (version 2),
//	m u64, k u32, first level bits u64, memory bits u64, formula FP (float64
//	bits) u64, payload length u64, payload (the kind's own format,
//	filters.Built.Marshal), CRC-32C of everything before.
//
// Version 3 is version 2 but for the exact kind's payload, whose bitmap
// is written compact (filters, exact.go): a binary that reads version 2
// alone refuses it rather than read a compact payload as a key list.
// Version 2 files are read.
const (
	filterFileMagic      = "ACJF"
	filterFileVersion    = 3
	filterFileMinVersion = 2
	maxFilterPayload     = 1 << 36
)

// ErrFilterFile wraps every problem with a filter file.
var ErrFilterFile = errors.New("invalid filter file")

// FilterFile is a decoded filter file.
type FilterFile struct {
	Built   *filters.Built
	KeyCol  string
	KeyType key.Type
}

// WriteFilter writes b, with the key column and key type it was built for, as
// a filter file to out.
func WriteFilter(out io.Writer, b *filters.Built, keyCol string, kt key.Type) error {
	payload, err := b.Marshal()
	if err != nil {
		return err
	}
	w := wire.NewWriter(out)
	w.Header(filterFileMagic, filterFileVersion)
	for _, s := range []string{string(b.Kind()), keyCol, string(kt)} {
		w.Str(s)
	}
	w.U64(uint64(b.N))
	w.U64(b.KeysFingerprint[0])
	w.U64(b.KeysFingerprint[1])
	w.U64(b.M)
	w.U32(uint32(b.K))
	w.U64(b.FirstLevelBits)
	w.U64(b.MemoryBits)
	w.U64(math.Float64bits(b.FPP))
	w.U64(uint64(len(payload)))
	w.Bytes(payload)
	_, err = w.Finish()
	return err
}

// ReadFilter reads and checks a filter file from f (name is for messages):
// magic, version, checksum, nothing after it, and a payload that decodes as
// a filter of its kind. Every error wraps ErrFilterFile.
func ReadFilter(f io.Reader, name string) (*FilterFile, error) {
	var err error
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w: %s", name, ErrFilterFile, fmt.Sprintf(format, a...))
	}
	r := wire.NewReader(f)
	version, err := r.Header(filterFileMagic, filterFileMinVersion, filterFileVersion)
	switch {
	case errors.Is(err, wire.ErrMagic):
		return nil, bad("not a filter file (%v); write one with join build-filter", err)
	case errors.Is(err, wire.ErrVersion):
		return nil, bad("format version %d, this join reads versions %d to %d: rebuild it with join build-filter", version, filterFileMinVersion, filterFileVersion)
	case err != nil:
		return nil, bad("%v", err)
	}
	var strs [3]string
	for i := range strs {
		strs[i] = r.Str(1024)
	}
	b := &filters.Built{}
	b.N = int(r.U64())
	b.KeysFingerprint = [2]uint64{r.U64(), r.U64()}
	b.M = r.U64()
	b.K = int(r.U32())
	b.FirstLevelBits = r.U64()
	b.MemoryBits = r.U64()
	b.FPP = math.Float64frombits(r.U64())
	n := r.U64()
	if r.Err() != nil {
		return nil, bad("%v", r.Err())
	}
	if b.Spec, err = filters.Lookup(strs[0]); err != nil {
		return nil, bad("%v", err)
	}
	if n > maxFilterPayload {
		return nil, bad("payload of %d bytes", n)
	}
	payload := r.ByteSlice(n)
	if err := r.Verify(); err != nil {
		return nil, bad("%v (the file is truncated or corrupt)", err)
	}
	if _, err := f.Read(make([]byte, 1)); err != io.EOF {
		return nil, bad("trailing bytes")
	}
	if b.Filter, b.Params, err = b.Spec.DecodeParams(payload); err != nil {
		return nil, bad("%v", err)
	}
	if b.Params != nil && b.Params.Summary() != b.Summary {
		return nil, bad("the header says %+v, the filter it holds %+v", b.Summary, b.Params.Summary())
	}
	b.SerializedBytes = int64(len(payload))
	return &FilterFile{Built: b, KeyCol: strs[1], KeyType: key.Type(strs[2])}, nil
}

// Check refuses a filter file (named name) built for other join settings or
// another key set: a filter of other keys would drop rows that match. opt is
// resolved (Options.Resolve); keys are the key side's distinct keys.
func (ff *FilterFile) Check(name string, opt Options, keys keylist.List) error {
	distinct := keys.Len()
	switch {
	case opt.Filter != "" && opt.Filter != ff.Built.Kind():
		return fmt.Errorf("%s: %w: it holds the %s filter, the join asks for %s", name, ErrFilterFile, ff.Built.Kind(), opt.Filter)
	case ff.KeyCol != opt.KeyCol:
		return fmt.Errorf("%s: %w: built on key column %s, this join uses %s", name, ErrFilterFile, ff.KeyCol, opt.KeyCol)
	case ff.KeyType != opt.KeyType:
		return fmt.Errorf("%s: %w: built for %s keys, this join compares %s keys", name, ErrFilterFile, ff.KeyType, opt.KeyType)
	case ff.Built.N != distinct:
		return fmt.Errorf("%s: %w: built from %d distinct keys, the key file has %d: rebuild it with join build-filter", name, ErrFilterFile, ff.Built.N, distinct)
	case ff.Built.KeysFingerprint != filters.ListFingerprint(keys):
		return fmt.Errorf("%s: %w: built from other keys than the key file's %d (same count, different fingerprint): rebuild it with join build-filter", name, ErrFilterFile, distinct)
	}
	return nil
}
