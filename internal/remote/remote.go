// Package remote opens files named by a URL (s3://bucket/key, gs://...,
// memfs://...) through a file system that the program registers for the
// URL's scheme: beamjoin registers Beam's file systems (issue 47), join
// registers none, so a URL stays "no such file" there. Readers that take a
// path (csvscan, columnar, source) ask Is first and then read a remote
// file through File, which reads by ranges: a CSV byte range or a Parquet
// column chunk costs one request, not the object.
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// FS is a file system of one scheme. Its methods take whole URLs and may be
// called from many goroutines at once.
type FS interface {
	// Stat returns name's size and version; an error wrapping
	// fs.ErrNotExist when there is no such file.
	Stat(ctx context.Context, name string) (Info, error)
	// OpenRange reads n bytes of name from off (n < 0: to its end).
	OpenRange(ctx context.Context, name string, off, n int64) (io.ReadCloser, error)
	// List returns the names of the files that match a glob pattern
	// (path.Match's syntax, * not crossing a /), or, for a pattern
	// ending in "/", every file under that prefix (sub-folders' too:
	// the caller refuses them), in name order.
	List(ctx context.Context, pattern string) ([]string, error)
}

// Info is a remote file's state: its size, and a version (a modification
// time in Unix ns) that changes when it is written again (0: unknown).
type Info struct {
	Size, MTime int64
}

var (
	mu       sync.RWMutex
	registry = map[string]FS{}
)

// Register makes fs the file system of scheme ("s3" for s3://...), in
// place of any before it.
func Register(scheme string, fs FS) {
	mu.Lock()
	defer mu.Unlock()
	registry[scheme] = fs
}

// Scheme returns the scheme of a URL ("s3" of s3://b/k), "" for a local
// path.
func Scheme(name string) string {
	i := strings.Index(name, "://")
	if i <= 0 || strings.ContainsAny(name[:i], "/.") {
		return ""
	}
	return name[:i]
}

// Is reports whether name is a URL of a registered file system.
func Is(name string) bool {
	_, ok := lookup(name)
	return ok
}

func lookup(name string) (FS, bool) {
	s := Scheme(name)
	if s == "" {
		return nil, false
	}
	mu.RLock()
	defer mu.RUnlock()
	fs, ok := registry[s]
	return fs, ok
}

// ErrScheme is the error for a URL of a scheme no file system is
// registered for.
var ErrScheme = errors.New("no file system of this program reads it")

func fsOf(name string) (FS, error) {
	fs, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, ErrScheme)
	}
	return fs, nil
}

// Unregistered returns an error for a URL of a scheme that no file system
// of this program reads ("s3:// is read by beamjoin ..."), nil for a local
// path or a URL that one reads.
func Unregistered(name string) error {
	if s := Scheme(name); s != "" && !Is(name) {
		return schemeError(s)
	}
	return nil
}

// schemeError is Unregistered's error, ErrScheme by errors.Is.
type schemeError string

func (e schemeError) Error() string {
	return string(e) + ":// is read by beamjoin (docs/scale-out.md), not by this command: copy the file here first"
}

func (e schemeError) Is(target error) bool { return target == ErrScheme }

// Stat returns the Info of the remote file name.
func Stat(ctx context.Context, name string) (Info, error) {
	fs, err := fsOf(name)
	if err != nil {
		return Info{}, err
	}
	return fs.Stat(ctx, name)
}

// List returns the files a pattern names (FS.List).
func List(ctx context.Context, pattern string) ([]string, error) {
	fs, err := fsOf(pattern)
	if err != nil {
		return nil, err
	}
	return fs.List(ctx, pattern)
}

// Named returns err about the file name: "OP NAME: err" ("NAME: err"
// without an op), or err itself when its text names the file already (a
// remote file's errors do, and an *fs.PathError of the local file system),
// so that a message names a file once.
func Named(op, name string, err error) error {
	switch {
	case strings.Contains(err.Error(), name):
		return err
	case op == "":
		return fmt.Errorf("%s: %w", name, err)
	}
	return fmt.Errorf("%s %s: %w", op, name, err)
}

