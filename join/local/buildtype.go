package local

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

// A key type that the key side's text decides (KeyType auto, CSV) was
// inferred by a pass over the key side of its own before the build read
// it again: at 10^7 keys a fifth of the build. Where nothing before the
// build depends on the type, the build decides it instead (deferring): it
// reads as if the keys were integers, checking each as inference does
// (key.CanonicalInt), and counts them; if every one is, the count makes
// the same decision and reason that pass would have (source.Pair.Settle);
// at the first that is not, it stops, the pass runs as before and the key
// side is read again. A side whose keys are text then costs the rows read
// before the first non-integer once more; one whose only non-integers come
// late costs up to a second build.

// errNotCanonical stops a build that met a key that is no canonical
// integer in a column whose type was deferred.
var errNotCanonical = errors.New("join: a key that is no canonical integer, its type deferred")

// deferring reports whether the join opt decides an inferred key type in
// its build: nothing before the build reads the type there. Not with
// Skew auto (its sample encodes the large side's keys before the build),
// nor Filter auto (its sample of the large side is read while the build
// runs, its keys encoded by the type), nor a bank join (its bank is checked against the type), nor a join
// that writes before its reduce (left, right, full, semi and anti begin
// their output, typed by the key, before the build; right and full write
// the key rows whose key cannot match in it).
var deferring = func(opt join.Options) bool {
	return opt.JoinType == join.JoinInner && opt.Skew != join.SkewAuto && opt.Filter != join.FilterAuto && opt.Bank == ""
}

// inferring is a build's checks of the deferred key columns: each value
// must be a canonical integer; the non-empty ones are counted.
type inferring struct {
	cols   []int // the row's columns checked
	cancel context.CancelFunc
	failed atomic.Bool
	mu     sync.Mutex
	n      []int64 // the finished workers' counts
}

// newInferring checks the deferred columns (indexes into ks.Cols) and
// stops the build's read with cancel at the first value that fails.
func newInferring(ks key.Spec, deferred []int, cancel context.CancelFunc) *inferring {
	inf := &inferring{cancel: cancel, n: make([]int64, len(deferred))}
	for _, j := range deferred {
		inf.cols = append(inf.cols, ks.Cols[j])
	}
	return inf
}

// see checks a row's values of the deferred columns and counts the
// non-empty ones in b; false (the read stopped) at one that is no
// canonical integer.
func (inf *inferring) see(b *buildWorker, fields [][]byte) bool {
	if b.inferN == nil {
		b.inferN = ownLines[int64](len(inf.cols)) // counted at every row
	}
	for i, c := range inf.cols {
		f := fields[c]
		if len(f) == 0 {
			continue // NULL
		}
		b.inferN[i]++
		if !key.CanonicalInt(f) {
			inf.failed.Store(true)
			inf.cancel()
			return false
		}
	}
	return true
}

// add adds a finished worker's counts.
func (inf *inferring) add(n []int64) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for i, c := range n {
		inf.n[i] += c
	}
}

// evidence is what the read found of each deferred column: its non-empty
// values, every one a canonical integer.
func (inf *inferring) evidence() []key.Evidence {
	ev := make([]key.Evidence, len(inf.n))
	for i, n := range inf.n {
		ev[i].Keys = n
	}
	return ev
}

// settleTypes decides the deferred key types from the build's evidence.
func (x *execution) settleTypes(ctx context.Context, ev []key.Evidence) error {
	if err := x.pair.Settle(ctx, ev); err != nil {
		return err
	}
	x.takeTypes()
	return nil
}

// retype, after a build stopped at a key that is no canonical integer,
// infers the deferred key types by a pass over the key side, and readies
// the execution to build again: the key side opened anew, an empty
// shuffle, no bad rows counted.
func (x *execution) retype(ctx context.Context) error {
	x.sh.Close()
	var err error
	if x.sh, err = x.newShuffle(); err != nil {
		return err
	}
	if err := x.pair.Settle(ctx, nil); err != nil {
		return err
	}
	x.keys = x.pair.Keys
	x.takeTypes()
	if x.bad != nil {
		x.bad = &source.BadRows{}
		x.keys.Bad, x.input.Bad = x.bad, x.bad
	}
	return nil
}
