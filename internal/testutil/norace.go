//go:build !race

package testutil

// Race reports whether the test binary was built with the race detector
// (go test -race). CI's race phase (.ci/run) runs after a phase that runs
// every test at full size without it, so under Race a test need only be as
// large as it takes to exercise each goroutine interaction it has; see
// SkipUnderRace and RaceSize.
const Race = false
