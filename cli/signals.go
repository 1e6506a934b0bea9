package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// StopSignals end a run: the context is cancelled, every phase stops, and
// temporary, spill and unfinished output files are removed before the exit
// status 128+signal.
//
// SIGPIPE is not among them: Signals ignores it, so that a closed pipe on
// standard output (join run ... | head) gives EPIPE to the write, the run
// fails and cleans up, and the caller exits 141 without a message
// (ReaderLeft), instead of the process being killed with its files left
// behind. It was a stop signal until a flaky test in CI showed that a
// socket's peer closing under a write raises it too: an S3 server refusing
// an upload with 403 and closing the connection under the request's body
// stopped beamjoin with 141 and no message, where the SDK retries the
// write and reports the 403.
var StopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// ReaderLeft reports whether err is a write's EPIPE on a file or pipe (the
// reader of standard output or of a FIFO left: the run stops quietly with
// SIGPIPE's status), not on a network connection, whose broken pipe is an
// error to report.
func ReaderLeft(err error) bool {
	var ne *net.OpError
	return errors.Is(err, syscall.EPIPE) && !errors.As(err, &ne)
}

// Grace is how long a stopped run has to clean up before the process
// exits anyway (a blocked system call).
const Grace = 10 * time.Second

// graceExit ends the process after Grace; the package's tests, whose
// signals stop no run, replace it (the test binary exited 10 s after
// TestSignals' SIGHUP, failing whatever ran then).
var graceExit = os.Exit

// Signals returns a context that a stop signal cancels with a SignalError
// as its cause. Later signals (a double Ctrl-C, SIGINT then SIGTERM) are
// ignored so that the cleanup finishes; should the run not stop within
// Grace, the process exits with 128+signal, saying so on standard error as
// prog.
func Signals(prog string) context.Context {
	ctx, _ := SignalsStop(prog)
	return ctx
}

// SignalsStop is Signals, and a function that stops the run as SIGPIPE
// would have when given an error for which ReaderLeft holds (for
// FirstError.OnError on standard output: `join compare ... | head` stops
// at its first failed write, not at the end of a run whose writes are
// dropped). Other errors it leaves alone.
func SignalsStop(prog string) (context.Context, func(error)) {
	ctx, cancel := signals(prog)
	return ctx, func(err error) {
		if ReaderLeft(err) {
			cancel(SignalError{syscall.SIGPIPE})
		}
	}
}

func signals(prog string) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	signal.Ignore(syscall.SIGPIPE) // writes get EPIPE (StopSignals)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, StopSignals...)
	go func() {
		sig := SignalError{(<-sigs).(syscall.Signal)}
		cancel(sig)
		grace := time.After(Grace)
		for {
			select {
			case <-sigs:
				continue
			case <-grace:
			}
			break
		}
		fmt.Fprintf(os.Stderr, "%s: did not stop within %v of %v; exiting (join clean removes what is left)\n", prog, Grace, sig)
		graceExit(128 + int(sig.Sig))
	}()
	return ctx, cancel
}

// SignalError is the cause of a run stopped by a signal.
type SignalError struct{ Sig syscall.Signal }

func (s SignalError) Error() string {
	switch s.Sig {
	case syscall.SIGINT:
		return "SIGINT (interrupted)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP (the terminal closed)"
	case syscall.SIGPIPE:
		return "SIGPIPE (the reader of the output left)"
	}
	return s.Sig.String()
}

// FirstError is a writer that keeps the first error of W and writes
// nothing after it (a report lost to a full disk or a closed pipe must
// fail the run; pprof drops its write errors).
type FirstError struct {
	W   io.Writer
	Err error
	// OnError, if not nil, is called with the first error.
	OnError func(error)
}

func (e *FirstError) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	if err != nil && e.OnError != nil {
		e.OnError(err)
	}
	return n, err
}
