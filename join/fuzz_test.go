package join

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"
)

// FuzzFilterFile: the filter file decoder never panics on arbitrary input and
// wraps its refusals in ErrFilterFile; what it accepts writes back to a file
// that reads the same settings and filter.
func FuzzFilterFile(f *testing.F) {
	for _, kind := range []filters.Kind{filters.ACBF, filters.Exact, filters.Bloom} {
		b, err := filters.Build(kind, testutil.Keys(0, 50), filters.Sizing{})
		if err != nil {
			f.Fatal(err)
		}
		var good bytes.Buffer
		if err := WriteFilter(&good, b, "PATENT", key.Int); err != nil {
			f.Fatal(err)
		}
		f.Add(good.Bytes())
	}
	f.Add([]byte("ACJF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ff, err := ReadFilter(bytes.NewReader(data), "f.bin")
		if err != nil {
			if !errors.Is(err, ErrFilterFile) {
				t.Fatalf("error %v does not wrap ErrFilterFile", err)
			}
			return
		}
		ff.Built.Filter.Contains([]byte("probe"))
		var back bytes.Buffer
		if err := WriteFilter(&back, ff.Built, ff.KeyCol, ff.KeyType); err != nil {
			t.Fatalf("an accepted file does not write back: %v", err)
		}
		ff2, err := ReadFilter(&back, "back.bin")
		if err != nil {
			t.Fatalf("written back, it does not read: %v", err)
		}
		b1, b2 := ff.Built, ff2.Built
		if ff2.KeyCol != ff.KeyCol || ff2.KeyType != ff.KeyType || b1.Kind() != b2.Kind() || b1.N != b2.N || b1.Params != b2.Params ||
			b1.KeysFingerprint != b2.KeysFingerprint || b1.SerializedBytes != b2.SerializedBytes || !(b1.FPP == b2.FPP || b1.FPP != b1.FPP) {
			t.Fatalf("read back differs: %+v %+v", ff, ff2)
		}
	})
}

// TestFilterFileVersions: a filter file of version 2 (before the exact
// kind's compact bitmap) is read, and the exact set this version writes,
// compact, is read back the same; a version 2 file's exact key list is
// the payload it always was.
func TestFilterFileVersions(t *testing.T) {
	u64 := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	dense := [][]byte{u64(1<<63 + 5), u64(1<<63 + 7), u64(1<<63 + 8)}
	sparse := [][]byte{u64(3), u64(1 << 40), u64(1<<64 - 1)}
	for _, keys := range [][][]byte{dense, sparse} {
		b, err := filters.Build(filters.Exact, keys, filters.Sizing{})
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		if err := WriteFilter(&file, b, "K", key.Int); err != nil {
			t.Fatal(err)
		}
		data := file.Bytes()
		if binary.LittleEndian.Uint16(data[4:]) != filterFileVersion {
			t.Fatalf("written as version %d", binary.LittleEndian.Uint16(data[4:]))
		}
		// The same file as version 2, its checksum made again.
		v2 := bytes.Clone(data)
		binary.LittleEndian.PutUint16(v2[4:], 2)
		binary.LittleEndian.PutUint32(v2[len(v2)-4:], crc32.Checksum(v2[:len(v2)-4], crc32.MakeTable(crc32.Castagnoli)))
		for name, d := range map[string][]byte{"version 3": data, "version 2": v2} {
			ff, err := ReadFilter(bytes.NewReader(d), name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, k := range keys {
				if !ff.Built.Filter.Contains(k) {
					t.Fatalf("%s: key %x missing", name, k)
				}
			}
			if ff.Built.Filter.Contains(u64(1<<63 + 6)) {
				t.Fatalf("%s: a key not in the set", name)
			}
		}
	}
}
