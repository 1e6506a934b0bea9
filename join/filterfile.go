package join

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/spaolacci/murmur3"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Filter files hold a broadcast filter with the settings it was built for, so
// `join run --filter-file` can reuse it and refuse it for another join.
//
//	magic "ACJF", version u16 (2), kind, key column, key type (u16 length +
//	bytes each), distinct keys u64, key set fingerprint 2 x u64 (version 2),
//	m u64, k u32, first level bits u64, memory bits u64, formula FP (float64
//	bits) u64, payload length u64, payload (the filter's own format,
//	Built.Marshal), CRC-32C of everything before.
const (
	filterFileMagic   = "ACJF"
	filterFileVersion = 2
	maxFilterPayload  = 1 << 36
)

// ErrFilterFile wraps every problem with a filter file.
var ErrFilterFile = errors.New("invalid filter file")

// FilterFile is a decoded filter file.
type FilterFile struct {
	Built   *Built
	KeyCol  string
	KeyType KeyType
}

// WriteFilterFile writes b with the join settings it was built for to a new
// file at path (internal/atomicfile: complete or not at all).
func WriteFilterFile(path string, b *Built, keyCol string, kt KeyType) error {
	return atomicfile.Write(path, func(f *os.File) error { return WriteFilter(f, b, keyCol, kt) })
}

// WriteFilter writes b as a filter file to out.
func WriteFilter(out io.Writer, b *Built, keyCol string, kt KeyType) error {
	payload, err := b.Marshal()
	if err != nil {
		return err
	}
	w := wire.NewWriter(out)
	w.Bytes([]byte(filterFileMagic))
	w.U16(filterFileVersion)
	for _, s := range []string{string(b.Kind), keyCol, string(kt)} {
		w.U16(uint16(len(s)))
		w.Bytes([]byte(s))
	}
	w.U64(uint64(b.N))
	w.U64(b.KeysFingerprint[0])
	w.U64(b.KeysFingerprint[1])
	w.U64(b.M)
	w.U32(uint32(b.K))
	w.U64(b.FirstLevelBits)
	w.U64(b.MemoryBits)
	w.U64(math.Float64bits(b.TheoreticalFPP))
	w.U64(uint64(len(payload)))
	w.Bytes(payload)
	_, err = w.Finish()
	return err
}

// ReadFilterFile reads and checks a filter file: magic, version, checksum, and
// a payload that decodes as a filter of its kind. path may be "-" (standard
// input), a pipe or a FIFO (csvscan.OpenContext: opening it gives up when ctx
// ends).
func ReadFilterFile(ctx context.Context, path string) (*FilterFile, error) {
	f, name, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ff, err := readFilterFile(f, name)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return ff, err
}

func readFilterFile(f io.Reader, path string) (*FilterFile, error) {
	var err error
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w: %s", path, ErrFilterFile, fmt.Sprintf(format, a...))
	}
	r := wire.NewReader(f)
	var mg [4]byte
	r.Bytes(mg[:])
	version := r.U16()
	if r.Err() != nil {
		return nil, bad("%v", r.Err())
	}
	if string(mg[:]) != filterFileMagic {
		return nil, bad("not a filter file (magic %q); write one with join build-filter", mg[:])
	}
	if version != filterFileVersion {
		return nil, bad("format version %d, this join reads version %d: rebuild it with join build-filter", version, filterFileVersion)
	}
	var strs [3]string
	for i := range strs {
		n := r.U16()
		if n > 1024 {
			return nil, bad("corrupt header")
		}
		strs[i] = string(r.ByteSlice(uint64(n)))
	}
	b := &Built{Kind: Kind(strs[0])}
	b.N = int(r.U64())
	b.KeysFingerprint = [2]uint64{r.U64(), r.U64()}
	b.M = r.U64()
	b.K = int(r.U32())
	b.FirstLevelBits = r.U64()
	b.MemoryBits = r.U64()
	b.TheoreticalFPP = math.Float64frombits(r.U64())
	n := r.U64()
	if r.Err() != nil {
		return nil, bad("%v", r.Err())
	}
	if _, err := ParseKind(string(b.Kind)); err != nil {
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
	if b.Filter, err = Unmarshal(b.Kind, payload); err != nil {
		return nil, bad("%v", err)
	}
	b.SerializedBytes = int64(len(payload))
	return &FilterFile{Built: b, KeyCol: strs[1], KeyType: KeyType(strs[2])}, nil
}

