package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/acbfjoin/acbfjoin/repro"
)

func cmdRepro(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("repro", stderr)
	usageWith(fs, "join repro [flags]", `
Examples:
  join repro                             # the paper's sizes (a few minutes), into data/repro
  join repro --quick --out /tmp/repro    # seconds
  join repro --data nber --out data/repro-real   # Table 1 on the real NBER files
  join repro --table1-sizing paper --out /tmp/t1   # Table 1 at the sizing inferred from the paper's pair
`)
	quick := fs.Bool("quick", false, "a reduced run (under a minute) instead of the paper's sizes")
	data := fs.String("data", "", "folder with the real NBER files for Table 1 (default: generate them at full scale)")
	out := fs.String("out", "data/repro", "output folder (made if missing; docs/results holds the committed full run)")
	seed := fs.Uint64("seed", 1, "seed of every random choice")
	verbose := fs.Bool("v", false, "log every trial")
	sizing := fs.String("table1-sizing", repro.Table1Both, "Table 1's sizings: default (32 bits per key, each kind's k), paper (CBF and ACBF at the sizing inferred from the paper's FP -72.3% and map outputs -33.9%), or both")
	capacity := fs.Uint64("acbf-capacity", 0, "Table 1's default run: the ACBF keeps counter room for this many keys (at least the keys sampled)")
	t1keys := fs.Int("table1-keys", 0, "the keys Table 1 samples from the patents (all of them when the file holds fewer; default: the paper's 65,771, 2% of them with generated data and --quick)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := outDir("repro", *out); err != nil {
		return err
	}
	if *t1keys < 0 {
		return usageError{fmt.Errorf("repro: --table1-keys %d: want a number of keys (0: the paper's)", *t1keys)}
	}
	switch *sizing {
	case repro.Table1Both, repro.Table1Default, repro.Table1Paper:
	default:
		return usageError{fmt.Errorf("repro: --table1-sizing %q: want both, default or paper", *sizing)}
	}
	if *data != "" {
		cite, pat, err := repro.FindNBER(*data)
		if err != nil {
			return flagError("repro", fs, err)
		}
		if err := checkPaths(nil, []namedPath{{"--data", cite}, {"--data", pat}}); err != nil {
			return usageError{fmt.Errorf("repro: %w", err)}
		}
	}
	opt := repro.Options{Quick: *quick, Data: *data, Out: *out, Seed: *seed, Table1Sizing: *sizing, ACBFCapacity: *capacity, Table1Keys: *t1keys, Prog: prog, Log: func(format string, a ...any) {
		if len(format) > 1 && format[:2] == "  " && !*verbose {
			return
		}
		fmt.Fprintf(stderr, format+"\n", a...)
	}}
	if !*verbose && isTerminal(os.Stderr) {
		opt.Progress = newBars(stderr).update
	}
	if err := repro.Run(ctx, opt); err != nil {
		return flagError("repro", fs, err)
	}
	fmt.Fprintf(stdout, "wrote %s: the figures, quoted.md and Table 1 (asked: %s; table1.md says the sizings run); run.md says how\n", *out, *sizing)
	return nil
}
