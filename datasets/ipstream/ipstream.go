package ipstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// File names and headers Generate writes.
const (
	ProbeFile    = "ipstream.csv"
	EventsFile   = "ipstream.events"
	ProbeHeader  = "IP,SEQ"
	EventsHeader = "IP,SINCE"
)

// Sizes and bounds.
const (
	DefaultRows = 1_000_000 // probe rows when none are asked for
	DefaultZipf = 1.1       // the Zipf exponent s when none is asked for
	MaxRows     = 1 << 40   // far beyond any experiment: 2^40 rows is 25 TB
	MaxEvents   = 1 << 40
	MaxDistinct = 1 << 32 // every IPv4 address
	MaxZipf     = 100     // beyond it rank 1 takes all but 2^-100 of the draws
)

const ctxEvery = 1 << 14 // rows between checks of the context

// DefaultDistinct is the domain size D for rows probe rows: max(1, rows/10).
func DefaultDistinct(rows int64) int64 { return max(1, rows/10) }

// DefaultEvents is the number of events for rows probe rows: max(1, rows/10).
func DefaultEvents(rows int64) int64 { return max(1, rows/10) }

// DefaultLive is the live set's target size L for a domain of distinct
// addresses: max(1, distinct/20).
func DefaultLive(distinct int64) int64 { return max(1, distinct/20) }

// Options configures Write and Generate. Every field is used as it is (no
// zero means a default): Defaults fills them in for a number of rows.
type Options struct {
	Rows     int64   // probe rows N, 0..MaxRows
	Zipf     float64 // the exponent s of the probe addresses' Zipf law, 0 < s <= MaxZipf
	Distinct int64   // the domain's addresses D, 1..MaxDistinct
	Events   int64   // key events E, 0..MaxEvents
	Live     int64   // the live set's target L, 1..Distinct
	Seed     uint64
}

// Defaults returns the Options for rows probe rows with every other size at
// its default (DefaultZipf, DefaultDistinct, DefaultEvents, DefaultLive) and
// seed.
func Defaults(rows int64, seed uint64) Options {
	d := DefaultDistinct(rows)
	return Options{Rows: rows, Zipf: DefaultZipf, Distinct: d, Events: DefaultEvents(rows), Live: DefaultLive(d), Seed: seed}
}

// ErrOption is wrapped by every OptionError.
var ErrOption = errors.New("ipstream: invalid option")

// OptionError reports an Options field out of its range: Field is the
// field's name ("Rows", "Zipf", "Distinct", "Events", "Live"), Value its
// value and Want the range, so that a caller can name its own flag.
type OptionError struct {
	Field, Value, Want string
}

func (e *OptionError) Error() string {
	return "ipstream: " + e.Field + " " + e.Value + ": want " + e.Want
}

func (e *OptionError) Unwrap() error { return ErrOption }

// Check reports the first field out of range as an *OptionError.
func (o Options) Check() error {
	bad := func(field string, v any, want string) error {
		return &OptionError{Field: field, Value: fmt.Sprint(v), Want: want}
	}
	switch {
	case o.Rows < 0 || o.Rows > MaxRows:
		return bad("Rows", o.Rows, fmt.Sprintf("0..%d", int64(MaxRows)))
	case !(o.Zipf > 0 && o.Zipf <= MaxZipf): // NaN too
		return bad("Zipf", o.Zipf, fmt.Sprintf("an exponent s with 0 < s <= %d", MaxZipf))
	case o.Distinct < 1 || o.Distinct > MaxDistinct:
		return bad("Distinct", o.Distinct, fmt.Sprintf("1..%d addresses", int64(MaxDistinct)))
	case o.Events < 0 || o.Events > MaxEvents:
		return bad("Events", o.Events, fmt.Sprintf("0..%d", int64(MaxEvents)))
	case o.Live < 1 || o.Live > o.Distinct:
		return bad("Live", o.Live, fmt.Sprintf("1..%d (the domain's addresses)", o.Distinct))
	}
	return nil
}

// Probe is the probe stream of Options: the file's addresses in order. Not
// safe for concurrent use.
type Probe struct {
	dom  *Domain
	zipf *Zipf
}

// NewProbe returns the probe addresses of opt (whose Zipf and Distinct must
// be valid; Write checks them).
func NewProbe(opt Options) *Probe {
	size := uint64(opt.Distinct)
	return &Probe{
		dom:  NewDomain(opt.Seed, size),
		zipf: NewZipf(rand.New(rand.NewPCG(opt.Seed, streamProbe)), opt.Zipf, size),
	}
}

// Next returns the next probe address.
func (p *Probe) Next() uint32 { return p.dom.Addr(uint32(p.zipf.Next() - 1)) }

// Domain returns the probe's domain.
func (p *Probe) Domain() *Domain { return p.dom }

// newWriter returns w buffered by 256 KiB.
func newWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 256<<10) }

// room makes sure bw has n bytes free, so that appending a line to its
// AvailableBuffer does not allocate.
func room(bw *bufio.Writer, n int) error {
	if bw.Available() < n {
		return bw.Flush()
	}
	return nil
}

