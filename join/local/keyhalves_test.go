package local

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestKeyHalves: a Parquet output whose rows' key-side halves repeat,
// written with keyHalves (each distinct half split, looked at and parsed
// once) and without, is the same file byte for byte (--sort): every join
// type, a key side of integers, decimals, texts with quotes and commas,
// NULLs and a text that is a number in some rows only (its type decided
// by the values written), duplicate keys; with the halves' bounds small,
// so that the holder fills (and stops remembering) and, with distinct key
// rows, stops looking, and row groups ended by their bytes; and the JSON
// lines output, written through it.
func TestKeyHalves(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	dir := t.TempDir()
	var rows [][]*string
	sp := func(s string) *string { return &s }
	for i := range 4000 {
		rows = append(rows, []*string{sp(fmt.Sprint(rng.IntN(300))), sp(fmt.Sprint(i))})
	}
	rec := columnartest.Record(t, []string{"id", "n"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}, rows)
	defer rec.Release()
	in := columnartest.Write(t, dir, "in", rec, 500, false).Parquet
	keyFile := func(name string, distinct bool) string {
		var b strings.Builder
		b.WriteString("k,x,f,s,mixed\n")
		if distinct {
			// Every key row distinct and met once (joined to n): no half
			// repeats.
			for k := range 4000 {
				fmt.Fprintf(&b, "%d,%d,%d.5,\"t \"\"%d\"\", y\",%d\n", k, k, k, k, k)
			}
		}
		for k := range 250 {
			if distinct {
				break
			}
			x, f, s, mixed := fmt.Sprint(k%7), fmt.Sprintf("%d.25", k%3), fmt.Sprintf("\"a,%d\"", k%5), fmt.Sprint(k%11)
			if k%13 == 0 {
				x, s = "", ""
			}
			if k == 200 {
				mixed = "abc" // the column is text only if key 200 is written
			}
			fmt.Fprintf(&b, "%d,%s,%s,%s,%s\n", k, x, f, s, mixed)
			if k%17 == 0 {
				fmt.Fprintf(&b, "%d,dup,%s,%s,%s\n", k, f, s, mixed) // a duplicate key
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keys, distinct := keyFile("keys.csv", false), keyFile("distinct.csv", true)
	run := func(kf string, jt join.JoinType, jsonl bool) []byte {
		col := "id"
		if kf == distinct {
			col = "n"
		}
		t.Helper()
		var out bytes.Buffer
		var sink Sink = NewParquetWith(&out, t.TempDir(), ParquetOptions{RowGroup: 300})
		if jsonl {
			var err error
			if sink, err = NewJSONL(&out, t.TempDir()); err != nil {
				t.Fatal(err)
			}
		}
		opt := join.Options{Sides: join.Sides{Keys: kf, Input: in}, Keying: join.Keying{KeyCol: "k", JoinCol: col}, JoinType: jt,
			Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}}
		if _, err := Run(t.Context(), opt, sink); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	defer func(m, b, s, g int) {
		keyHalvesMax, keyHalvesBytes, keyHalvesSample, useKeyHalves, maxRowGroupBytes = m, b, s, true, g
	}(keyHalvesMax, keyHalvesBytes, keyHalvesSample, maxRowGroupBytes)
	// The second bounds: row groups ended by their bytes too (those of the
	// texts a half adds count).
	for _, bounds := range []struct{ max, bytes, sample, group int }{{keyHalvesMax, keyHalvesBytes, keyHalvesSample, maxRowGroupBytes}, {40, 1 << 10, 300, 9000}} {
		keyHalvesMax, keyHalvesBytes, keyHalvesSample, maxRowGroupBytes = bounds.max, bounds.bytes, bounds.sample, bounds.group
		for _, kf := range []string{keys, distinct} {
			for _, jt := range []join.JoinType{join.JoinInner, join.JoinLeft, join.JoinRight, join.JoinFull, join.JoinSemi, join.JoinAnti} {
				for _, jsonl := range []bool{false, true} {
					useKeyHalves = true
					got := run(kf, jt, jsonl)
					useKeyHalves = false
					want := run(kf, jt, jsonl)
					if len(want) == 0 && !(jsonl && jt == join.JoinAnti) || !bytes.Equal(got, want) { // an anti join of keys that all match writes no JSON line
						t.Errorf("%s, %v, bounds %v, JSON lines %v: %d bytes with keyHalves, %d without", filepath.Base(kf), jt, bounds, jsonl, len(got), len(want))
					}
				}
			}
		}
	}
}
