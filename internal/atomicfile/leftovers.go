package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Leftover is an entry of a folder named with TempPrefix (a spill, sort or
// spool file or folder, ".acbfjoin-PID-...tmp" an unfinished output): the
// process that made it, and whether that process still runs.
type Leftover struct {
	Path    string
	PID     int
	Running bool
}

// Leftovers lists the entries of dir made by this program's processes
// (TempPrefix), running or not; an output's temporary name (a leading
// dot) only where it is a regular file. Removing those whose process is gone is
// safe: no run reads them again. O(entries).
func Leftovers(dir string) ([]Leftover, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Leftover
	for _, e := range ents {
		pid, ok := leftoverPID(e.Name())
		if !ok {
			continue
		}
		if strings.HasPrefix(e.Name(), ".") && !e.Type().IsRegular() {
			// An output's temporary name is only ever a regular file of
			// ours; anything else there is what a run killed inside its
			// Commit swapped out of the output's place (a folder put
			// there meanwhile: replace), the user's, not to remove.
			continue
		}
		out = append(out, Leftover{Path: filepath.Join(dir, e.Name()), PID: pid, Running: processRuns(pid)})
	}
	return out, nil
}

// Dead sums the leftovers of dir whose process is gone (the ones that
// removing frees): how many, and the bytes of their regular files, the room
// they take for nothing. A dir that cannot be read has none.
func Dead(dir string) (n int, size int64) {
	ls, _ := Leftovers(dir)
	for _, l := range ls {
		if l.Running {
			continue
		}
		n++
		filepath.WalkDir(l.Path, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					size += info.Size()
				}
			}
			return nil
		})
	}
	return n, size
}

// leftoverPID parses the process id from a name made with TempPrefix.
func leftoverPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(name, "."), "acbfjoin-")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, ok && err == nil && pid > 0
}

// processRuns reports whether a process with this id exists (signal 0
// checks without sending anything; EPERM means it exists under another
// user).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
