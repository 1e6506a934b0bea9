package where

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/key"
)

// pruneTable writes rows (of the columns names, types) as a Parquet file of
// rowGroup rows a row group, written by Arrow's own writer, and opens it.
func pruneTable(t *testing.T, names []string, types []arrow.DataType, rows [][]*string, rowGroup int64) *columnar.Table {
	t.Helper()
	rec := columnartest.Record(t, names, types, rows)
	defer rec.Release()
	fs := columnartest.Write(t, t.TempDir(), "t", rec, rowGroup, false)
	tab, err := columnar.Open(context.Background(), fs.Parquet, "t.parquet", columnar.Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close() })
	return tab
}

// refuted returns the row groups of tab that p refutes by their
// statistics, after checking that p is false, without an error, on every
// row of each of them.
func refuted(t *testing.T, tab *columnar.Table, p *Pred) []int {
	t.Helper()
	var out []int
	for g := range tab.Chunks() {
		if !p.Refutes(func(col int) (columnar.Stats, bool) { return tab.Stats(g, col) }) {
			continue
		}
		out = append(out, g)
		cols, err := tab.Read(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := columnar.NewRows(tab.Name, cols, 0)
		for r := 0; rows.Next(); r++ {
			ok, err := p.Match(rows.Fields(), key.NullsOf(rows))
			if ok || err != nil {
				t.Fatalf("%s: row group %d refuted, but its row %d (%q) gives %v, %v", p, g, r, rows.Fields(), ok, err)
			}
		}
	}
	return out
}

func sp(s string) *string { return &s }

// TestRefutes checks which row groups known predicates refute: NULLs
// (false in a comparison, true in !=, and so in not), NaN (above every
// number: a float column's > never refutes), text prefixes, and a
// predicate that could fail on a row, which refutes nothing.
func TestRefutes(t *testing.T) {
	names := []string{"i", "f", "s", "d"}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32}
	var rows [][]*string
	for r := range 12 { // row groups of 4: i 1-4, 5-8 and NULL, NULL
		i, f, s, d := sp(strconv.Itoa(r+1)), sp(strconv.Itoa(r*10)), sp(fmt.Sprintf("%c%d", 'a'+r/4, r)), sp(fmt.Sprintf("2020-0%d-1%d", 1+r/4, r%4))
		if r == 7 {
			i, f = nil, sp("NaN")
		}
		if r >= 8 {
			i, f = nil, nil
		}
		rows = append(rows, []*string{i, f, s, d})
	}
	tab := pruneTable(t, names, types, rows, 4)
	for _, c := range []struct {
		src  string
		want []int
	}{
		{"i > 4", []int{0, 2}},
		{"4 < i", []int{0, 2}},
		{"i >= 4", []int{2}},
		{"i < 5", []int{1, 2}},
		{"i <= 5", []int{2}},
		{"i == 3", []int{1, 2}},
		{"i != 3", nil}, // a NULL is != 3 in group 1
		{"i == nil", []int{0}},
		{"i != nil", []int{2}},
		{"not (i > 4)", nil}, // group 1 holds a NULL, for which not holds
		{"not (i < 5)", []int{0}},
		{"i in [2, 30]", []int{1, 2}},
		{"i not in [1, 2, 3, 4]", nil}, // a list is not judged as a whole: each value on its own
		{"i in [nil]", []int{0}},
		{"i > 2 and i < 6", []int{2}},
		{"i < 2 or i > 7", []int{1, 2}},
		{"i > 4.5", []int{0, 2}},
		{"i > 3.5 and true", []int{2}},
		{"false or i < 1", []int{0, 1, 2}},
		{"f < 0", []int{0, 1, 2}},
		{"f > 100", []int{2}}, // group 1's NaN is above 100
		{"f >= 10", []int{2}}, // group 0 has no NaN, but a float column's may be unknown
		{"f == 50", []int{0, 2}},
		{"s startsWith \"b\"", []int{0, 2}},
		{"s startsWith \"c1\"", []int{0, 1}},
		{"s >= \"c\"", []int{0, 1}},
		{"d < \"2020-02-01\"", []int{1, 2}},
		{"d >= \"2020-02-10\" and d <= \"2020-02-99\"", []int{0, 2}},
		{"i > \"3\"", nil},       // an ordering of a number and text may fail
		{"i > 4 and s > 3", nil}, // the same, on the other side of and
		{"i + 0 > 4", nil},       // arithmetic: not judged
		{"i > 4 and lower(s) == \"x\"", nil},
		{"s == 7", []int{}}, // == never fails, but 7 and text: not judged
	} {
		p, err := Compile(c.src, "t", tab.Names, tab.Types)
		if err != nil {
			t.Fatal(err)
		}
		if got := refuted(t, tab, p); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%s: refutes row groups %v, want %v", c.src, got, c.want)
		}
	}
}

