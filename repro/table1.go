package repro

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// FindNBER returns the citation and patent files in dir (plain or as NBER ships
// them zipped).
func FindNBER(dir string) (cite, pat string, err error) {
	find := func(column string, names ...string) (string, error) {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			// Read its header now: a file that cannot be read, or that
			// lacks the join's column, fails before minutes of figures.
			rc, name, err := csvscan.Open(p)
			if err != nil {
				return "", dataError(dir, "%s: %v", p, err)
			}
			defer rc.Close()
			header, err := csvscan.NewReader(rc, name).ReadHeader()
			if err != nil {
				return "", dataError(dir, "%v", err)
			}
			if !slices.Contains(header, column) {
				return "", dataError(dir, "%s has no column %s (its columns: %q)", p, column, header)
			}
			return p, nil
		}
		return "", dataError(dir, "none of %s there (the NBER files, as written by join fetch or join gen)", strings.Join(names, ", "))
	}
	if cite, err = find("CITED", "cite75_99.txt", "acite75_99.zip", "cite75_99.txt.gz", "cite75_99.mini.txt"); err != nil {
		return "", "", err
	}
	pat, err = find("PATENT", "apat63_99.txt", "apat63_99.zip", "apat63_99.txt.gz", "apat63_99.mini.txt")
	return cite, pat, err
}

// dataError is an option.Error about Options.Data.
func dataError(dir, format string, a ...any) error {
	return &option.Error{Pkg: "repro", Name: "Data", Value: dir, Reason: fmt.Sprintf(format, a...)}
}

// Table1 sizings (Options.Table1Sizing).
const (
	Table1Both    = "both"    // the default sizing and the paper's inferred one
	Table1Default = "default" // every filter at 32 bits per key, each kind's k
	Table1Paper   = "paper"   // CBF and ACBF at the sizing inferred from the paper's pair
)

