package join

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"slices"
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

// FuzzSortRun: the reader of the sort's run files refuses or reads arbitrary
// bytes without panicking or allocating beyond its bound, and a run it wrote
// reads back the same rows.
func FuzzSortRun(f *testing.F) {
	var good bytes.Buffer
	w := bufio.NewWriter(&good)
	writeSortRow(w, []byte{0, 0, 0, 0, 0, 0, 0, 42}, 7, 9, []byte("4000001,42,\"x\"\n"))
	writeSortRow(w, []byte("k"), -1, 1<<40, nil)
	w.Flush()
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &runReader{path: "run", r: bufio.NewReader(bytes.NewReader(data))}
		var rows []sortRow
		for {
			row, err := r.next()
			if err != nil || row == nil {
				break
			}
			if len(row.key) > maxRunField || len(row.line) > maxRunField {
				t.Fatalf("row beyond the bound: key %d, line %d bytes", len(row.key), len(row.line))
			}
			rows = append(rows, sortRow{slices.Clone(row.key), row.seq, row.small, slices.Clone(row.line)})
		}
		// What was read writes back and reads again the same.
		var back bytes.Buffer
		bw := bufio.NewWriter(&back)
		for _, row := range rows {
			writeSortRow(bw, row.key, row.seq, row.small, row.line)
		}
		bw.Flush()
		r2 := &runReader{path: "back", r: bufio.NewReader(&back)}
		for i, want := range rows {
			got, err := r2.next()
			if err != nil || got == nil || !bytes.Equal(got.key, want.key) || got.seq != want.seq || got.small != want.small || !bytes.Equal(got.line, want.line) {
				t.Fatalf("row %d does not read back: %+v, %v", i, got, err)
			}
		}
		if got, err := r2.next(); got != nil || err != nil {
			t.Fatalf("extra row after the written ones: %+v, %v", got, err)
		}
	})
}

func readAllFile(path string) ([]byte, error) { return os.ReadFile(path) }
