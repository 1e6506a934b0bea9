package local

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// TestDroppedBytesExact: with the exact filter (no false positives) the
// rows it drops are those whose key is no key, and what the report says
// the shuffle would have held without a filter is, to the byte, its own
// bytes plus each dropped row at the shuffle's cost of a record (its raw
// line without the line end, the 8-byte integer key, and
// shuffle.RecordBytes' framing): CSV rows of random widths, some ending in
// CRLF, the integer batches' drops counted as the batch less its passed
// rows (intBatch), with 1 and 2 mappers. Seeds logged.
func TestDroppedBytesExact(t *testing.T) {
	r := testutil.Rand(testutil.Seed(t))
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	kb := []byte("K\n")
	isKey := map[int]bool{}
	for range 3000 {
		k := r.IntN(100000)
		isKey[k] = true
		kb = fmt.Appendf(kb, "%d\n", k)
	}
	testutil.WriteFile(t, keys, kb, 0o644)
	ib := []byte("ID,PAD,K\n")
	var want int64
	for i := range testutil.RaceSize(100000, 20000) {
		k := r.IntN(100000)
		if r.IntN(10) == 0 {
			k = r.IntN(3000) // some more hits
		}
		line := fmt.Appendf(nil, "%d,%s,%d", i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"[:r.IntN(40)], k)
		if !isKey[k] {
			want += int64(len(line)) + 8 + shuffle.RecordBytes(shuffle.Record{})
		}
		ib = append(ib, line...)
		if r.IntN(20) == 0 {
			ib = append(ib, '\r')
		}
		ib = append(ib, '\n')
	}
	testutil.WriteFile(t, input, ib, 0o644)
	for _, mappers := range []int{1, 2} {
		rep, _ := runJoin(t, join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, FilterChoice: join.FilterChoice{Filter: filters.Exact}, Resources: join.Resources{Mappers: mappers}})
		if got := rep.ShuffleBytesNoFilter - rep.ShuffleBytes; got != want {
			t.Errorf("%d mappers: the dropped rows would have added %d bytes to the shuffle, want %d", mappers, got, want)
		}
	}
}

// TestNoFilterNoSaving: with --filter none the shuffle saves nothing
// against "without a filter", in every join type: a NULL key's row, which
// anti, left and full joins write without the shuffle, passes it by with
// no filter too, so its bytes are no filter's saving (a review found
// --filter none reporting 1.9% saved on such rows). A CSV side: a
// table's chunks that the key side's range or the files' Bloom filters
// skip count as saved, filter or none (docs/design.md).
func TestNoFilterNoSaving(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	for _, format := range []string{"csv"} {
		for _, jt := range []join.JoinType{join.JoinInner, join.JoinLeft, join.JoinRight, join.JoinFull, join.JoinSemi, join.JoinAnti} {
			rep, _ := runJoin(t, join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, FilterChoice: join.FilterChoice{Filter: "none"}})
			if rep.ShuffleBytesNoFilter != rep.ShuffleBytes || rep.ShuffleReduction != 0 {
				t.Errorf("%s, %s: shuffle %d bytes, %d without a filter (%.4f saved)", format, jt, rep.ShuffleBytes, rep.ShuffleBytesNoFilter, rep.ShuffleReduction)
			}
		}
	}
}
