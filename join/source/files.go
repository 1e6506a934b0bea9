package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// A side may be many files (issue 47): a folder, whose files of one
// format are read in name order (hidden and _-prefixed names left out, as
// Spark and Hive write _SUCCESS and .crc files beside the parts), or a glob
// (`parts/part-*.parquet`, quoted from the shell), whose matches are read in
// name order. Files is the one expansion of every command and engine.

// ErrNoFiles marks a folder or a glob with no file to read.
var ErrNoFiles = errors.New("no file to read")

// IsPattern reports whether path is a glob rather than a file's name: it
// holds one of Go's pattern characters (*, ?, [) and no file of that name
// exists.
func IsPattern(path string) bool {
	if !strings.ContainsAny(path, "*?[") {
		return false
	}
	if remote.Is(path) {
		_, err := remote.Stat(context.Background(), path)
		return errors.Is(err, fs.ErrNotExist)
	}
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}

// Files returns the files a side's path names: a folder's (its regular
// files, hidden and _-prefixed names left out, of one format by their
// names: columnar.FormatOf, given overriding it), a glob's matches
// (filepath.Glob, hidden and _-prefixed names left out too; every match
// must be a file), each in name order, with
// many true; or the path itself ("-", a file, a FIFO, or a path that does
// not exist, left to its reader) with many false. A folder holding a
// folder, files of two formats, or no file, and a glob that matches a
// folder or nothing are errors naming the path. O(the folder's entries).
func Files(path, given string) (files []string, many bool, err error) {
	if path == "-" || path == "" {
		return []string{path}, false, nil
	}
	if remote.Is(path) {
		return remoteFiles(path, given)
	}
	if err := remote.Unregistered(path); err != nil {
		return nil, false, pathErr(path, err)
	}
	if IsPattern(path) {
		all, err := filepath.Glob(path)
		if err != nil {
			return nil, true, pathErr(path, err)
		}
		var matches []string
		for _, m := range all { // as a folder's: _SUCCESS and .crc files left out
			if !skipped(filepath.Base(m)) {
				matches = append(matches, m)
			}
		}
		if len(matches) == 0 {
			return nil, true, errNoMatch(path)
		}
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.IsDir() {
				return nil, true, pathErr(path, fmt.Errorf("matches the folder %s: give a pattern of files", m))
			} else if err == nil && !st.Mode().IsRegular() {
				return nil, true, pathErr(path, fmt.Errorf("matches %s, which is not a regular file (a FIFO, a device): a side's files are read by ranges, more than once", m))
			}
		}
		return matches, true, sameFormat(path, matches, given)
	}
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return []string{path}, false, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, true, err
	}
	for _, e := range entries {
		name := e.Name()
		if skipped(name) {
			continue
		}
		full := filepath.Join(path, name)
		st, err := os.Stat(full) // through a symbolic link
		if err != nil {
			return nil, true, err
		}
		if st.IsDir() {
			return nil, true, errSubfolder(path, name)
		}
		if !st.Mode().IsRegular() {
			return nil, true, pathErr(path, fmt.Errorf("holds %s, which is not a regular file (a FIFO, a device): a side's files are read by ranges, more than once", name))
		}
		files = append(files, full)
	}
	slices.Sort(files)
	if len(files) == 0 {
		return nil, true, errEmptyFolder(path)
	}
	return files, true, sameFormat(path, files, given)
}

// skipped reports whether a folder's or a glob's file of this name is left
// out: a hidden one, or one that Spark and Hive write beside the parts
// (_SUCCESS, _temporary/).
func skipped(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

// errNoMatch, errSubfolder and errEmptyFolder are Files' refusals, of a
// local path and of a URL alike.
func errNoMatch(path string) error {
	return pathErr(path, fmt.Errorf("no file matches it: %w", ErrNoFiles))
}

func errSubfolder(path, name string) error {
	return pathErr(path, fmt.Errorf("holds the folder %s, and a side's folder is read one level deep: give its files (a glob such as '%s/*/*')", name, strings.TrimSuffix(path, "/")))
}

func errEmptyFolder(path string) error {
	return pathErr(path, fmt.Errorf("an empty folder (hidden and _-prefixed files are left out): %w", ErrNoFiles))
}

// sameFormat refuses files of two formats, or CSV files of two separators
// (.csv and .tsv: csvscan.SepFor), by their names, as one side.
func sameFormat(path string, files []string, given string) error {
	if given != "" {
		return nil
	}
	first, err := columnar.FormatOf(files[0], "")
	if err != nil {
		return err
	}
	for _, f := range files[1:] {
		ff, err := columnar.FormatOf(f, "")
		if err != nil {
			return err
		}
		if ff != first {
			return pathErr(path, fmt.Errorf("holds files of two formats, %s (%s) and %s (%s): a side's files are of one format", filepath.Base(files[0]), first, filepath.Base(f), ff))
		}
		if ff == columnar.CSV && csvscan.SepFor(f) != csvscan.SepFor(files[0]) {
			return pathErr(path, fmt.Errorf("holds files of two separators, %s and %s (by their names): a side's files are read with one", filepath.Base(files[0]), filepath.Base(f)))
		}
	}
	return nil
}

// pathErr is err about the side's path (a *fs.PathError: join.FileError
// makes it the option's error).
func pathErr(path string, err error) error {
	return &fs.PathError{Op: "read", Path: path, Err: err}
}

// remoteFiles is Files of a URL (remote.Is): a glob's matches, a file, or
// the files under a folder-like prefix (path + "/"), by the rules of a
// local folder's. An object store has no folders: a URL that names no
// file but is a prefix of some is taken for one.
func remoteFiles(path, given string) ([]string, bool, error) {
	ctx := context.Background()
	if IsPattern(path) {
		all, err := remote.List(ctx, path)
		if err != nil {
			return nil, true, pathErr(path, err)
		}
		matches := slices.DeleteFunc(all, func(m string) bool { return skipped(pathpkg.Base(m)) })
		slices.Sort(matches)
		if len(matches) == 0 {
			return nil, true, errNoMatch(path)
		}
		return matches, true, sameFormat(path, matches, given)
	}
	if _, err := remote.Stat(ctx, path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return []string{path}, false, nil // a file; or an error its reader reports
	}
	prefix := strings.TrimSuffix(path, "/") + "/"
	all, err := remote.List(ctx, prefix)
	if err != nil {
		return nil, true, pathErr(path, err)
	}
	if len(all) == 0 {
		return []string{path}, false, nil // no such file: its reader says so
	}
	var files []string
	for _, f := range all { // by the first name under the prefix: _temporary/... is left out
		rest := strings.TrimPrefix(f, prefix)
		first, _, sub := strings.Cut(rest, "/")
		if skipped(first) {
			continue
		}
		if sub {
			return nil, true, errSubfolder(path, first)
		}
		files = append(files, f)
	}
	slices.Sort(files)
	if len(files) == 0 {
		return nil, true, errEmptyFolder(path)
	}
	return files, true, sameFormat(path, files, given)
}
