package local

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// TestCancelEveryPhase: a context cancelled during any phase (the build, the
// broadcast right after it, the map, the reduce, the sort's merge) stops Run
// with the context's error, and no spill or sort file is left. How soon is
// logged, not judged (a verdict must not follow the machine's speed: it
// stops within milliseconds here, but a loaded machine may take longer); a
// Run that never returns fails by the test's timeout. The CLI turns SIGINT
// and SIGTERM into this cancellation (cmd/internal/app/faults_test.go).
func TestCancelEveryPhase(t *testing.T) {
	gen := nbertest.Generate(t, testutil.RaceSize(0.01, 0.004), 1000, 3) // under -race, 66,000 citations: every phase still reports progress
	keys := gen.Keys
	for _, tc := range []struct {
		name  string
		phase string
		atEnd bool // cancel at the phase's last progress call rather than its first
	}{
		{"build", "build", false},
		{"broadcast", "build", true},
		{"map", "map", false},
		{"reduce", "reduce", false},
		{"sort", "sort", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			var cancelled time.Time
			opt := join.Options{
				Sides:        join.Sides{Keys: keys, Input: gen.Cite},
				FilterChoice: join.FilterChoice{Filter: filters.None},
				Output:       join.Output{Sort: true},
				Resources: join.Resources{Mappers: 2, Reducers: 2, MemBudget: shuffle.MinBudget(2, 2), TempDir: tmp, Progress: func(phase string, done, total int64) {
					if phase == tc.phase && (!tc.atEnd || done >= total) {
						once.Do(func() { cancelled = time.Now(); cancel() })
					}
				}},
			}
			_, err := Run(ctx, opt, NewCSV(io.Discard))
			took := time.Since(cancelled)
			if cancelled.IsZero() {
				t.Fatalf("phase %s never reported progress (err %v)", tc.phase, err)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run after cancelling in %s: %v, want context.Canceled", tc.name, err)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("%d entries left in the temporary folder", len(ents))
			}
			t.Logf("%s: stopped %v after the cancellation", tc.name, took)
		})
	}
}
