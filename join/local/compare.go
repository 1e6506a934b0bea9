package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/tmpspace"
	"github.com/acbfjoin/acbfjoin/join"
)

// Compare runs the join once per filter kind, repeat times, alternating
// between kinds so that machine noise spreads evenly. It returns one report per
// kind: the counts of its first run (they do not change between runs) with the
// median of every timing. The output is discarded. With a composite key and
// no Layout, each kind runs in both layouts, composite then per-column (but
// none, which has no filter): one report each, in that order. A side that is a stream
// (standard input, a pipe, a FIFO, a device), which can be read only once, is
// first copied to a temporary file in opt.TempDir (removed on return; messages
// still name the stream).
func Compare(ctx context.Context, opt join.Options, kinds []filters.Kind, repeat int) ([]*join.Report, error) {
	if repeat < 1 {
		repeat = 1
	}
	opt.KeepFilter = true // it measures the filters: none may turn itself off
	if err := CheckSides(opt.Keys, opt.Input, opt.FilterFile); err != nil {
		return nil, err
	}
	for _, side := range []struct {
		option      string
		path, name  *string
		format      string
		sep, keySep byte
	}{{"Keys", &opt.Keys, &opt.KeysName, opt.KeysFormat, opt.KeysSep, opt.Sep}, {"Input", &opt.Input, &opt.InputName, opt.InputFormat, opt.InputSep, opt.Sep}} {
		sp, name, err := spool(ctx, sideOptions{option: side.option, path: *side.path, name: *side.name, format: side.format,
			sep: join.SideSep(side.sep, side.keySep), skipBad: opt.SkipBadRows, tempDir: opt.TempDir}, "to read it once per filter")
		if err != nil {
			return nil, err
		}
		if sp != *side.path {
			defer os.Remove(sp)
			*side.path, *side.name = sp, name
		}
	}
	type variant struct {
		kind   filters.Kind
		layout join.Layout
	}
	var vs []variant
	for _, k := range kinds {
		vs = append(vs, variant{k, opt.Layout})
	}
	if r, err := opt.Resolve(); err == nil && len(r.KeyCols) > 1 && opt.Layout == "" {
		vs = vs[:0]
		for _, k := range kinds {
			vs = append(vs, variant{k, join.LayoutComposite})
			if k != filters.None {
				vs = append(vs, variant{k, join.LayoutPerColumn})
			}
		}
	}
	runs := make([][]*join.Report, len(vs))
	for r := 0; r < repeat; r++ {
		for i, v := range vs {
			o := opt
			o.Filter, o.Layout = v.kind, v.layout
			rep, err := Run(ctx, o, NewCSV(io.Discard))
			if err != nil {
				if v.layout == join.LayoutPerColumn {
					return nil, fmt.Errorf("filter %s per-column: %w", v.kind, err)
				}
				return nil, fmt.Errorf("filter %s: %w", v.kind, err)
			}
			runs[i] = append(runs[i], rep)
		}
	}
	out := make([]*join.Report, len(vs))
	for i, rs := range runs {
		rep := *rs[0]
		rep.TimingsMs = map[string]float64{}
		for key := range rs[0].TimingsMs {
			v := make([]float64, len(rs))
			for j, r := range rs {
				v[j] = r.TimingsMs[key]
			}
			rep.TimingsMs[key] = median(v)
		}
		out[i] = &rep
	}
	return out, nil
}

// spool copies a stream side o (standard input "-", a pipe, a FIFO, a
// device) to a new temporary file in o.tempDir and returns its path and the
// stream's name; a regular file (or a missing one, for Run to report) is
// returned as it is. The caller removes the copy. A blocked read ends when
// ctx does. why says what the copy is for, in the error of a full folder.
//
// A copy is bounded: a CSV stream is copied through csvscan.Copy, which
// stops at the first record the reader of the copy would refuse (longer
// than 1 MiB, more than csvscan.MaxFields fields; with o.skipBad only a bad header, and
// an over-long line is cut), and any copy stops before the folder's file
// system falls below its reserve (tmpspace: 5% of its size, at most 1
// GiB), an error naming the option. A failed copy is removed.
func spool(ctx context.Context, o sideOptions, why string) (_, _ string, err error) {
	if o.path != "-" {
		if st, err := os.Stat(o.path); err != nil || st.Mode().IsRegular() {
			return o.path, o.path, nil
		}
	}
	format, err := columnar.FormatOf(o.path, o.format)
	if err != nil {
		return o.path, o.path, nil // openSide reports it
	}
	src, name, err := csvscan.OpenContext(ctx, o.path) // decompresses: the copy is plain CSV
	if te := (*csvscan.TableError)(nil); errors.As(err, &te) && (format != columnar.CSV || o.format == "") {
		// Standard input whose first bytes are a table's (openSide's
		// rule): copied as that table, its format given or told.
		src, name, err = te, te.Name, nil
		if format == columnar.CSV {
			format = columnar.Arrow
			if te.Parquet() {
				format = columnar.Parquet
			}
		}
	}
	if err != nil {
		return "", "", join.FileError(o.option, o.path, err) // a folder: named by its option, as openSide names it
	}
	defer src.Close()
	// The copy keeps the stream's extension (after decompression), which
	// says its separator (csvscan.SepFor: .tsv is tab-separated); a
	// table's copy is named by its format, which its reader then reads.
	ext := filepath.Ext(strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(name), ".gz"), ".zip"))
	if strings.ContainsAny(ext, `/\*`) {
		ext = ""
	}
	if format != columnar.CSV {
		ext = "." + string(format)
	}
	tmp, err := os.CreateTemp(o.tempDir, atomicfile.TempPrefix()+"spool-*"+ext)
	if err != nil {
		return "", "", fmt.Errorf("copy %s to a temporary file: %w", name, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := tmpspace.NewWriter(tmp, filepath.Dir(tmp.Name()))
	if format == columnar.CSV {
		sep := o.sep
		if sep == 0 {
			sep = csvscan.SepFor(tmp.Name()) // as openSide reads the copy
		}
		_, err = csvscan.Copy(w, src, cmp.Or(o.name, name), sep, o.skipBad)
	} else {
		err = columnar.CopyStream(ctx, w, src, format, cmp.Or(o.name, name))
	}
	if err == nil {
		err = tmp.Close()
	}
	var pe *csvscan.ParseError
	switch {
	case err == nil:
		return tmp.Name(), name, nil
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	case errors.As(err, &pe):
		return "", "", err // as the reader of the copy would say it
	case errors.Is(err, columnar.ErrFormat):
		return "", "", err // CopyStream's, naming the stream
	}
	if err := spoolFull(o, why, err); err != nil {
		return "", "", err
	}
	return "", "", fmt.Errorf("copy %s to %s: %w", name, tmp.Name(), err)
}

// spoolFull returns err, a stream's copy stopped at the temporary folder's
// reserve (*tmpspace.FullError), as an error of the option that names the
// side (Keys, Input), saying what the copy was for; nil for other errors.
func spoolFull(o sideOptions, why string, err error) error {
	var fe *tmpspace.FullError
	if !errors.As(err, &fe) {
		return nil
	}
	return &option.Error{Pkg: "join", Name: o.option, Value: o.path, Reason: "a stream is copied to the temporary folder " + why + ": the copy " + fe.Error(),
		Err: join.ErrOptions, Cause: err}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
