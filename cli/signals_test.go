package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
