package beamjoin

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/acbfjoin/acbfjoin/datasets/triples"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"

	"github.com/acbfjoin/acbfjoin/internal/fixture"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

// rowsOf returns the rows of a CSV file (or several, for sharded output),
// sorted, without the header when header is set.
func rowsOf(t *testing.T, data []byte, header bool) []string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if header {
		lines = lines[1:]
	}
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	slices.Sort(lines)
	return lines
}

func compareEngines(t *testing.T, keys, input, keyCol, joinCol string, kinds []filters.Kind) {
	compareTyped(t, keys, input, keyCol, joinCol, join.IntKeys, kinds)
}

func compareTyped(t *testing.T, keys, input, keyCol, joinCol string, kt join.KeyType, kinds []filters.Kind) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			var localOut bytes.Buffer
			rep, err := local.Run(context.Background(), join.Options{Keys: keys, Input: input, KeyCol: keyCol, JoinCol: joinCol, KeyType: kt, Filter: kind}, local.NewCSV(&localOut))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "rows.txt")
			counters, _, _, err := Execute(context.Background(), Options{Keys: keys, Input: input, KeyCol: keyCol, JoinCol: joinCol,
				KeyType: kt, Filter: kind, Output: out}, prism.Execute)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, want := rowsOf(t, data, false), rowsOf(t, localOut.Bytes(), true)
			if !slices.Equal(got, want) {
				t.Fatalf("beam gives %d rows, the local engine %d", len(got), len(want))
			}
			if counters[CJoinRows] != rep.JoinRows || counters[CMapOutput] != rep.MapOutputRecords ||
				counters[CFalsePositive] != rep.FalsePositiveRecords || counters[CInput] != rep.InputRecords {
				t.Fatalf("counters %v, local report: join %d, map out %d, FP %d, input %d", counters,
					rep.JoinRows, rep.MapOutputRecords, rep.FalsePositiveRecords, rep.InputRecords)
			}
			t.Logf("%s: %d rows, counters %v", kind, len(got), counters)
		})
	}
}

func TestGenerated(t *testing.T) {
	gen := fixture.Generate(t, 0.001, 600, 3)
	keys := gen.Keys
	var kinds []filters.Kind
	for _, sp := range filters.Kinds() {
		kinds = append(kinds, sp.Kind)
	}
	compareEngines(t, keys, gen.Cite, "PATENT", "CITED", kinds)
}

func TestRealSample(t *testing.T) {
	cite := filepath.Join("..", "..", "shared", "data", "nber-mini", "cite75_99.mini.txt")
	pat := filepath.Join("..", "..", "shared", "data", "nber-mini", "apat63_99.mini.txt")
	if _, err := os.Stat(cite); err != nil {
		t.Skipf("real NBER sample not found at %s (it lives in the workplace's shared/ folder beside the repository)", cite)
	}
	compareEngines(t, pat, cite, "PATENT", "CITED", []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.CBF, filters.ACBF})
}

// TestComposite: a three-column key with duplicates on both sides (the
// seed 001 triples over five integers), and the real sample's citations
// joined with a (CITING, CITED) pair file of every fifth citation.
func TestComposite(t *testing.T) {
	dir := t.TempDir()
	keys, err := triples.Generate(context.Background(), filepath.Join(dir, "k"), triples.Options{Rows: 200, Seed: 1, Domain: 5})
	if err != nil {
		t.Fatal(err)
	}
	input, err := triples.Generate(context.Background(), filepath.Join(dir, "i"), triples.Options{Rows: 2000, Seed: 2, Domain: 5})
	if err != nil {
		t.Fatal(err)
	}
	compareTyped(t, keys, input, "A,B,C", "A,B,C", "int,string,int", []filters.Kind{filters.Exact, filters.Bloom, filters.ACBF})

	cite := filepath.Join("..", "..", "shared", "data", "nber-mini", "cite75_99.mini.txt")
	data, err := os.ReadFile(cite)
	if err != nil {
		t.Skipf("real NBER sample not found at %s (it lives in the workplace's shared/ folder beside the repository)", cite)
	}
	lines := strings.SplitAfter(string(data), "\n")
	pairs := "CITING,CITED\n"
	for i, l := range lines[1:] {
		if i%5 == 0 {
			pairs += l
		}
	}
	pp := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(pp, []byte(pairs), 0o644); err != nil {
		t.Fatal(err)
	}
	compareTyped(t, pp, cite, "CITING,CITED", "CITING,CITED", join.IntKeys, []filters.Kind{filters.Bloom})
}
