// Package fsys connects beamjoin to Beam's file systems (issue 47): the
// sides are read, and a sharded output written, through Beam's
// filesystem API, so a pipeline reads and writes where its runner's
// workers keep their data: s3:// (this package's S3 file system, which
// reads ranges and takes an endpoint: s3.go), gs:// (Beam's), memfs://
// (Beam's, in memory, for tests) and local paths.
//
// Importing it registers those schemes with Beam (filesystem.Register)
// and with acbfjoin's readers (internal/remote), in every process of the
// pipeline: the launcher, which reads the headers and cuts the large side
// into ranges, and the workers, which read their ranges.
package fsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"   // gs://
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // paths
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs" // memfs://

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// Schemes are the URL schemes beamjoin reads and writes.
var Schemes = []string{"s3", "gs", "memfs"}

func init() {
	filesystem.Register("s3", newS3)
	for _, s := range Schemes {
		remote.Register(s, beamFS{})
	}
}

// IsURL reports whether name is a URL of one of Schemes.
func IsURL(name string) bool {
	for _, s := range Schemes {
		if strings.HasPrefix(name, s+"://") {
			return true
		}
	}
	return false
}

// CheckName refuses (without naming it) a URL that a file system would read as another name:
// Beam's GCS file system parses gs:// names as URLs, so ?, # and % in one
// (a query, a fragment, an escape) would name another object, silently.
// (s3:// names are taken as they are: parseS3.)
func CheckName(name string) error {
	if strings.HasPrefix(name, "gs://") && strings.ContainsAny(name, "?#%") {
		return errors.New("Beam's GCS file system reads ?, # and % in a name as URL syntax (another object): rename it, or give a pattern with * or [ ]")
	}
	return nil
}

// New returns Beam's file system of name (a URL or a local path). A file
// system whose construction panics (Beam's gcs, without a client) is an
// error.
func New(ctx context.Context, name string) (_ filesystem.Interface, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: the file system: %v", name, r)
		}
	}()
	return filesystem.New(ctx, name)
}

// rangeOpener is a file system that reads a part of a file (s3FS).
type rangeOpener interface {
	OpenRange(ctx context.Context, name string, off, n int64) (io.ReadCloser, error)
}

// beamFS is remote.FS over Beam's file systems.
type beamFS struct{}

// Stat returns name's size and version: an S3 object's in one HEAD
// (ETag and modification time), a GCS object's generation, else Beam's
// Size and LastModified. One or two requests; safe for concurrent use.
func (beamFS) Stat(ctx context.Context, name string) (remote.Info, error) {
	if strings.HasPrefix(name, "gs://") {
		return gcsStat(ctx, name)
	}
	f, err := New(ctx, name)
	if err != nil {
		return remote.Info{}, err
	}
	defer f.Close()
	if v, ok := f.(interface {
		version(context.Context, string) (int64, int64, error)
	}); ok { // s3FS: the size and the ETag in one request
		size, version, err := v.version(ctx, name)
		if err != nil {
			return remote.Info{}, notExist(name, err)
		}
		return remote.Info{Size: size, MTime: version}, nil
	}
	size, err := f.Size(ctx, name)
	if err != nil {
		return remote.Info{}, notExist(name, err)
	}
	info := remote.Info{Size: size}
	if lm, ok := f.(filesystem.LastModifiedGetter); ok {
		if t, err := lm.LastModified(ctx, name); err == nil {
			info.MTime = t.UnixNano()
		}
	}
	return info, nil
}

// notExist marks Beam's "no such object" errors (memfs's os.ErrNotExist,
// gcs's storage.ErrObjectNotExist, worded "object doesn't exist") as
// fs.ErrNotExist, naming the file once (remote.Named).
func notExist(name string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), "object doesn't exist") {
		return fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return remote.Named("", name, err)
}

// OpenRange reads a range with one request where the file system can
// (s3FS, gs:// by gcsOpenRange), else the file from its start, skipping
// to off (memfs).
func (beamFS) OpenRange(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	if strings.HasPrefix(name, "gs://") {
		return gcsOpenRange(ctx, name, off, n)
	}
	f, err := New(ctx, name)
	if err != nil {
		return nil, err
	}
	if ro, ok := f.(rangeOpener); ok {
		rc, err := ro.OpenRange(ctx, name, off, n)
		if err != nil {
			f.Close()
			return nil, notExist(name, err)
		}
		return &closeBoth{rc, rc, f}, nil
	}
	rc, err := f.OpenRead(ctx, name)
	if err != nil {
		f.Close()
		return nil, notExist(name, err)
	}
	if _, err := io.CopyN(io.Discard, rc, off); err != nil {
		rc.Close()
		f.Close()
		return nil, fmt.Errorf("%s: skip to byte %d: %w", name, off, err)
	}
	var r io.Reader = rc
	if n >= 0 {
		r = io.LimitReader(rc, n)
	}
	return &closeBoth{r, rc, f}, nil
}

// closeBoth is a reader whose Close closes its stream and file system.
type closeBoth struct {
	io.Reader
	rc io.Closer
	fs io.Closer
}

func (c *closeBoth) Close() error {
	err := c.rc.Close()
	c.fs.Close()
	return err
}

// List lists a glob's files; a pattern ending in "/" every file under it
// (s3FS lists the prefix; another file system the files one level down).
func (beamFS) List(ctx context.Context, pattern string) ([]string, error) {
	f, err := New(ctx, pattern)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, ok := f.(*s3FS); !ok && strings.HasSuffix(pattern, "/") {
		pattern += "*"
	}
	return f.List(ctx, pattern)
}

// abort drops what w wrote: an S3 object's buffer (nothing is put), a
// local file (removed). Another writer is left unclosed, which commits
// nothing of Beam's (Close commits).
func abort(w io.WriteCloser) {
	if a, ok := w.(interface{ Abort() }); ok {
		a.Abort()
		return
	}
	if f, ok := w.(*os.File); ok {
		f.Close()
		os.Remove(f.Name())
	}
}
