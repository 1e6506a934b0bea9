//go:build !linux

package local

import "time"

// lockCPUClock is the wall clock where the thread's CPU clock is not used
// (see cpuclock_linux.go).
func lockCPUClock() (now func() time.Duration, unlock func()) {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }, func() {}
}
