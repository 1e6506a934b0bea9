package fsys

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// Sharding is an output written as Beam's sinks write one: N shards named
// PREFIX-00000-of-0000N.EXT from the output's name PREFIX.EXT (.csv.gz
// gzips every shard), each with the header line, so that each is a CSV
// file of its own and a glob reads them all. The shards are written under
// Temp (a folder beside them whose _-prefixed name the readers of a folder
// skip) and moved to their names by Commit, when the pipeline has
// succeeded: a failed or stopped run leaves no shard under the output's
// names. A shard is written whole by one worker, and written again whole
// if that worker is retried: the move takes the last.
type Sharding struct {
	Out, Prefix, Ext, Temp string
	N                      int
}

// NewSharding names the n shards of out (0: N is set later, before the
// pipeline is built), with a temporary folder of a random name beside them.
func NewSharding(out string, n int) (Sharding, error) {
	if n < 0 || n > 99999 {
		return Sharding{}, fmt.Errorf("%d shards: want 1 to 99999", n)
	}
	if i := strings.Index(out, "://"); i >= 0 && !strings.Contains(out[i+3:], "/") {
		return Sharding{}, fmt.Errorf("%s: names a bucket, not an object: name the output's prefix (such as %s/joined.csv)", out, out)
	}
	dir, base := splitName(out)
	if base == "" {
		return Sharding{}, fmt.Errorf("%s: names a folder; name the output's prefix (such as %sjoined.csv)", out, out)
	}
	ext := filepath.Ext(strings.TrimSuffix(base, ".gz"))
	if strings.HasSuffix(base, ".gz") {
		ext += ".gz"
	}
	var id [6]byte
	rand.Read(id[:])
	stem := strings.TrimSuffix(base, ext)
	return Sharding{Out: out, Prefix: dir + stem, Ext: ext, N: n, Temp: dir + "_beamjoin-" + stem + "-" + hex.EncodeToString(id[:])}, nil
}

// splitName splits a URL or path after its last "/".
func splitName(name string) (dir, base string) {
	i := strings.LastIndex(name, "/")
	return name[:i+1], name[i+1:]
}

// Name is shard i's name.
func (s Sharding) Name(i int) string {
	return fmt.Sprintf("%s-%05d-of-%05d%s", s.Prefix, i, s.N, s.Ext)
}

// Names are every shard's name.
func (s Sharding) Names() []string {
	var out []string
	for i := range s.N {
		out = append(out, s.Name(i))
	}
	return out
}

func (s Sharding) tempName(i int) string { return fmt.Sprintf("%s/shard-%05d", s.Temp, i) }

// Begin checks, before the pipeline runs, that the output's place can be
// written: it writes an empty marker in Temp (a denied bucket, a missing
// folder fail now, with nothing made).
func (s Sharding) Begin(ctx context.Context) error {
	return s.put(ctx, s.Temp+"/_started", nil, false)
}

// put writes name whole: the header (if any) then rows' lines.
func (s Sharding) put(ctx context.Context, name string, header []byte, gz bool, rows ...func(*string) bool) (err error) {
	f, err := New(ctx, name)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := f.OpenWrite(ctx, name)
	if err != nil {
		return notExist(name, err)
	}
	committed := false
	defer func() {
		if !committed {
			abort(w)
		}
	}()
	var out io.Writer = w
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(w)
		out = zw
	}
	bw := bufio.NewWriterSize(out, 1<<20) // its first write error sticks
	bw.Write(header)
	for _, next := range rows {
		var row string
		for next(&row) {
			bw.WriteString(row)
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return remote.Named("write", name, err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return remote.Named("write", name, err)
		}
	}
	committed = true
	if err := w.Close(); err != nil {
		return remote.Named("write", name, err)
	}
	return nil
}

// WriteShard writes shard i of the output: the header, then rows (lines
// without their line breaks), to its temporary name; a local file is
// written under a name of its own and renamed, so that a retried worker
// never leaves a half-written shard where the first left a whole one.
func (s Sharding) WriteShard(ctx context.Context, i int, header []byte, rows func(*string) bool) error {
	name := s.tempName(i)
	if !IsURL(name) {
		var id [6]byte
		rand.Read(id[:])
		tmp := name + ".part-" + hex.EncodeToString(id[:])
		if err := s.put(ctx, tmp, header, strings.HasSuffix(s.Ext, ".gz"), rows); err != nil {
			return err
		}
		f, err := New(ctx, name)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.(filesystem.Renamer).Rename(ctx, tmp, name)
	}
	return s.put(ctx, name, header, strings.HasSuffix(s.Ext, ".gz"), rows)
}

