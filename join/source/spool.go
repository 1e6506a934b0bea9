package source

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/tmpspace"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// Spool copies a stream side o (standard input "-", a pipe, a FIFO, a
// device) to a new temporary file in o.tempDir and returns its path and the
// stream's name; a regular file, a folder or a glob of them (Files), or a
// missing one (for Run to report) is returned as it is. The caller removes the copy. A blocked read ends when
// ctx does. why says what the copy is for, in the error of a full folder.
//
// A copy is bounded: a CSV stream is copied through csvscan.Copy, which
// stops at the first record the reader of the copy would refuse (longer
// than 1 MiB, more than csvscan.MaxFields fields; with o.skipBad only a bad header, and
// an over-long line is cut), and any copy stops before the folder's file
// system falls below its reserve (tmpspace: 5% of its size, at most 1
// GiB), an error naming the option. A failed copy is removed.
func Spool(ctx context.Context, o Options, why string) (_, _ string, err error) {
	if _, many, _ := Files(o.Path, o.Format); many { // a folder or a glob of regular files (Open reports a bad one)
		return o.Path, o.Path, nil
	}
	if o.Path != "-" {
		if st, err := os.Stat(o.Path); err != nil || st.Mode().IsRegular() {
			return o.Path, o.Path, nil
		}
	}
	format, err := columnar.FormatOf(o.Path, o.Format)
	if err != nil {
		return o.Path, o.Path, nil // openSide reports it
	}
	src, name, err := csvscan.OpenContext(ctx, o.Path) // decompresses: the copy is plain CSV
	if te := (*csvscan.TableError)(nil); errors.As(err, &te) && (format != columnar.CSV || o.Format == "") {
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
		return "", "", join.FileError(o.Option, o.Path, err) // a folder: named by its option, as openSide names it
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
	tmp, err := os.CreateTemp(o.TempDir, atomicfile.TempPrefix()+"spool-*"+ext)
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
		sep := o.Sep
		if sep == 0 {
			sep = csvscan.SepFor(tmp.Name()) // as openSide reads the copy
		}
		_, err = csvscan.Copy(w, src, cmp.Or(o.Name, name), sep, o.SkipBad)
	} else {
		err = columnar.CopyStream(ctx, w, src, format, cmp.Or(o.Name, name))
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
	if err := SpoolFull(o, why, err); err != nil {
		return "", "", err
	}
	return "", "", fmt.Errorf("copy %s to %s: %w", name, tmp.Name(), err)
}

// SpoolFull returns err, a stream's copy stopped at the temporary folder's
// reserve (*tmpspace.FullError), as an error of the option that names the
// side (Keys, Input), saying what the copy was for; nil for other errors.
func SpoolFull(o Options, why string, err error) error {
	var fe *tmpspace.FullError
	if !errors.As(err, &fe) {
		return nil
	}
	return &option.Error{Pkg: "join", Name: o.Option, Value: o.Path, Reason: "a stream is copied to the temporary folder " + why + ": the copy " + fe.Error(),
		Err: join.ErrOptions, Cause: err}
}

// SpoolToInfer saves a side that is a CSV stream to a file in its
// tempDir when a key type is to be inferred (types holds key.Auto:
// decideKeyTypes reads the key side before the build does), and makes o
// open the copy; it returns the copy's path ("" if none was made) for the
// caller to remove.
func SpoolToInfer(ctx context.Context, o *Options, types []key.Type) (string, error) {
	if !slices.Contains(types, key.Auto) {
		return "", nil
	}
	if f, err := columnar.FormatOf(o.Path, o.Format); err != nil || f != columnar.CSV {
		return "", nil // a table's types come from its schema; a bad format is openSide's to report
	}
	sp, name, err := Spool(ctx, *o, "to infer its key type (a key type given reads it once, without a copy)")
	if err != nil || sp == o.Path {
		return "", err
	}
	o.Path, o.Name = sp, cmp.Or(o.Name, name)
	return sp, nil
}
