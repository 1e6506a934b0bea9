package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// replace puts the finished temporary file tmp in target's place. An
// existing target is swapped with tmp (renameat2 RENAME_EXCHANGE, one
// atomic step as rename is: target names the old file or the new one,
// never neither) and the old file, now at tmp, is removed. A plain rename
// over an existing file makes ext4 start writing the new file's blocks
// out before it returns (its auto_da_alloc heuristic for programs that
// replace files without fsync): 15-20 ms of the NBER join's 30 MB output,
// 5% of the whole run (issue 43, Intel Xeon), and more the larger the
// output. Neither way syncs; the output is as durable as any write(2).
//
// A target that is gone or not a regular file (looked at first), a file
// system without the exchange (EINVAL), or another kind of file put at
// target in the instant between the look and the swap (a folder: swapped
// back, then the rename refuses it as it always did; killed in between,
// it stays under the temporary name, which Leftovers and so `join clean`
// leave alone) take the plain rename. It costs two system calls more than
// the rename. On every error but the
// last (the old file left at tmp) nothing was replaced and tmp is gone.
func replace(tmp, target string) error {
	if st, err := os.Lstat(target); err != nil || !st.Mode().IsRegular() {
		return rename(tmp, target) // nothing there, or not a regular file: no swap
	}
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE); err != nil {
		return rename(tmp, target)
	}
	st, err := os.Lstat(tmp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // what was swapped out is gone already (removed by another)
	}
	if err != nil || !st.Mode().IsRegular() {
		// Not a regular file that was replaced: put it back.
		if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE); err != nil {
			// Nothing is removed: tmp holds what was at target.
			return fmt.Errorf("swapped with %s, which is not a regular file, and could not swap back: %w", tmp, err)
		}
		return rename(tmp, target)
	}
	if err := os.Remove(tmp); err != nil {
		return fmt.Errorf("written, but the file it replaced is left at %s: %w", tmp, err)
	}
	return nil
}
