package columnar

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// TestMergeSpans: merged spans cover the addresses the spans do, no more,
// sorted, with a gap between any two (random spans in a small space,
// against a bitmap).
func TestMergeSpans(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for range 2000 {
		var in []span
		var model [200]bool
		for range rng.IntN(12) {
			lo := uintptr(rng.IntN(190))
			hi := lo + uintptr(rng.IntN(10))
			in = append(in, span{lo, hi})
			for a := lo; a < hi; a++ {
				model[a] = true
			}
		}
		var got [200]bool
		out := mergeSpans(append([]span(nil), in...))
		for k, s := range out {
			if k > 0 && s.lo <= out[k-1].hi {
				t.Fatalf("%v merged to %v: spans %d and %d touch or are out of order", in, out, k-1, k)
			}
			for a := s.lo; a < s.hi; a++ {
				got[a] = true
			}
		}
		if got != model {
			t.Fatalf("%v merged to %v: another set of addresses", in, out)
		}
	}
}

// TestMapDropsReadAgain: a mapped file's chunks read twice, their pages
// dropped at every release (dropBatch 1) or in batches, give the same
// values both times.
func TestMapDropsReadAgain(t *testing.T) {
	if noMap {
		t.Skip("ACBFJOIN_PARQUET_MMAP=off")
	}
	rng := testutil.Rand(testutil.Seed(t))
	for _, batch := range []uintptr{1, 3000, dropBatch} {
		mapDropsReadAgain(t, rng, batch)
	}
}

func mapDropsReadAgain(t *testing.T, rng *rand.Rand, batch uintptr) {
	defer func(b uintptr) { dropBatch = b }(dropBatch)
	dropBatch = batch
	_, tb, pq := openMappedFixed(t, rng, compress.Codecs.Snappy)
	first := map[[2]int]string{}
	for round := range 2 {
		for g := range tb.Chunks() {
			for col, typ := range tb.Types {
				c, err := pq.read(g, col, typ, nil)
				if err != nil {
					t.Fatal(err)
				}
				var text []byte
				for r := range c.Len() {
					text = c.AppendText(text, r)
					text = append(text, '\n')
				}
				if round == 0 {
					first[[2]int{g, col}] = string(text)
				} else if string(text) != first[[2]int{g, col}] {
					t.Fatalf("batch %d: row group %d, column %d read again after its pages were dropped: other values", batch, g, col)
				}
			}
		}
	}
}

// TestMapDropsManyFiles: a table of 12 mapped files of under dropBatch
// each, read whole, holds at most dropBatch of pages read and done with
// across its files (a review: each file counted its own 8 MiB, and all 45
// MiB stayed resident), and none once closed.
func TestMapDropsManyFiles(t *testing.T) {
	if noMap {
		t.Skip("ACBFJOIN_PARQUET_MMAP=off")
	}
	rng := testutil.Rand(testutil.Seed(t))
	var paths []string
	for range 12 {
		paths = append(paths, writeFixedParquet(t, rng, 60000, false, false, compress.Codecs.Uncompressed, 4096))
	}
	base := dropsPending.Load() // another test's tables', left open
	tb, err := OpenFiles(context.Background(), paths, "many", Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	var read int64
	for g := range tb.Chunks() {
		cols, err := tb.Read(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			read += c.Size()
		}
		if p := dropsPending.Load(); p > int64(dropBatch) {
			t.Fatalf("after row group %d: %d bytes of pages held undropped, more than %d", g, p, dropBatch)
		}
	}
	if read < 3*int64(dropBatch) {
		t.Fatalf("%d bytes read: too few to pass dropBatch", read)
	}
	tb.Close()
	if p := dropsPending.Load(); p > base {
		t.Errorf("%d bytes held after the table closed, %d before it opened", p, base)
	}
}
