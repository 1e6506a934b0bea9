package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests' signals stop no run: Grace's exit would end the test binary.
func init() { graceExit = func(int) {} }

// TestSignals: a stop signal cancels the context with the signal as its
// cause, and the process goes on (to clean up).
func TestSignals(t *testing.T) {
	ctx := Signals("test")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGHUP did not cancel the context")
	}
	var se SignalError
	if !errors.As(context.Cause(ctx), &se) || se.Sig != syscall.SIGHUP || se.Error() != "SIGHUP (the terminal closed)" {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
}

type failing struct{ n int }

func (f *failing) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestFirstError(t *testing.T) {
	var b strings.Builder
	w := &FirstError{W: &b}
	w.Write([]byte("ok"))
	if w.Err != nil || b.String() != "ok" {
		t.Fatal(w.Err, b.String())
	}
	f := &failing{}
	w = &FirstError{W: f}
	w.Write([]byte("a"))
	w.Write([]byte("b"))
	if w.Err == nil || f.n != 1 {
		t.Fatalf("%v after %d writes", w.Err, f.n)
	}
}

// TestSocketEPIPE: a socket whose peer closed under a write raises SIGPIPE
// (an S3 server refusing an upload and closing the connection under its
// body): the write fails, the run is not stopped (the caller reports the
// error; the SDK retries it), and ReaderLeft tells it from the reader of
// standard output leaving. Before, SIGPIPE was a stop signal: the context
// was cancelled and beamjoin exited 141 with no message.
func TestSocketEPIPE(t *testing.T) {
	ctx := Signals("test")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Read(make([]byte, 1))       // the client is connected
			c.(*net.TCPConn).SetLinger(0) // close with a reset: the next writes fail
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<16)
	// The first write after the peer's reset fails with ECONNRESET, the
	// next ones with EPIPE, which is when the kernel raises SIGPIPE.
	var werr error
	for i := 0; i < 1000 && !errors.Is(werr, syscall.EPIPE); i++ {
		_, werr = c.Write(buf)
		if werr == nil {
			time.Sleep(time.Millisecond)
		}
	}
	if !errors.Is(werr, syscall.EPIPE) {
		t.Fatalf("writes to a closed peer: %v, not EPIPE", werr)
	}
	t.Logf("the write's error: %v", werr)
	select {
	case <-ctx.Done():
		t.Fatalf("a socket's broken pipe stopped the run: %v", context.Cause(ctx))
	case <-time.After(200 * time.Millisecond):
	}
	if ReaderLeft(werr) {
		t.Errorf("ReaderLeft(%v): a network error taken for the output's reader leaving", werr)
	}
	pipe := &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	if !ReaderLeft(pipe) || !ReaderLeft(fmt.Errorf("the report: %w", pipe)) {
		t.Errorf("ReaderLeft(%v) = false", pipe)
	}
	if ReaderLeft(errors.New("disk full")) || ReaderLeft(nil) {
		t.Error("ReaderLeft of another error")
	}
}

// TestStdoutEPIPE: with Signals' SIGPIPE ignored, a write to a pipe whose
// reader left returns EPIPE, which ReaderLeft recognizes, and the process
// lives on to clean up.
func TestStdoutEPIPE(t *testing.T) {
	Signals("test")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	_, err = w.Write([]byte("x"))
	w.Close()
	if !ReaderLeft(err) {
		t.Fatalf("a write to a pipe without a reader: %v, not ReaderLeft", err)
	}
}

// TestSignalsStop: the stop function cancels the run as SIGPIPE did when
// the reader of standard output left (FirstError.OnError), once, and leaves
// it alone for another error, a network one included.
func TestSignalsStop(t *testing.T) {
	ctx, stop := SignalsStop("test")
	stop(errors.New("disk full"))
	stop(&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)})
	if ctx.Err() != nil {
		t.Fatalf("stopped by another error: %v", context.Cause(ctx))
	}
	calls := 0
	w := &FirstError{W: failingWith{&os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}}, OnError: func(err error) { calls++; stop(err) }}
	w.Write([]byte("a"))
	w.Write([]byte("b"))
	var se SignalError
	if !errors.As(context.Cause(ctx), &se) || se.Sig != syscall.SIGPIPE {
		t.Fatalf("the reader left: cause %v", context.Cause(ctx))
	}
	if calls != 1 {
		t.Errorf("OnError called %d times, want once", calls)
	}
}

type failingWith struct{ err error }

func (f failingWith) Write([]byte) (int, error) { return 0, f.err }
