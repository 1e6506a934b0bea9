package remote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// Mem is an FS held in memory, for tests: its files are Put, by URL. The
// zero value is empty. Requests counts OpenRange's calls.
type Mem struct {
	mu       sync.Mutex
	files    map[string][]byte
	versions map[string]int64
	Requests int
}

// Put writes the file name (a URL), a new version of it if it was there.
func (m *Mem) Put(name string, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files, m.versions = map[string][]byte{}, map[string]int64{}
	}
	m.files[name] = slices.Clone(data)
	m.versions[name]++
}

// Stat is FS.Stat.
func (m *Mem) Stat(_ context.Context, name string) (Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[name]
	if !ok {
		return Info{}, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return Info{Size: int64(len(b)), MTime: m.versions[name]}, nil
}

// OpenRange is FS.OpenRange.
func (m *Mem) OpenRange(_ context.Context, name string, off, n int64) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Requests++
	b, ok := m.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if off > int64(len(b)) {
		return nil, fmt.Errorf("%s: range from %d of %d bytes", name, off, len(b))
	}
	b = b[off:]
	if n >= 0 && n < int64(len(b)) {
		b = b[:n]
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// List is FS.List.
func (m *Mem) List(_ context.Context, pattern string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name := range m.files {
		if strings.HasSuffix(pattern, "/") {
			if strings.HasPrefix(name, pattern) {
				out = append(out, name)
			}
			continue
		}
		ok, err := path.Match(pattern, name)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}