// table1 runs the join on NBER data (real with Data, else generated at full
// scale; 2% in quick mode) with 65,771 sampled keys (scaled likewise),
// repeating the timed runs (5 times; once in quick mode): none, exact, bloom,
// cbf and acbf at the default sizing, then, for the paper's sizing, the CBF
// and the ACBF at the sizing SearchTable1Sizing finds best for this data's
// matched and unmatched rows.
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
		opt.Log("  generating NBER-shaped data at scale %v", scale)
		gen, err := nber.Generate(ctx, dir, nber.GenOptions{Scale: scale, Seed: opt.Seed})
		if err != nil {
			return err
		}
		cite, pat = gen.CitePath, gen.PatPath
		source = fmt.Sprintf("NBER-shaped data from `%s gen --scale %v --seed %d`", opt.prog(), scale, opt.Seed)
	}
	keys := filepath.Join(dir, "keys.txt")
	sample := cmp.Or(opt.Table1Keys, table1Keys(opt))
	if _, err := nber.ExtractKeysFile(pat, keys, nber.KeysOptions{Sample: sample, Seed: opt.Seed}); err != nil {
		return err
	}
	base := join.Options{Sides: join.Sides{Keys: keys, Input: cite}}
	mode := cmp.Or(opt.Table1Sizing, Table1Both)
	var md strings.Builder
	var reps []*join.Report
	kinds := []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.CBF, filters.ACBF}
	if mode == Table1Paper {
		kinds = []filters.Kind{filters.Exact} // its map outputs are the matched rows
	}
	o := base
	if opt.ACBFCapacity != 0 {
		o.Sizing = o.Sizing.With(filters.OptionACBFCapacity, float64(opt.ACBFCapacity))
	}
	opt.Log("  the join with %v", kinds)
	o.Progress = opt.Progress
	if reps, err = local.Compare(ctx, o, kinds, repeat); err != nil {
		return err
	}
	r0 := reps[0]
	fmt.Fprintf(&md, "# Table 1: the reduce-side join\n\nInput: %s; %d citations joined on CITED with %d keys sampled from the patent file (seed %d), %d join rows. Times are medians of %d alternating run(s); construction time is the build phase (reading the key file in parallel, merging the local key tables, building the filter). Map output records count the large side's rows that pass the filter.\n\n",
		source, r0.InputRecords, r0.KeysDistinct, opt.Seed, r0.JoinRows, repeat)
	if opt.Quick {
		md.WriteString("**Quick mode: the times are not meaningful.** Its joins take tens of milliseconds, once each, and their differences are smaller than the spread of runs of one join; the counts (false positives, map output records) are exact. The full run (`" + opt.prog() + " repro`) times 5 alternating runs at full scale.\n\n")
	}
	var defChanges []Change
	if mode != Table1Paper {
		cbf, acbf := reps[3], reps[4]
		defChanges = Table1Changes(cbf, acbf)
		room := ""
		if opt.ACBFCapacity != 0 {
			room = fmt.Sprintf("; the ACBF keeps counter room for %d keys", opt.ACBFCapacity)
		}
		fmt.Fprintf(&md, "## At our default sizing\n\nEvery filter gets 32 bits per key (the CBF 8 counters per key) and each kind's default k (k = %d for the CBF and ACBF)%s.\n\n", cbf.Filter.K, room)
		csv, tab := reportTable(reps)
		md.WriteString(tab + "\n")
		if err := writeFile(filepath.Join(opt.Out, "table1.csv"), csv); err != nil {
			return err
		}
	}
	var paperChanges []Change
	var best *Table1Sizing
	var exact *join.Report
	var matched, unmatched int64
	var fits []Table1Sizing
	if mode != Table1Default {
		exact = reps[slices.IndexFunc(reps, func(r *join.Report) bool { return r.Filter.Kind == filters.Exact })]
		matched = exact.MapOutputRecords
		unmatched = exact.InputRecords - matched
		fits = SearchTable1Sizing(matched, unmatched, 0.05)
		why := fmt.Sprintf("no sizing of the grid gives the paper's FP -72.3%% and map outputs -33.9%% within 5%% on this data (%d matched rows, %d unmatched)", matched, unmatched)
		switch {
		case len(fits) == 0 && mode == Table1Paper:
			return &option.Error{Pkg: "repro", Name: "Table1Sizing", Value: Table1Paper,
				Reason: "the paper's sizing cannot be inferred: " + why + "; give more rows, or the default sizing"}
		case len(fits) == 0: // both: the default sizing alone, said
			opt.Log("Table 1: the paper's sizing cannot be inferred (%s): the default sizing alone", why)
			fmt.Fprintf(&md, "## At the paper's sizing\n\nNot inferred: %s. Table 1 is at the default sizing alone (more rows, such as the full files, give the search room).\n\n", why)
		default:
			best = &fits[0]
		}
	}
	if best != nil {
		n := exact.KeysDistinct
		o := base
		capacity := uint64(math.Round(best.Capacity * float64(n)))
		o.Sizing = filters.Sizing{BitsPerKey: 4 * best.MN}.With(filters.OptionK, float64(best.K)).With(filters.OptionACBFCapacity, float64(capacity))
		opt.Log("  the paper's sizing, inferred: m/n = %g, k = %d, ACBF capacity %gx the keys", best.MN, best.K, best.Capacity)
		preps, err := local.Compare(ctx, o, []filters.Kind{filters.CBF, filters.ACBF}, repeat)
		if err != nil {
			return err
		}
		paperChanges = Table1Changes(preps[0], preps[1])
		var rows [][]string
		for i, f := range fits[:min(len(fits), 12)] {
			rows = append(rows, []string{strconv.Itoa(i + 1), g(f.MN), strconv.Itoa(f.K), g(f.Capacity), g(f.FPCBF), g(f.FPACBF), FormatChange(f.FPChange), FormatChange(f.MapChange), fmt.Sprintf("%.1f%%", 100*f.Misfit)})
		}
		fcsv, ftab := table([]string{"rank", "m_n", "k", "acbf_capacity_x_keys", "fp_cbf", "fp_acbf", "fp_change", "map_change", "misfit"}, rows)
		fmt.Fprintf(&md, "## At the paper's sizing (an inference)\n\nThe paper's m and k are lost, and at the optimal first level (the ACBF sized for the keys it holds) no sane sizing gives both of its numbers (FP -72.3%% needs a CBF and an ACBF much closer than m1 = 4m - nk allows). They fit when the ACBF's counters were sized for more keys than it held, as a job sized for an expected key count would be. `%s repro` searches m/n from 2 to 32 (steps of 0.5), k = 3 or round((m/n) ln 2) (the paper's two choices in every figure) and the ACBF's capacity from 1 to the most the budget holds (steps of 0.05 times the keys), for the sizings whose formula gives both numbers on this data (%d matched rows, %d unmatched; a map output is a matched row or a false positive), and runs the join at the best. %d sizings fit within 5%%; the best %d:\n\n%s\n",
			opt.prog(), matched, unmatched, len(fits), len(rows), ftab)
		fmt.Fprintf(&md, "The join at the best (m/n = %g: %g bits per key, k = %d, ACBF capacity %d = %gx the %d keys held, first level %d bits):\n\n",
			best.MN, 4*best.MN, best.K, capacity, best.Capacity, n, preps[1].Filter.FirstLevelBits)
		pcsv, ptab := reportTable(preps)
		md.WriteString(ptab + "\n")
		for name, c := range map[string]string{"table1_sizing.csv": fcsv, "table1_paper.csv": pcsv} {
			if err := writeFile(filepath.Join(opt.Out, name), c); err != nil {
				return err
			}
		}
	}
	// The comparison: the paper's column beside each of ours.
	header := []string{"ACBF_opt vs CBF", "paper"}
	var measures []Change
	if defChanges != nil {
		header = append(header, "ours, default sizing")
		measures = defChanges
	}
	if paperChanges != nil {
		header = append(header, fmt.Sprintf("ours, paper's sizing (m/n %g, k %d, capacity %gx)", best.MN, best.K, best.Capacity))
		measures = paperChanges
	}
	var cmpRows [][]string
	for i, c := range measures {
		row := []string{c.Measure, c.Paper}
		if defChanges != nil {
			row = append(row, FormatChange(defChanges[i].Change))
		}
		if paperChanges != nil {
			row = append(row, FormatChange(paperChanges[i].Change))
		}
		cmpRows = append(cmpRows, row)
	}
	_, cmpMD := table(header, cmpRows)
	md.WriteString("## Against the paper\n\n" + cmpMD)
	return writeFile(filepath.Join(opt.Out, "table1.md"), md.String())
}

