package app

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestPlainProgress (issue 46): without a terminal, progress is a line
// now and then: none for a run shorter than plainAfter, then one every
// plainEvery, each with the phase, how far, the rate and the time left
// (bytes for build and map, records for reduce). A fake clock: no test
// waits.
func TestPlainProgress(t *testing.T) {
	var out bytes.Buffer
	b := newPlain(&out)
	clock := time.Unix(0, 0)
	b.plain.now, b.plain.after = func() time.Time { return clock }, 5*time.Second
	step := func(phase string, done, total int64) {
		b.update(phase, done, total)
		clock = clock.Add(time.Second)
	}
	for s := range 3 { // a short phase: nothing printed
		step("build", int64(s)<<20, 3<<20)
	}
	if out.Len() != 0 {
		t.Fatalf("a run of 3 s printed %q", out.String())
	}
	for s := range 30 {
		step("map", int64(s)*(100<<20), 3000<<20)
	}
	for s := range 12 {
		step("reduce", int64(s)*1000, 12000)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"join: map: 200.0 MiB of 2.9 GiB (7%), 100.0 MiB/s, 28 s left", // the run's 5th second
		"join: map: 1.2 GiB of 2.9 GiB (40%), 100.0 MiB/s, 18 s left",
		"join: map: 2.1 GiB of 2.9 GiB (73%), 100.0 MiB/s, 8 s left",
		"join: reduce: 2000 of 12000 records (17%), 1000 records/s, 10 s left", // 10 s after the last
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// A stream's unknown total: no percentage, no time left.
	out.Reset()
	b = newPlain(&out)
	b.plain.now, b.plain.after = func() time.Time { return clock }, 5*time.Second
	b.update("map", 0, -1)
	clock = clock.Add(6 * time.Second)
	b.update("map", 6<<20, -1)
	if got := strings.TrimSpace(out.String()); got != "join: map: 6.0 MiB, 1.0 MiB/s" {
		t.Errorf("a stream: %q", got)
	}
	if _, _, err := runCmd("run", "--keys", "k", "--input", "i", "--progress", "bars"); err == nil || !strings.Contains(err.Error(), `--progress "bars": want bar, plain or none`) {
		t.Errorf("--progress bars: %v", err)
	}
}
