//go:build !linux

package atomicfile

// replace puts the finished temporary file tmp in target's place: a
// rename (replace_linux.go swaps an existing target instead).
func replace(tmp, target string) error { return rename(tmp, target) }
