package local

import (
	"os"
	"path/filepath"
	"strings"
)

// GoMemLimit is the soft memory limit (debug.SetMemoryLimit) that keeps a
// run with Options.MemBudget mem near it: the budget, plus the key side
// (the file keys), which the build and the reduce hold in maps (about
// three times its CSV bytes; a .gz or .zip file is taken as a quarter of
// its content), plus 32 MiB for buffers and the collector's headroom.
// docs/design.md has the measurements behind the numbers. A key side that
// cannot be stat'ed (a stream) counts as none.
func GoMemLimit(mem int64, keys string) int64 {
	var keyBytes int64
	if st, err := os.Stat(keys); err == nil && st.Mode().IsRegular() {
		keyBytes = st.Size()
		if ext := strings.ToLower(filepath.Ext(keys)); ext == ".gz" || ext == ".zip" {
			keyBytes *= 4
		}
	}
	return mem + 3*keyBytes + 32<<20
}
