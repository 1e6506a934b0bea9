package app

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/join"
)

// TestTuneGC: a small key side is built with the collector off, turned
// back on (GOGC's setting, or 50 under --mem) when the first phase after
// the build and auto's decision starts, the progress of the bars still
// reported; a large key side, or one read from a stream, keeps the
// collector on throughout. A small key side's collector comes back on
// at its first collection (gcFloor), the soft limit with it. The
// process's settings are put back after.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	dir := t.TempDir()
	small := filepath.Join(dir, "small.csv")
	large := filepath.Join(dir, "large.csv")
	if err := os.WriteFile(small, []byte("k\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(large, []byte("k\n"+strings.Repeat("123456789\n", 1<<20)), 0o644); err != nil { // 10 MiB
		t.Fatal(err)
	}
	pct := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	for _, c := range []struct {
		keys      string
		mem       int64
		off       bool // during the build
		afterward int
	}{
		{small, 0, true, 100},
		{small, 64 << 20, true, 50},
		{large, 64 << 20, false, 50},  // 10 MiB > 64 MiB / 8
		{large, 0, true, 100},         // 10 MiB <= 256 MiB / 8
		{"/dev/stdin", 0, false, 100}, // a stream: its size is unknown
	} {
		debug.SetGCPercent(100)
		var phases []string
		opt := join.Options{Sides: join.Sides{Keys: c.keys}, Resources: join.Resources{MemBudget: c.mem,
			Progress: func(phase string, _, _ int64) { phases = append(phases, phase) }}}
		var j joinFlags
		j.tuneGC(&opt)
		if got := pct() == -1; got != c.off {
			t.Errorf("%s, mem %d: collector off during the build %v, want %v", filepath.Base(c.keys), c.mem, got, c.off)
		}
		opt.Progress("build", 0, 1)
		opt.Progress("auto", 0, 1)
		if got := pct() == -1; got != c.off {
			t.Errorf("%s, mem %d: collector off through auto %v, want %v", filepath.Base(c.keys), c.mem, got, c.off)
		}
		limit := debug.SetMemoryLimit(-1)
		opt.Progress("map", 0, 1)
		if floor := debug.SetMemoryLimit(-1); c.off && pct() == -1 { // gcFloor: off until the first collection, under a soft limit of the floor or more
			if floor < min(gcFloorBytes, limit/4) || floor >= limit {
				t.Errorf("%s, mem %d: off under a soft limit of %d as the map phase starts, want one of %d to %d", filepath.Base(c.keys), c.mem, floor, min(gcFloorBytes, limit/4), limit)
			}
			runtime.GC() // the finalizer puts the limit back, and GOGC at least as set
			for start := time.Now(); pct() == -1 && time.Since(start) < 10*time.Second; {
				runtime.GC()
				time.Sleep(time.Millisecond)
			}
			if got := pct(); got < c.afterward {
				t.Errorf("%s, mem %d: GOGC %d after the floor's collection, want at least %d", filepath.Base(c.keys), c.mem, got, c.afterward)
			}
			// The next collection puts GOGC back (floorPercent held it
			// up to the floor).
			for start := time.Now(); pct() != c.afterward && time.Since(start) < 10*time.Second; {
				runtime.GC()
				time.Sleep(time.Millisecond)
			}
		} // else the process's memory was over the floor's cap already: on at once
		if got := debug.SetMemoryLimit(-1); got != limit {
			t.Errorf("%s, mem %d: a soft limit of %d in the map phase, want %d", filepath.Base(c.keys), c.mem, got, limit)
		}
		if got := pct(); got != c.afterward {
			t.Errorf("%s, mem %d: GOGC %d in the map phase, want %d", filepath.Base(c.keys), c.mem, got, c.afterward)
		}
		if strings.Join(phases, ",") != "build,auto,map" {
			t.Errorf("%s: the bars saw %v", filepath.Base(c.keys), phases)
		}
	}
}

