package hugeheap

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAdviseMarksRegion: advise's region is a mapping of its own whose
// VmFlags carry "hg" (MADV_HUGEPAGE), whatever the kernel's mode (the
// flag is the mapping's; the mode decides whether the kernel uses it).
func TestAdviseMarksRegion(t *testing.T) {
	const page = 2 << 20
	lo, err := advise(4*page, page)
	if sysfs("enabled") == "" { // a kernel without transparent huge pages refuses the advice
		if err == nil {
			t.Fatal("MADV_HUGEPAGE taken by a kernel without transparent huge pages")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if lo%page != 0 {
		t.Fatalf("region at %#x is not huge-page aligned", lo)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	in := false
	for s.Scan() {
		line := s.Text()
		if a, b, ok := vmaRange(line); ok {
			in = a <= lo && lo+4*page <= b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line, " hg") {
				t.Fatalf("the region's mapping has %q, no hg", line)
			}
			return
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping holds the region %#x..%#x whole", lo, lo+4*page)
}

// vmaRange parses smaps' "start-end perms ..." header line.
func vmaRange(line string) (lo, hi uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 || strings.HasSuffix(f[0], ":") {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(f[0], "-")
	if !ok {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(x), uintptr(y), true
}

// TestAdviseRefuses: with the switch off nothing is marked, and Why
// names the switch.
func TestAdviseRefuses(t *testing.T) {
	t.Setenv(Env, "off")
	if r := Advise(64 << 20); r.Bytes != 0 || !strings.Contains(r.Why, "off") {
		t.Fatalf("Advise with %s=off: %+v", Env, r)
	}
	t.Setenv(Env, "maybe")
	if w := Warning(); !strings.Contains(w, `"maybe"`) {
		t.Fatalf("Warning for maybe: %q", w)
	}
}
