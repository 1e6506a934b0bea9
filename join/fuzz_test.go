package join

import (
	"bytes"
	"errors"
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
