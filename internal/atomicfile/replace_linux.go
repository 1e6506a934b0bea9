package atomicfile

import (
	"fmt"
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
// A target that is gone, a file system without the exchange (EINVAL), or
// another kind of file put at target since Create (a folder: swapped back,
// then the rename refuses it as it always did) take the plain rename. It
// costs one system call more than the rename. On every error but the
// last (the old file left at tmp) nothing was replaced and tmp is gone.
func replace(tmp, target string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE); err != nil {
		return rename(tmp, target)
	}
	if st, err := os.Lstat(tmp); err != nil || !st.Mode().IsRegular() {
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