// File is an open remote file: io.ReaderAt (by ranges), io.Reader and
// io.Seeker from its start, as Parquet's and Arrow's readers take a local
// file. It reads ahead in windows (Window), so that a sequential reader's
// small reads cost one request a window, and keeps up to Streams ranges
// open, so that readers that take turns at their own offsets (a CSV
// file's parts) each go on with their own. Safe for concurrent use; the
// calls are serialised.
type File struct {
	ctx  context.Context
	fs   FS
	name string
	info Info

	mu      sync.Mutex
	streams []*stream // open ranges, the last used last
	pos     int64     // Read and Seek's offset
}

// stream is an open range of a File.
type stream struct {
	body     io.ReadCloser
	off, end int64 // the offset body reads next; where it ends
	win      int64 // the length asked for
}

// Window is the most a File asks of its file system at once beyond what
// a read wants; minWindow the least. A sequential reader's ranges double
// from minWindow to Window. Streams is how many ranges a File keeps open.
const (
	Window    = 8 << 20
	minWindow = 256 << 10
	Streams   = 4
)

// Open opens the remote file name for reading; its size is read now.
func Open(ctx context.Context, name string) (*File, error) {
	fs, err := fsOf(name)
	if err != nil {
		return nil, err
	}
	info, err := fs.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	return &File{ctx: ctx, fs: fs, name: name, info: info}, nil
}

// Name returns the file's URL.
func (f *File) Name() string { return f.name }

// Size returns the file's size when opened.
func (f *File) Size() int64 { return f.info.Size }

// Info returns the file's state when opened.
func (f *File) Info() Info { return f.info }

// ReadAt reads len(p) bytes from off (io.ReaderAt).
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readAt(p, off)
}

// streamAt returns the open stream at off, moved to the end of the list
// (the last used), or a new one for want bytes from off: twice as long as
// a stream that ended at off (up to Window), else minWindow.
func (f *File) streamAt(off, want int64) (*stream, error) {
	win := int64(minWindow)
	for i, s := range f.streams {
		if s.off != off {
			continue
		}
		f.streams = append(f.streams[:i], f.streams[i+1:]...)
		if s.off < s.end {
			f.streams = append(f.streams, s)
			return s, nil
		}
		s.body.Close() // ended where the reader goes on: a longer one
		win = min(2*s.win, Window)
		break
	}
	if len(f.streams) >= Streams {
		f.streams[0].body.Close()
		f.streams = f.streams[1:]
	}
	end := min(f.info.Size, off+max(want, win))
	body, err := f.fs.OpenRange(f.ctx, f.name, off, end-off)
	if err != nil {
		return nil, Named("", f.name, err)
	}
	s := &stream{body: body, off: off, end: end, win: win}
	f.streams = append(f.streams, s)
	return s, nil
}

func (f *File) readAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: read at %d", f.name, off)
	}
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= f.info.Size {
			return n, io.EOF
		}
		s, err := f.streamAt(at, int64(len(p)-n))
		if err != nil {
			return n, err
		}
		want := min(int64(len(p)-n), s.end-s.off)
		m, err := io.ReadFull(s.body, p[n:n+int(want)])
		n += m
		s.off += int64(m)
		if err != nil {
			f.drop(s)
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				// The range ended before its length: the file shrank,
				// or the connection was cut. Never a short read taken
				// for the file's end.
				return n, fmt.Errorf("%s: the file ended at byte %d of %d (changed, or the connection was cut)", f.name, at+int64(m), f.info.Size)
			}
			return n, Named("", f.name, err)
		}
	}
	return n, nil
}

// drop closes s and forgets it.
func (f *File) drop(s *stream) {
	s.body.Close()
	f.streams = slices.DeleteFunc(f.streams, func(x *stream) bool { return x == s })
}

// Read reads from the offset Seek set (io.Reader).
func (f *File) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pos >= f.info.Size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), f.info.Size-f.pos)]
	n, err := f.readAt(p, f.pos)
	f.pos += int64(n)
	return n, err
}

// Seek sets Read's offset (io.Seeker).
func (f *File) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.pos
	case io.SeekEnd:
		offset += f.info.Size
	default:
		return 0, fmt.Errorf("%s: seek whence %d", f.name, whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("%s: seek to %d", f.name, offset)
	}
	f.pos = offset
	return offset, nil
}

// Close closes the open ranges.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.streams {
		s.body.Close()
	}
	f.streams = nil
	return nil
}
