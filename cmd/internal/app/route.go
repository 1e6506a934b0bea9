package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/option"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// runRouted is join run --bank ... --route dir --out DIR: one file a class,
// DIR/CLASSCOL=label/part.csv (or part.parquet), Hive-style. The folder is
// written under a temporary name beside DIR and renamed to DIR at the end,
// so DIR appears complete or not at all; an existing DIR is refused, never
// merged into or replaced.
func runRouted(ctx context.Context, fs *flag.FlagSet, jf *joinFlags, out, format string, sorted bool, reportJSON string, stdout, stderr io.Writer) (err error) {
	if out == "" || atomicfile.IsStdout(out) {
		return usageError{fmt.Errorf("run: --route dir writes a folder: give --out DIR")}
	}
	if ext := strings.ToLower(filepath.Ext(out)); ext == ".gz" || ext == ".zip" {
		return usageError{fmt.Errorf("run: --out %s: --route dir writes a folder of plain CSV or Parquet parts, not %s", out, ext)}
	}
	if jf.bank == "-" {
		return usageError{fmt.Errorf("run: --route dir needs --bank as a file (its classes name the folders before the join reads it)")}
	}
	opt, err := jf.options("run", stderr)
	if err != nil {
		return err
	}
	defer jf.bars.clear()
	opt.Sort = sorted
	outs := reportOutput(nil, jf.set("report-json"), reportJSON)
	if err := checkPaths(paths(outs), []namedPath{{"--keys", jf.keys}, {"--input", jf.input}, {"--bank", jf.bank}}); err != nil {
		return usageError{fmt.Errorf("run: %w", err)}
	}
	b, err := local.ReadBank(ctx, jf.bank)
	if err != nil {
		return flagError("run", fs, err)
	}
	labels, err := local.Labels(b, opt.Classes)
	if err != nil {
		return usageError{fmt.Errorf("run: --classes: %w", err)}
	}
	// The folder is committed by its own rule (local.RoutedDir), the report after it.
	return writeAndCommit(ctx, outs, func(files []*atomicfile.File) error {
		d, err := local.NewRoutedDirWith(out, b.ClassCol, labels, format, opt.TempDir, jf.pq)
		var oe *option.Error
		switch {
		case errors.As(err, &oe):
			return usageError{flagError("run", fs, err)} // --out names a folder that exists, or in one that does not
		case err != nil:
			return fmt.Errorf("run: --out %w", err) // the bank's labels against the file system
		}
		defer d.Abort()
		jf.tuneGC(&opt)
		rep, err := local.Run(ctx, opt, d)
		if err != nil {
			return flagError("run", fs, err)
		}
		rep.Settings.Format = format
		if err := writeReportJSON(reportFile(outs, files), rep); err != nil {
			return err
		}
		if err := d.Commit(); err != nil {
			return fmt.Errorf("--out %w", err)
		}
		jf.bars.clear()
		if jf.quiet {
			return nil
		}
		return printReport(func(w io.Writer) {
			rep.WriteText(w)
			fmt.Fprintf(w, "wrote %s: %d classes, %s/%s=CLASS/part.%s\n", out, len(labels), out, b.ClassCol, format)
		}, false, stdout, stderr)
	})
}
