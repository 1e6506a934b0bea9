package local

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// lockCPUClock locks the calling goroutine to its OS thread and returns a
// clock of that thread's CPU time (CLOCK_THREAD_CPUTIME_ID) and the unlock
// to call when the timing is done. Filter auto times its sample's parse,
// its builds and its probes with it: on a machine shared with other work,
// a wall clock counts the time the thread waited for a core (builds of
// 1,500 keys were timed at 20 to 50 times their cost now and then), the
// thread's CPU time only what it ran. The wall clock if the system refuses
// the thread's clock.
func lockCPUClock() (now func() time.Duration, unlock func()) {
	runtime.LockOSThread()
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		start := time.Now()
		return func() time.Duration { return time.Since(start) }, runtime.UnlockOSThread
	}
	return func() time.Duration {
		unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
		return time.Duration(ts.Nano())
	}, runtime.UnlockOSThread
}
