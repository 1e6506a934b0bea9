package app

import (
	"bytes"
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
	var outs []namedPath
	if jf.set("report-json") {
		outs = append(outs, namedPath{"--report-json", reportJSON})
	}
	if err := checkPaths(outs, []namedPath{{"--keys", jf.keys}, {"--input", jf.input}, {"--bank", jf.bank}}); err != nil {
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
	var files outputs
	defer files.abort()
	var repF *atomicfile.File
	if len(outs) > 0 {
		if repF, err = files.create(ctx, outs[0], atomicfile.Options{Gzip: true}); err != nil {
			return err
		}
	}
	d, err := local.NewRoutedDir(out, b.ClassCol, labels, format, opt.TempDir)
	var oe *option.Error
	switch {
	case errors.As(err, &oe):
		return usageError{flagError("run", fs, err)} // --out names a folder that exists, or in one that does not
	case err != nil:
		return fmt.Errorf("run: --out %w", err) // the bank's labels against the file system
	}
	defer d.Abort()
	jf.tuneGC(opt)
	rep, err := local.Run(ctx, opt, d)
	if err != nil {
		return flagError("run", fs, err)
	}
	rep.Settings.Format = format
	if repF != nil {
		if err := writeJSON(repF, rep); err != nil {
			return fmt.Errorf("--report-json %s: %w", reportJSON, err)
		}
	}
	if err := d.Commit(); err != nil {
		return fmt.Errorf("--out %w", err)
	}
	jf.bars.clear()
	if !jf.quiet {
		var text bytes.Buffer
		rep.WriteText(&text)
		fmt.Fprintf(&text, "wrote %s: %d classes, %s/%s=CLASS/part.%s\n", out, len(labels), out, b.ClassCol, format)
		if _, err := stdout.Write(text.Bytes()); err != nil {
			return stdoutError{err}
		}
	}
	if repF != nil {
		if err := repF.Commit(); err != nil {
			return fmt.Errorf("--report-json %s: %w", reportJSON, err)
		}
	}
	return nil
}
