package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
)

// RoutedDir is the Sink of a bank join routed to a folder (Route dir): one
// file a class, DIR/CLASSCOL=label/part.csv (or part.parquet), Hive-style.
// The folder is written under a temporary name beside DIR; Commit renames
// it to DIR once the run has finished, so DIR appears complete or not at
// all, and Abort (or Close before Finish) removes it. An existing DIR is
// refused, never merged into or replaced.
type RoutedDir struct {
	Sink
	dir, tmp  string
	files     []*os.File
	finished  bool
	committed bool
}

// NewRoutedDir makes the folders of labels (Labels) under a temporary
// folder beside dir, format "csv", "tsv" or "parquet" (Parquet spooling in
// tempDir). Label names are escaped (EscapeLabel); two labels that name
// the same folder on a case-insensitive file system are refused.
func NewRoutedDir(dir, classCol string, labels []string, format, tempDir string) (*RoutedDir, error) {
	return NewRoutedDirWith(dir, classCol, labels, format, tempDir, ParquetOptions{})
}

// NewRoutedDirWith is NewRoutedDir whose Parquet parts are written with
// pq's settings.
func NewRoutedDirWith(dir, classCol string, labels []string, format, tempDir string, pq ParquetOptions) (_ *RoutedDir, err error) {
	if format != FormatCSV && format != FormatTSV && format != FormatJSONL && format != FormatParquet && format != FormatArrow {
		return nil, &option.Error{Pkg: "local", Name: "Format", Value: fmt.Sprintf("%q", format), Reason: "want csv, tsv, jsonl, parquet or arrow", Err: join.ErrOptions}
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, &option.Error{Pkg: "local", Name: "Output", Value: dir, Reason: "exists: a routed join writes a new folder (remove it or name another)", Err: join.ErrOptions}
	}
	if st, err := os.Stat(filepath.Dir(dir)); err != nil || !st.IsDir() {
		return nil, &option.Error{Pkg: "local", Name: "Output", Value: dir, Reason: fmt.Sprintf("folder %s does not exist", filepath.Dir(dir)), Err: join.ErrOptions}
	}
	parent, base := filepath.Split(filepath.Clean(dir))
	tmp, err := os.MkdirTemp(cmp.Or(parent, "."), "."+atomicfile.TempPrefix()+base+"-*.tmp")
	if err != nil {
		return nil, err
	}
	// MkdirTemp makes it 0700; the folder a user gets is a folder as any
	// other (0755 before the umask, as its class folders).
	if err := os.Chmod(tmp, 0o755&^umask()); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	d := &RoutedDir{dir: dir, tmp: tmp}
	defer func() {
		if err != nil {
			d.Abort()
		}
	}()
	sinks := make([]Sink, len(labels))
	used := map[string]string{}
	for i, l := range labels {
		name := classCol + "=" + EscapeLabel(l)
		if prev, ok := used[strings.ToLower(name)]; ok {
			return nil, fmt.Errorf("%s: classes %q and %q name the same folder on a case-insensitive file system", dir, prev, l)
		}
		used[strings.ToLower(name)] = l
		sub := filepath.Join(tmp, name)
		if err := os.Mkdir(sub, 0o777); err != nil {
			if errors.Is(err, syscall.ENAMETOOLONG) {
				return nil, fmt.Errorf("%s: class %q makes a folder name (%d bytes) longer than the file system allows", dir, truncateLabel(l), len(name))
			}
			return nil, fmt.Errorf("%s: class %q: %w", dir, truncateLabel(l), errors.Unwrap(err))
		}
		f, err := os.OpenFile(filepath.Join(sub, "part."+format), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return nil, err
		}
		d.files = append(d.files, f)
		switch format {
		case FormatTSV:
			sinks[i] = NewTSV(f)
		case FormatJSONL:
			if sinks[i], err = NewJSONL(f, tempDir); err != nil {
				return nil, err
			}
		case FormatArrow:
			if sinks[i], err = NewArrow(f, tempDir, false); err != nil {
				return nil, err
			}
		case FormatParquet:
			sinks[i] = NewParquetWith(f, tempDir, pq)
		default:
			sinks[i] = NewCSV(f)
		}
	}
	d.Sink = NewRouted(labels, sinks)
	return d, nil
}

// umask is the process's file mode mask, as the kernel reports it
// (/proc/self/status, Linux 4.7 and later); 022, the usual one, where it
// does not. Setting the mask to read it back would race with any file
// another goroutine creates meanwhile.
func umask() os.FileMode {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return os.FileMode(m)
				}
			}
		}
	}
	return 0o022
}

// truncateLabel cuts a label to 40 bytes for a message, marking the cut.
func truncateLabel(l string) string {
	if len(l) <= 40 {
		return l
	}
	return l[:40] + "..."
}

// routed is the routed sink it wraps (prepare checks it against the
// options).
func (d *RoutedDir) routed() *routedSink { return d.Sink.(*routedSink) }

// Finish finishes every class's file and closes them.
func (d *RoutedDir) Finish(ctx context.Context) error {
	if err := d.Sink.Finish(ctx); err != nil {
		return err
	}
	for _, f := range d.files {
		if err := f.Close(); err != nil {
			return err
		}
	}
	d.files, d.finished = nil, true
	return nil
}

// Close closes the sinks; before Finish, it also removes the folder.
func (d *RoutedDir) Close() error {
	err := d.Sink.Close()
	if !d.finished {
		d.Abort()
	}
	return err
}

// Commit moves the finished folder to its name: a folder that appeared
// there while the join ran is not replaced (an error).
func (d *RoutedDir) Commit() error {
	if !d.finished {
		return fmt.Errorf("%s: the join did not finish", d.dir)
	}
	if _, err := os.Lstat(d.dir); err == nil {
		return fmt.Errorf("%s: appeared while the join ran; the output is not moved there", d.dir)
	}
	if err := os.Rename(d.tmp, d.dir); err != nil {
		return err
	}
	d.committed = true
	return nil
}

// Abort removes the folder unless it was committed.
func (d *RoutedDir) Abort() {
	for _, f := range d.files {
		f.Close()
	}
	d.files = nil
	if !d.committed {
		os.RemoveAll(d.tmp)
	}
}

// EscapeLabel makes a class label a folder name: letters, digits and
// "._-+" stay, every other byte is %XX (as Hive escapes partition values),
// and a label of dots only is escaped whole, so that no label names "." or
// "..", or holds a "/" (the folder, CLASSCOL=label, is never empty).
func EscapeLabel(l string) string {
	var b strings.Builder
	allDots := strings.Trim(l, ".") == ""
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || (c == '.' && !allDots) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
