//go:build !linux

package hugeheap

// Advise does nothing but on Linux: transparent huge pages are Linux's.
func Advise(limit int64) Result {
	return Result{Why: "transparent huge pages are Linux's"}
}