// Commit puts the shards under their names: it removes every shard of an
// earlier run of the same output first (PREFIX-ddddd-of-ddddd.EXT, of any
// count: so that two runs' shards never mix), then moves each shard to its
// name (a shard no row reached is written as the header alone), commitWidth
// at a time, then removes Temp. It returns the shards' names. If a move
// fails or ctx ends, the shards moved are removed again, and Temp: none of
// this run's shards is left under its name, and RemovedEarlier reports
// whether an earlier run's were removed. The removals after a failure do not stop
// for ctx.
func (s Sharding) Commit(ctx context.Context, header []byte) (_ []string, err error) {
	f, err := New(ctx, s.Out)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cleanup := context.WithoutCancel(ctx)
	names := s.Names()
	// begun[i]: shard i's name may exist (a copy that succeeded before
	// its source's removal failed, or a stop, still made it).
	begun := make([]bool, len(names))
	rm, _ := f.(filesystem.Remover)
	defer func() {
		if err == nil {
			return
		}
		if rm != nil {
			parallel(len(names), func(i int) {
				if begun[i] {
					rm.Remove(cleanup, names[i])
				}
			})
		}
		s.Abort(cleanup)
	}()
	old, err := f.List(ctx, globEscape(s.Prefix)+"-*-of-*"+globEscape(s.Ext))
	if err != nil {
		return nil, fmt.Errorf("%s: list the earlier shards: %w", s.Out, err)
	}
	old = slices.DeleteFunc(old, func(o string) bool { return !isShardName(s, o) })
	if len(old) > 0 && rm == nil {
		return nil, fmt.Errorf("%s: this file system cannot remove the earlier shard %s", s.Out, old[0])
	}
	// Once begun, the earlier run's shards are removed all, a stop or not:
	// never a part of them left to be read as the whole.
	rmErrs := make([]error, len(old))
	parallel(len(old), func(i int) {
		if rmErrs[i] = rm.Remove(cleanup, old[i]); rmErrs[i] == nil {
			removedOld.Store(true)
		}
	})
	for i, e := range rmErrs {
		if e != nil {
			return nil, fmt.Errorf("remove %s, a shard of an earlier run: %w", old[i], e)
		}
	}
	// The moves, commitWidth at a time (a store's copy is a request each:
	// one after another, thousands of shards take minutes).
	errs := make([]error, len(names))
	parallel(len(names), func(i int) {
		if ctx.Err() != nil {
			return
		}
		begun[i] = true
		errs[i] = s.commitOne(ctx, f, i, header)
	})
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	s.Abort(ctx)
	return names, nil
}

// commitWidth is how many shards Commit moves (or removes) at once.
const commitWidth = 16

// parallel calls do(i) for i in [0, n), commitWidth at a time, and returns
// when every call has.
func parallel(n int, do func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(commitWidth, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// removedOld records that a Commit removed an earlier run's shards (for
// the message of a run stopped in its commit).
var removedOld atomic.Bool

// RemovedEarlier reports whether a Commit of this process removed shards
// of an earlier run of its output.
func RemovedEarlier() bool { return removedOld.Load() }

// commitOne moves shard i to its name, or writes the header alone there
// when no row reached it (its temporary file is missing: the pipeline
// succeeded, so every shard that got rows was written).
func (s Sharding) commitOne(ctx context.Context, f filesystem.Interface, i int, header []byte) error {
	tmp, name := s.tempName(i), s.Name(i)
	if _, err := f.Size(ctx, tmp); err != nil {
		if !errors.Is(notExist(tmp, err), fs.ErrNotExist) {
			return err // not "no such file": the shard may hold rows
		}
		return s.put(ctx, name, header, strings.HasSuffix(s.Ext, ".gz"))
	}
	return move(ctx, f, tmp, name)
}

// globEscape escapes the pattern characters of s (path.Match's and
// filepath.Match's backslash), so that a name holding them lists itself.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// isShardName reports whether name is PREFIX-ddddd-of-ddddd.EXT.
func isShardName(s Sharding, name string) bool {
	rest, ok := strings.CutPrefix(name, s.Prefix+"-")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, s.Ext)
	if !ok || len(rest) != 14 || rest[5:9] != "-of-" {
		return false
	}
	for _, c := range rest[:5] + rest[9:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// move renames from to to where the file system can (local, memfs, Beam's
// gcs: a copy in the store and a removal), else copies and removes (s3FS).
func move(ctx context.Context, f filesystem.Interface, from, to string) error {
	if r, ok := f.(filesystem.Renamer); ok {
		return r.Rename(ctx, from, to)
	}
	c, ok := f.(filesystem.Copier)
	rm, ok2 := f.(filesystem.Remover)
	if !ok || !ok2 {
		return fmt.Errorf("%s: this file system can neither rename nor copy and remove", to)
	}
	if err := c.Copy(ctx, from, to); err != nil {
		return err
	}
	return rm.Remove(ctx, from)
}

// Abort removes Temp and what is in it (best effort: a failed or stopped
// run's shards).
func (s Sharding) Abort(ctx context.Context) {
	f, err := New(ctx, s.Temp)
	if err != nil {
		return
	}
	defer f.Close()
	names, _ := f.List(ctx, globEscape(s.Temp)+"/*")
	if rm, ok := f.(filesystem.Remover); ok {
		parallel(len(names), func(i int) { rm.Remove(ctx, names[i]) })
		if !IsURL(s.Temp) {
			rm.Remove(ctx, s.Temp) // the local folder, now empty
		}
	}
}

// Owns reports whether name is one of this output's shards, of any count
// (PREFIX-ddddd-of-ddddd.EXT), or in its temporary folders: a file that
// the run writes or replaces.
func (s Sharding) Owns(name string) bool {
	dir, base := splitName(s.Prefix)
	return isShardName(s, name) || strings.HasPrefix(name, dir+"_beamjoin-"+base+"-")
}