// TestTuneGCTwice: two runs in one process, the first's floor never
// reached (no collection, so its finalizer has not run when the second
// starts): the second takes GOGC as the process had it, not the first
// run's "off", has a floor of its own, and once collected has GOGC and its
// own soft limit back; the first's finalizer, run late, changes nothing.
// (A review: the second run read GOGC as off and ran without a collector
// under its whole soft limit.)
func TestTuneGCTwice(t *testing.T) {
	small, pct := gcTestSetup(t)
	run := func(mem int64) (gogc int, limit, runLimit int64) {
		opt := join.Options{Sides: join.Sides{Keys: small}, Resources: join.Resources{MemBudget: mem}}
		var j joinFlags
		j.tuneGC(&opt)
		runLimit = debug.SetMemoryLimit(-1)
		opt.Progress("build", 0, 1)
		opt.Progress("map", 0, 1) // the floor
		return pct(), debug.SetMemoryLimit(-1), runLimit
	}
	// Budgets of GiBs: the floor, at least the process's memory (the
	// package's other tests leave a few hundred MB), is below their soft
	// limits.
	g1, l1, run1 := run(2 << 30)
	g2, l2, run2 := run(4 << 30)
	if g1 != -1 || g2 != -1 || l1 >= run1 || l2 >= run2 {
		t.Fatalf("the map phases: GOGC %d and %d, soft limits %d and %d; want off under floors below %d and %d", g1, g2, l1, l2, run1, run2)
	}
	for start := time.Now(); pct() == -1 && time.Since(start) < 10*time.Second; {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	// The first run's finalizer too, if it came later, and the second's
	// next collection (floorPercent held GOGC up until it).
	for start := time.Now(); pct() != 50 && time.Since(start) < 10*time.Second; {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got, lim := pct(), debug.SetMemoryLimit(-1); got != 50 || lim != run2 {
		t.Errorf("after the collections: GOGC %d, soft limit %d; want the second run's 50 and %d", got, lim, run2)
	}
}

// TestTuneGCRace: a run's floor collected while the next run is being
// tuned never leaves the next run's build with the collector on or under
// the first run's soft limit (a review: the finalizer checked the run and
// set the settings apart, and a tuneGC between them lost; about 4 in
// 20,000 pairs). Run with -race too.
func TestTuneGCRace(t *testing.T) {
	small, pct := gcTestSetup(t)
	pairs := 500 // a guard: the review's interleaving came about 4 times in 20,000
	if testing.Short() {
		pairs = 100
	}
	for i := range pairs {
		optA := join.Options{Sides: join.Sides{Keys: small}, Resources: join.Resources{MemBudget: 4 << 30}}
		new(joinFlags).tuneGC(&optA)
		optA.Progress("map", 0, 1) // A's floor
		done := make(chan struct{})
		go func() { runtime.GC(); close(done) }()
		optB := join.Options{Sides: join.Sides{Keys: small}, Resources: join.Resources{MemBudget: 1 << 30}}
		new(joinFlags).tuneGC(&optB) // B's build: off under B's limit
		limB := debug.SetMemoryLimit(-1)
		<-done
		runtime.GC() // A's finalizer, queued or run
		time.Sleep(50 * time.Microsecond)
		if lim, p := debug.SetMemoryLimit(-1), pct(); lim != limB || p != -1 {
			t.Fatalf("pair %d: B's build under a soft limit of %d, GOGC %d; want B's %d, off", i, lim, p, limB)
		}
	}
}

// gcTestSetup is the setup of the tests of runs in one process: the
// process's GOGC and soft limit put back after the test, a small key
// file, and the GOGC in force.
func gcTestSetup(t *testing.T) (small string, pct func() int) {
	t.Cleanup(func(gogc int, limit int64) func() {
		return func() { debug.SetGCPercent(gogc); debug.SetMemoryLimit(limit) }
	}(debug.SetGCPercent(100), debug.SetMemoryLimit(-1)))
	small = filepath.Join(t.TempDir(), "small.csv")
	if err := os.WriteFile(small, []byte("k\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return small, func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
}

// TestPercentFor: the GOGC after the floor's collection lets the heap grow
// to the floor less the memory outside its spans, and no less than 0
// where that is reached already.
func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live, total, heap int64
		want                     int
	}{
		{32 * mib, 8 * mib, 33 * mib, 25 * mib, 200}, // a goal of 24 MiB over 8 live
		{32 * mib, 11 * mib, 30 * mib, 20 * mib, 100},
		{32 * mib, 20 * mib, 40 * mib, 20 * mib, 0}, // the rest of the memory takes the floor
		{32 * mib, 0, 10 * mib, 0, 0},
	} {
		if got := percentFor(c.floor, c.live, c.total, c.heap); got != c.want {
			t.Errorf("percentFor(%d, %d, %d, %d) = %d, want %d", c.floor, c.live, c.total, c.heap, got, c.want)
		}
	}
}

// TestHeapGrows: the heap goes on huge pages for a key side of 4 MiB
// (a packed one counted at twelve times its size) or a compressed or
// columnar large side of 1 MiB; not for small key sides with a large
// side of plain text, however large, nor for a side of unknown size (a
// stream, a missing file).
func TestHeapGrows(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, n int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(n); err != nil { // sparse: only the size is read
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	smallKeys := file("keys.csv", 1000)
	bigKeys := file("big.csv", 4<<20)
	packedKeys := file("keys.parquet", 400<<10) // 4.7 MiB at twelve times
	text := file("cite.csv", 1<<30)
	pq := file("cite.parquet", 1<<20)
	smallPq := file("small.parquet", 1<<20-1)
	for _, c := range []struct {
		keys, input string
		want        bool
	}{
		{smallKeys, text, false},
		{smallKeys, smallPq, false},
		{bigKeys, smallPq, true},
		{packedKeys, text, true},
		{smallKeys, pq, true},
		{smallKeys, "-", false},
		{"-", text, false},
		{bigKeys, "-", false},
		{smallKeys, filepath.Join(dir, "missing.csv"), false}, // the run's open says what is wrong
	} {
		if got := heapGrows(&join.Options{Sides: join.Sides{Keys: c.keys, Input: c.input}}); got != c.want {
			t.Errorf("heapGrows(%s, %s) = %v, want %v", filepath.Base(c.keys), filepath.Base(c.input), got, c.want)
		}
	}
}