// table1Keys is the number of keys Table 1 samples: the paper's 65,771,
// scaled in quick mode.
func table1Keys(opt Options) int {
	if opt.Quick && opt.Data == "" {
		return int(math.Round(nber.PaperKeySample * 0.02))
	}
	return nber.PaperKeySample
}

// reportTable renders join reports as Table 1's CSV and Markdown rows.
func reportTable(reps []*join.Report) (csv, md string) {
	var rows [][]string
	for _, r := range reps {
		rows = append(rows, []string{string(r.Filter.Kind), strconv.Itoa(r.Filter.K), strconv.FormatUint(r.Filter.MemoryBits, 10), strconv.FormatUint(r.Filter.FirstLevelBits, 10),
			g(r.Filter.FPPFormula), g(r.FPPMeasured), strconv.FormatInt(r.MapOutputRecords, 10), strconv.FormatInt(r.FalsePositiveRecords, 10),
			strconv.FormatInt(r.ShuffleBytes, 10), fmt.Sprintf("%.1f", r.TimingsMs["build"]), fmt.Sprintf("%.0f", r.TimingsMs["total"])})
	}
	return table([]string{"filter", "k", "memory_bits", "first_level_bits", "fp_formula", "fp_measured", "map_output_records", "false_positives", "shuffle_bytes", "construction_ms", "total_ms"}, rows)
}