// check refuses a filter file built for other join settings or another key
// set: a filter of other keys would drop rows that match.
func (ff *FilterFile) check(path string, opt Options, keys [][]byte) error {
	distinct := len(keys)
	switch {
	case opt.Filter != "" && opt.Filter != ff.Built.Kind:
		return fmt.Errorf("%s: %w: it holds the %s filter, --filter asks for %s", path, ErrFilterFile, ff.Built.Kind, opt.Filter)
	case ff.KeyCol != opt.KeyCol:
		return fmt.Errorf("%s: %w: built on key column %s, this join uses %s", path, ErrFilterFile, ff.KeyCol, opt.KeyCol)
	case ff.KeyType != opt.KeyType:
		return fmt.Errorf("%s: %w: built for --key-type %s, this join uses %s", path, ErrFilterFile, ff.KeyType, opt.KeyType)
	case ff.Built.N != distinct:
		return fmt.Errorf("%s: %w: built from %d distinct keys, the key file has %d: rebuild it with join build-filter", path, ErrFilterFile, ff.Built.N, distinct)
	case ff.Built.KeysFingerprint != KeysFingerprint(keys):
		return fmt.Errorf("%s: %w: built from other keys than the key file's %d (same count, different fingerprint): rebuild it with join build-filter", path, ErrFilterFile, distinct)
	}
	return nil
}

// fingerprintSeed separates the fingerprint's hash from the filters' probe
// hash (murmur3 seed 0), so that the two are independent.
const fingerprintSeed = 0x6b657973 // "keys"

// KeysFingerprint returns a 128-bit fingerprint of a set of distinct keys,
// independent of their order: the sums mod 2^64 of the two halves of each
// key's murmur3 x64 128-bit hash (seed fingerprintSeed). Two different sets
// of random keys collide with probability about 2^-128 (not a defence
// against keys chosen to collide). O(total key bytes), no allocation.
func KeysFingerprint(keys [][]byte) [2]uint64 {
	var fp [2]uint64
	for _, k := range keys {
		h1, h2 := murmur3.Sum128WithSeed(k, fingerprintSeed)
		fp[0] += h1
		fp[1] += h2
	}
	return fp
}

// ReadKeySet returns the distinct join keys of column col of a key file (as the
// build phase reads them), using up to workers goroutines.
func ReadKeySet(ctx context.Context, path, col string, kt KeyType, workers int) ([][]byte, error) {
	s, err := openSide(ctx, path, "", max(workers, 1), false)
	if err != nil {
		return nil, err
	}
	defer s.close()
	ci, err := s.column("--key-col", col)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	set := map[string]struct{}{}
	err = s.scan(ctx, max(workers, 1), func() any { return map[string]struct{}{} }, func(st any, r *csvscan.Reader) error {
		local := st.(map[string]struct{})
		var kb [8]byte
		for r.Next() {
			k, err := keyOf(kt, kb[:], r.Fields()[ci])
			if err != nil {
				return r.Errorf("%s: %v", col, err)
			}
			local[string(k)] = struct{}{}
		}
		return r.Err()
	}, func(st any) error {
		mu.Lock()
		for k := range st.(map[string]struct{}) {
			set[k] = struct{}{}
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	keys := make([][]byte, 0, len(set))
	for k := range set {
		keys = append(keys, []byte(k))
	}
	return keys, nil
}
