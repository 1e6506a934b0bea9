package join

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// FuzzUnmarshal: every broadcast decoder (exact key list, bloom, cbf, acbf)
// refuses or accepts arbitrary bytes without panicking; what decodes answers
// Contains.
func FuzzUnmarshal(f *testing.F) {
	keys := testutil.Keys(0, 50)
	for i, kind := range Kinds {
		b, err := BuildFilter(kind, keys, Sizing{})
		if err != nil {
			f.Fatal(err)
		}
		data, err := b.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		kind := Kinds[int(k)%len(Kinds)]
		flt, err := Unmarshal(kind, data)
		if err != nil {
			return
		}
		flt.Contains([]byte("probe"))
	})
}

// FuzzFilterFile: the filter file decoder never panics on arbitrary input and
// wraps its refusals in ErrFilterFile.
func FuzzFilterFile(f *testing.F) {
	b, _ := BuildFilter(ACBF, testutil.Keys(0, 50), Sizing{})
	dir := f.TempDir()
	path := dir + "/f.bin"
	if err := WriteFilterFile(path, b, "PATENT", IntKeys); err != nil {
		f.Fatal(err)
	}
	good, _ := readAllFile(path)
	f.Add(good)
	f.Add([]byte("ACJF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ff, err := readFilterFile(bytes.NewReader(data), "f.bin")
		if err != nil {
			if !errors.Is(err, ErrFilterFile) {
				t.Fatalf("error %v does not wrap ErrFilterFile", err)
			}
			return
		}
		ff.Built.Filter.Contains([]byte("probe"))
	})
}

func readAllFile(path string) ([]byte, error) { return os.ReadFile(path) }
