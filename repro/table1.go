package repro

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// FindNBER returns the citation and patent files in dir (plain or as NBER ships
// them zipped).
func FindNBER(dir string) (cite, pat string, err error) {
	find := func(names ...string) (string, error) {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("--data %s: none of %v there", dir, names)
	}
	if cite, err = find("cite75_99.txt", "acite75_99.zip", "cite75_99.txt.gz"); err != nil {
		return "", "", err
	}
	pat, err = find("apat63_99.txt", "apat63_99.zip", "apat63_99.txt.gz")
	return cite, pat, err
}

// table1 runs the join with none, exact, bloom, cbf and acbf on NBER data (real
// with Data, else generated at full scale; 2% in quick mode) with 65,771
// sampled keys, repeating the timed runs (5 times; once in quick mode).
func table1(ctx context.Context, opt Options) error {
	dir, err := os.MkdirTemp("", atomicfile.TempPrefix()+"repro-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	scale, repeat := 1.0, 5
	if opt.Quick {
		scale, repeat = 0.02, 1
	}
	source := ""
	var cite, pat string
	if opt.Data != "" {
		if cite, pat, err = FindNBER(opt.Data); err != nil {
			return err
		}
		scale, source = 1, "the real NBER files in "+opt.Data
	} else {
		gen, err := nber.Generate(ctx, dir, nber.GenOptions{Scale: scale, Seed: opt.Seed})
		if err != nil {
			return err
		}
		cite, pat = gen.CitePath, gen.PatPath
		source = fmt.Sprintf("NBER-shaped data from `join gen --scale %v --seed %d`", scale, opt.Seed)
	}
	keys := filepath.Join(dir, "keys.txt")
	sample := int(math.Round(nber.PaperKeySample * scale))
	if _, err := nber.ExtractKeysFile(pat, keys, nber.KeysOptions{Sample: sample, Seed: opt.Seed}); err != nil {
		return err
	}
	kinds := []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.CBF, filters.ACBF}
	reps, err := local.Compare(ctx, join.Options{Keys: keys, Input: cite}, kinds, repeat)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, r := range reps {
		rows = append(rows, []string{string(r.Filter.Kind), strconv.Itoa(r.Filter.K), strconv.FormatUint(r.Filter.MemoryBits, 10),
			g(r.Filter.FPPFormula), g(r.FPPMeasured), strconv.FormatInt(r.MapOutputRecords, 10), strconv.FormatInt(r.FalsePositiveRecords, 10),
			strconv.FormatInt(r.ShuffleBytes, 10), fmt.Sprintf("%.1f", r.TimingsMs["build"]), fmt.Sprintf("%.0f", r.TimingsMs["total"])})
	}
	csv, md := table([]string{"filter", "k", "memory_bits", "fp_formula", "fp_measured", "map_output_records", "false_positives", "shuffle_bytes", "construction_ms", "total_ms"}, rows)
	var cmp [][]string
	for _, c := range Table1Changes(reps[3], reps[4]) {
		cmp = append(cmp, []string{c.Measure, FormatChange(c.Change), c.Paper})
	}
	_, cmpMD := table([]string{"ACBF_opt vs CBF", "this run", "paper"}, cmp)
	r0 := reps[0]
	head := fmt.Sprintf("# Table 1: the reduce-side join\n\nInput: %s; %d citations joined on CITED with %d keys sampled from the patent file (seed %d), %d join rows. Every filter gets 32 bits per key (the CBF 8 counters per key) and k = %d. Times are medians of %d alternating run(s); construction time is the build phase (reading the key file in parallel, merging the local key tables, building the filter).\n\n",
		source, r0.InputRecords, r0.KeysDistinct, opt.Seed, r0.JoinRows, reps[3].Filter.K, repeat)
	md = head + md + "\n" + cmpMD
	if err := writeFile(filepath.Join(opt.Out, "table1.csv"), csv); err != nil {
		return err
	}
	return writeFile(filepath.Join(opt.Out, "table1.md"), md)
}