// TestRefutesNeverWrong is a property test: on random Parquet files (row
// groups of random sizes, NULLs, NaN, every type a side has), random
// predicates refute only row groups in which every row is false without
// an error, and refute some. Seed in the log; PRUNE_SEED to replay.
func TestRefutesNeverWrong(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PRUNE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	names := []string{"i", "n", "f", "g", "s", "d", "b", "u"}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32,
		arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Uint64}
	files, checks, total := 12, 0, 0
	if testing.Short() {
		files = 4
	}
	for range files {
		nrows := rng.IntN(300)
		nullRate := []float64{0, 0.05, 0.5}[rng.IntN(3)]
		var rows [][]*string
		for r := range nrows {
			base := r / 16 // values drift with the row, so row groups' bounds differ
			row := []*string{
				sp(strconv.Itoa(base - 8 + rng.IntN(4))),
				sp(strconv.Itoa(-base + rng.IntN(3))),
				sp([]string{strconv.FormatFloat(float64(base)/2+rng.Float64(), 'g', -1, 64), "NaN", "-0", "Inf", "-Inf"}[min(rng.IntN(40), 4)]),
				sp(strconv.FormatFloat(float64(float32(float64(base)*0.1+0.05)), 'g', -1, 32)),
				sp(string(rune('a'+base%5)) + strconv.Itoa(rng.IntN(30))),
				sp(time.Date(2020, 1, 1+base*3+rng.IntN(3), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)),
				sp(strconv.FormatBool(rng.IntN(2) == 0)),
				sp([]string{strconv.Itoa(base * 7), strconv.FormatUint(1<<63+uint64(base), 10)}[rng.IntN(2)]),
			}
			for j := range row {
				if rng.Float64() < nullRate {
					row[j] = nil
				}
			}
			rows = append(rows, row)
		}
		tab := pruneTable(t, names, types, rows, int64(1+rng.IntN(40)))
		for range 60 {
			src := randPred(rng, 3)
			p, err := Compile(src, "t", tab.Names, tab.Types)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			total += tab.Chunks()
			checks += len(refuted(t, tab, p))
		}
	}
	t.Logf("%d of %d row groups refuted", checks, total)
	if checks == 0 || checks*50 < total { // about 1 in 5 is
		t.Fatalf("%d of %d row groups refuted: the pruning does not happen", checks, total)
	}
}

// randPred is a random predicate over TestRefutesNeverWrong's columns.
func randPred(rng *rand.Rand, depth int) string {
	if depth > 0 {
		switch rng.IntN(5) {
		case 0:
			return "not (" + randPred(rng, depth-1) + ")"
		case 1:
			return "(" + randPred(rng, depth-1) + ") and (" + randPred(rng, depth-1) + ")"
		case 2:
			return "(" + randPred(rng, depth-1) + ") or (" + randPred(rng, depth-1) + ")"
		}
	}
	cols := []string{"i", "n", "f", "g", "s", "d", "b", "u"}
	col := cols[rng.IntN(len(cols))]
	lit := func() string {
		return []string{strconv.Itoa(rng.IntN(30) - 15), strconv.FormatFloat(float64(rng.IntN(40))/4-5, 'f', -1, 64), "nil", "true",
			strconv.Quote(string(rune('a'+rng.IntN(5))) + strconv.Itoa(rng.IntN(30))), strconv.Quote(string(rune('a' + rng.IntN(5)))),
			strconv.Quote(time.Date(2020, 1, 1+rng.IntN(60), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)), strconv.Quote(strconv.Itoa(rng.IntN(9))),
			"0.35", "-0.0"}[rng.IntN(10)]
	}
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	switch rng.IntN(10) {
	case 0:
		list := []string{lit(), lit(), lit()}
		return col + []string{" in [", " not in ["}[rng.IntN(2)] + strings.Join(list[:1+rng.IntN(3)], ", ") + "]"
	case 1:
		return col + " startsWith " + lit()
	case 2:
		return lit() + " " + ops[rng.IntN(len(ops))] + " " + col
	case 3:
		return col + " " + ops[rng.IntN(len(ops))] + " " + cols[rng.IntN(len(cols))]
	case 4:
		return []string{"true", "false", col + " == nil", col + " != nil"}[rng.IntN(4)]
	}
	return col + " " + ops[rng.IntN(len(ops))] + " " + lit()
}
