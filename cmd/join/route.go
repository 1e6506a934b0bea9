package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// runRouted is join run --bank ... --route dir --out DIR: one file a class,
// DIR/CLASSCOL=label/part.csv (or part.parquet), Hive-style. The folder is
// written under a temporary name beside DIR and renamed to DIR at the end,
// so DIR appears complete or not at all; an existing DIR is refused, never
// merged into or replaced.
func runRouted(ctx context.Context, fs *flag.FlagSet, jf *joinFlags, out, format string, sorted bool, reportJSON string, stdout, stderr io.Writer) (err error) {
	if format != "csv" && format != "parquet" {
		return usageError{fmt.Errorf("run: --format %q: want csv or parquet", format)}
	}
	if out == "" || atomicfile.IsStdout(out) {
		return usageError{fmt.Errorf("run: --route dir writes a folder: give --out DIR")}
	}
	if jf.bank == "-" {
		return usageError{fmt.Errorf("run: --route dir needs --bank as a file (its classes name the folders before the join reads it)")}
	}
	if _, err := os.Lstat(out); err == nil {
		return usageError{fmt.Errorf("run: --out %s exists: --route dir writes a new folder (remove it or name another)", out)}
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("run: --out %s: folder %s does not exist", out, filepath.Dir(out))}
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
	parent, base := filepath.Split(filepath.Clean(out))
	tmp, err := os.MkdirTemp(cmp.Or(parent, "."), "."+atomicfile.TempPrefix()+base+"-*.tmp")
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	committed := false
	defer func() {
		if !committed {
			os.RemoveAll(tmp)
		}
	}()
	var opened []*os.File
	defer func() {
		for _, f := range opened {
			f.Close()
		}
	}()
	sinks := make([]local.Sink, len(labels))
	used := map[string]string{}
	for i, l := range labels {
		name := b.ClassCol + "=" + escapeLabel(l)
		if prev, ok := used[strings.ToLower(name)]; ok {
			return fmt.Errorf("--out %s: classes %q and %q name the same folder on a case-insensitive file system", out, prev, l)
		}
		used[strings.ToLower(name)] = l
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o777); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
		f, err := os.OpenFile(filepath.Join(dir, "part."+format), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
		opened = append(opened, f)
		sinks[i] = local.NewCSV(f)
		if format == "parquet" {
			sinks[i] = local.NewParquet(f, opt.TempDir)
		}
	}
	jf.tuneGC(opt)
	rep, err := local.Run(ctx, opt, local.NewRouted(labels, sinks))
	if err != nil {
		return flagError("run", fs, err)
	}
	for _, f := range opened {
		if err := f.Close(); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
	}
	opened = nil
	rep.Settings.Format = format
	if repF != nil {
		if err := writeJSON(repF, rep); err != nil {
			return fmt.Errorf("--report-json %s: %w", reportJSON, err)
		}
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("--out %s: appeared while the join ran; the output is not moved there", out)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	committed = true
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

// escapeLabel makes a class label a folder name: letters, digits and
// "._-+" stay, every other byte is %XX (as Hive escapes partition values),
// and a label of dots only is escaped whole, so that no label names "." or
// "..", holds a "/", or is empty.
func escapeLabel(l string) string {
	var b strings.Builder
	allDots := strings.Trim(l, ".") == ""
	for i := 0; i < len(l); i++ {
		c := l[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || (c == '.' && !allDots)
		if ok {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
