package join

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteText: a report's lines say what its fields hold: the filter
// spelled, the counts, the optional parts (auto, hot exclusions, skew, bad
// rows) only when present, and the comparison's table a row a report.
func TestWriteText(t *testing.T) {
	r := &Report{
		Settings:         Settings{Mappers: 4},
		Filter:           FilterReport{Kind: "fuse", Params: "fuse(f=8,slots=48)", FPPFormula: 0.0039},
		BroadcastBytes:   100,
		BroadcastCopies:  4,
		KeysRecords:      20,
		KeysDistinct:     10,
		InputRecords:     1000,
		MapOutputRecords: 30,
		JoinRows:         25,
		TimingsMs:        map[string]float64{"build": 1, "map": 2, "total": 5},
		NsPerRowCore:     map[string]float64{"map": 8},
	}
	var b bytes.Buffer
	r.WriteText(&b)
	out := b.String()
	for _, want := range []string{"filter fuse(f=8,slots=48), memory 0 bits, broadcast 100 bytes, formula FP 0.0039\n", "keys: 20 rows, 10 distinct\n",
		"input: 1000 rows; map output 30", "join: 25 rows; time build 1 ms, broadcast 0 ms, map 2 ms (8.0 ns a row a core)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, absent := range []string{"auto:", "hot exclusions", "skew auto", "bad rows", "share"} {
		if strings.Contains(out, absent) {
			t.Errorf("%q in a report without it:\n%s", absent, out)
		}
	}
	r.Auto = &AutoReport{Selectivity: 0.5, SampledRows: 10, Chosen: AutoCandidate{Kind: "bloom", BitsPerKey: 10}}
	r.HotExclusions = &ExclusionsReport{Asked: 3, Found: 2}
	r.BadRows, r.BadRowExamples = 1, []string{"i.csv:3: x"}
	r.BroadcastCopies = 1
	r.Skew = SkewReport{Mode: SkewAuto, HotKeys: []HotKey{{Key: "7", Share: 0.25, Partitions: []int{1, 2}}}, Before: PartitionBalance{Partitions: 2}}
	b.Reset()
	r.WriteText(&b)
	out = b.String()
	for _, want := range []string{"auto: 50.0% of 10 sampled rows have a key (about 0 rows); chose bloom within 10 bits a key", "hot exclusions: 3 asked, 2 found",
		"bad rows: 1 skipped; the first: i.csv:3: x", "skew auto: 1 hot key(s): 7 (25.0% of the rows, 2 partitions)", "broadcast: 4 mappers share one copy of the filter (one each would take more than 1GiB: half the memory budget, at most 1GiB)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	b.Reset()
	other := *r
	other.Settings.Layout, other.Filter.Kind, other.Filter.Shape = LayoutPerColumn, "bloom", "k=3"
	WriteComparison(&b, []*Report{r, &other}, 3)
	out = b.String()
	if !strings.Contains(out, "times are medians of 3 run(s)") || !strings.Contains(out, "bloom per-column") || strings.Count(out, "\n") != 9 {
		t.Errorf("comparison:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 100 {
			t.Errorf("a line of %d columns: %q", len(line), line)
		}
	}
}