// WriteProbe writes the probe file of opt (ProbeHeader, then Rows lines
// "a.b.c.d,SEQ") to w. The same Options give the same bytes. O(Rows) time,
// constant memory, no allocation per row; it checks ctx every 16,384 rows.
// On an error w holds a prefix of the file.
func WriteProbe(ctx context.Context, w io.Writer, opt Options) error {
	if err := opt.Check(); err != nil {
		return err
	}
	p := NewProbe(opt)
	bw := newWriter(w)
	if _, err := bw.WriteString(ProbeHeader + "\n"); err != nil {
		return fmt.Errorf("ipstream: %w", err)
	}
	for seq := int64(1); seq <= opt.Rows; seq++ {
		if seq%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("ipstream: %w", err)
			}
		}
		if err := room(bw, 64); err != nil {
			return fmt.Errorf("ipstream: %w", err)
		}
		buf := AppendAddr(bw.AvailableBuffer(), p.Next())
		buf = append(strconv.AppendInt(append(buf, ','), seq, 10), '\n')
		bw.Write(buf) // cannot fail: it fits in the buffer
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ipstream: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ipstream: %w", err)
	}
	return nil
}

// EventStats describes the events written.
type EventStats struct {
	Inserts, Deletes int64
	FinalLive        int64 // live addresses after the last event
	MaxLive          int64 // the most live addresses at once
}

// WriteEvents writes the events file of opt (EventsHeader, then Events
// lines "+a.b.c.d,SINCE" or "-a.b.c.d") to w. The same Options give the same
// bytes. O(Events) time, the live set's memory (see liveSet); it checks ctx
// every 16,384 events. On an error w holds a prefix of the file.
func WriteEvents(ctx context.Context, w io.Writer, opt Options) (EventStats, error) {
	var st EventStats
	if err := opt.Check(); err != nil {
		return st, err
	}
	walk := NewWalk(opt)
	bw := newWriter(w)
	if _, err := bw.WriteString(EventsHeader + "\n"); err != nil {
		return st, fmt.Errorf("ipstream: %w", err)
	}
	for i := int64(1); i <= opt.Events; i++ {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return st, fmt.Errorf("ipstream: %w", err)
			}
		}
		if err := room(bw, 64); err != nil {
			return st, fmt.Errorf("ipstream: %w", err)
		}
		e := walk.Next()
		buf := bw.AvailableBuffer()
		if e.Insert {
			st.Inserts++
			buf = AppendAddr(append(buf, '+'), e.Addr)
			buf = strconv.AppendInt(append(buf, ','), e.Since, 10)
		} else {
			st.Deletes++
			buf = AppendAddr(append(buf, '-'), e.Addr)
		}
		bw.Write(append(buf, '\n'))
		st.MaxLive = max(st.MaxLive, walk.Live())
	}
	st.FinalLive = walk.Live()
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("ipstream: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("ipstream: %w", err)
	}
	return st, nil
}

// Result describes what Generate wrote.
type Result struct {
	ProbePath, EventsPath string
	EventStats
	Elapsed time.Duration
}

// Generate writes dir/ipstream.csv (WriteProbe) and dir/ipstream.events
// (WriteEvents), the two at once on two goroutines, making dir if needed.
// The files appear only when both are complete: each is written under a
// temporary name in dir and renamed over its path (package atomicfile), so
// an existing file there is replaced only by a complete new one; on an
// error, or when ctx ends, nothing is left (a folder made here is removed).
// Concurrent calls must use different folders.
func Generate(ctx context.Context, dir string, opt Options) (Result, error) {
	start := time.Now()
	if err := opt.Check(); err != nil {
		return Result{}, err
	}
	if dir == "" {
		return Result{}, errors.New("ipstream: empty folder name")
	}
	out, err := atomicfile.MakeDir(dir)
	if err != nil {
		return Result{}, fmt.Errorf("ipstream: %w", err)
	}
	res := Result{ProbePath: filepath.Join(dir, ProbeFile), EventsPath: filepath.Join(dir, EventsFile)}
	var probe, events *atomicfile.File
	fail := func(err error) (Result, error) {
		atomicfile.AbortAll(probe, events)
		out.Undo()
		return Result{}, err
	}
	if probe, err = atomicfile.Create(ctx, res.ProbePath, atomicfile.Options{}); err != nil {
		return fail(fmt.Errorf("ipstream: %s: %w", res.ProbePath, err))
	}
	if events, err = atomicfile.Create(ctx, res.EventsPath, atomicfile.Options{}); err != nil {
		return fail(fmt.Errorf("ipstream: %s: %w", res.EventsPath, err))
	}
	// The events run beside the probe rows: a tenth of their work by
	// default, on the second core. Cancelling ctx stops both.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		var err error
		res.EventStats, err = WriteEvents(ctx, events, opt)
		if err != nil {
			cancel()
		}
		done <- err
	}()
	perr := WriteProbe(ctx, probe, opt)
	if perr != nil {
		cancel()
	}
	eerr := <-done
	// The error to report: the probe's, unless it is only the cancellation
	// the events' failure caused.
	if err := perr; err != nil || eerr != nil {
		if err == nil || errors.Is(err, context.Canceled) && eerr != nil && !errors.Is(eerr, context.Canceled) {
			err = eerr
		}
		return fail(err)
	}
	for _, f := range []*atomicfile.File{probe, events} {
		if err := f.Commit(); err != nil {
			return fail(fmt.Errorf("ipstream: %s: %w", f.Path, err))
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}
