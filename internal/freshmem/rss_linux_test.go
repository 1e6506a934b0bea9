package freshmem

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// rss is the process's resident memory in bytes (/proc/self/statm).
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestTableIsResident: a Table's memory is resident when Table returns
// (written in order), where make's fresh memory is not until touched.
// make is the control: if its memory comes back resident too (memory the
// process had touched before), the measure tells nothing, and the test
// says so and stops.
func TestTableIsResident(t *testing.T) {
	const size = 64 << 20
	runtime.GC()
	debug.FreeOSMemory()
	r0 := rss(t)
	control := make([]byte, size)
	r1 := rss(t)
	if r1-r0 > size/2 {
		t.Skipf("make's fresh 64 MiB came back resident (%d bytes more): nothing to compare", r1-r0)
	}
	table := Table[byte](size)
	r2 := rss(t)
	if r2-r1 < size*9/10 {
		t.Fatalf("Table's 64 MiB added %d resident bytes; make's %d", r2-r1, r1-r0)
	}
	runtime.KeepAlive(control)
	runtime.KeepAlive(table)
}
