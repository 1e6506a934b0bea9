// Package atomicfile writes a file so that it appears only when complete.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write creates path through a temporary file in the same folder (mode 0644),
// filled by write and renamed into place only if write and the close succeed.
// On any error the temporary file is removed and path is untouched. A rename in
// one folder is atomic on POSIX file systems.
func Write(path string, write func(*os.File) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o644); err != nil { // CreateTemp makes 0600 files
		return err
	}
	if err = write(f); err != nil {
		return err // the callback's errors say what failed
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
