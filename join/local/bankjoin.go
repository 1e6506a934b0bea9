package local

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// bankPlan is a bank join's share of an execution: the bank, the classes
// chosen, and the key file's class column.
type bankPlan struct {
	b        *bank.Bank
	classes  []*bank.Class  // chosen, in bank order
	index    map[string]int // label -> index in classes
	classIdx int            // the key file's class column
	sets     []*classKeys   // each chosen class's distinct keys, as the build read them
}

// ReadBank reads a bank file ("-" for standard input), giving up when ctx
// ends.
func ReadBank(ctx context.Context, path string) (*bank.Bank, error) {
	f, name, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return nil, join.FileError("Bank", path, err)
	}
	defer f.Close()
	b, err := bank.Read(f, name)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return b, err
}

// withBank reads opt.Bank and fills in what the bank decides (the kind,
// the key column and type), refusing settings that contradict it; it
// returns the bank and the chosen classes.
func withBank(ctx context.Context, opt join.Options) (join.Options, *bankPlan, error) {
	if opt.Bank == "" {
		return opt, nil, nil
	}
	b, err := ReadBank(ctx, opt.Bank)
	if err != nil {
		return opt, nil, err
	}
	for _, c := range []struct {
		name      string
		opt, bank string
		set       func(string)
	}{
		{"Filter", string(opt.Filter), string(b.Kind), func(v string) { opt.Filter = filters.Kind(v) }},
	} {
		switch {
		case c.opt == "":
			c.set(c.bank)
		case c.opt != c.bank:
			return opt, nil, bankOption(c.name, c.opt, opt.Bank, c.bank)
		}
	}
	// The key: the bank's unless given; given, the same as the bank's once
	// both are written alike (key.Canonical).
	bkc, bkt, err := key.Canonical(b.KeyCol, key.Type(b.KeyType))
	if err != nil {
		return opt, nil, fmt.Errorf("%s: %w", opt.Bank, err)
	}
	if opt.KeyCol != "" {
		cols, err := key.SplitColumns(opt.KeyCol)
		if err != nil || key.JoinColumns(cols) != bkc {
			return opt, nil, bankOption("KeyCol", opt.KeyCol, opt.Bank, b.KeyCol)
		}
	}
	given := opt.KeyType
	if given == key.Auto {
		given = "" // the bank's type is the data's: it was decided when the bank was built
	}
	kc, kt, err := key.Canonical(bkc, cmp.Or(given, bkt))
	if err != nil {
		return opt, nil, err
	}
	if kt != bkt {
		return opt, nil, bankOption("KeyType", opt.KeyType, opt.Bank, b.KeyType)
	}
	opt.KeyCol, opt.KeyType = kc, kt
	classes, err := b.Select(opt.Classes)
	if err != nil {
		return opt, nil, fmt.Errorf("%s: %w", opt.Bank, err)
	}
	if opt.Route == join.RouteDir && len(classes) > 1<<16 {
		return opt, nil, &option.Error{Pkg: "join", Name: "Route", Value: opt.Route, Reason: fmt.Sprintf("routing %d classes, at most %d", len(classes), 1<<16), Err: join.ErrOptions}
	}
	p := &bankPlan{b: b, classes: classes, index: map[string]int{}}
	for i, c := range classes {
		p.index[c.Label] = i
	}
	return opt, p, nil
}

// bankOption is the error of an option that contradicts the bank's.
func bankOption(name string, value any, bank, built string) error {
	return &option.Error{Pkg: "join", Name: name, Value: value, Reason: fmt.Sprintf("the bank %s was built with %s (leave it out)", bank, built), Err: join.ErrOptions}
}

// Labels returns the labels of the classes a bank join of opt routes rows
// to, in the order NewRouted's sinks take them: the bank's order of
// opt.Classes (all the bank's classes if none).
func Labels(b *bank.Bank, classes []string) ([]string, error) {
	cs, err := b.Select(classes)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Label
	}
	return out, nil
}

// routeRow adds the class of a key-side record for Route: a last field
// (RouteColumn) or a 2-byte class index before the row (RouteDir, which
// routedSink strips). rec's bytes are the last of buf; the returned record
// points into the returned buf.
func routeRow(rec shuffle.Record, buf []byte, route join.Route, label string, idx int, tmp []byte) (shuffle.Record, []byte, []byte) {
	klen := len(rec.Key)
	start := len(buf) - klen - len(rec.Row)
	switch route {
	case join.RouteColumn:
		if len(rec.Row) > 0 {
			buf = append(buf, ',')
		}
		buf = csvscan.AppendField(buf, []byte(label))
	case join.RouteDir:
		tmp = append(tmp[:0], rec.Row...)
		buf = binary.BigEndian.AppendUint16(buf[:start+klen], uint16(idx))
		buf = append(buf, tmp...)
	default:
		return rec, buf, tmp
	}
	rec.Key, rec.Row = buf[start:start+klen], buf[start+klen:]
	return rec, buf, tmp
}

// check refuses a bank whose chosen classes do not hold the key file's
// keys of those classes (count and fingerprint): its filters would drop
// rows that match.
func (p *bankPlan) check(name string) error {
	for i, c := range p.classes {
		keys := p.sets[i].Keys()
		if len(keys) != c.Built.N || filters.KeysFingerprint(keys) != c.Built.KeysFingerprint {
			return fmt.Errorf("%s: %w: class %q holds %d distinct keys in the bank, the key file %d (or other keys): the bank was built from another file; rebuild it with join bank build, or apply the moves with join bank update",
				name, bank.ErrBank, c.Label, c.Built.N, len(keys))
		}
	}
	return nil
}

// routedSink hands the rows of each class of a RouteDir bank join to that
// class's sink: the key-side row of a routed join starts with its class's
// 2-byte index (routeRow), which it strips.
type routedSink struct {
	labels []string
	sinks  []Sink
}

// NewRouted returns a Sink for a bank join with Route RouteDir: the rows of
// class labels[i] go to sinks[i] (labels as Labels returns them). With
// Options.Sort, Run sorts each class's rows on its own.
func NewRouted(labels []string, sinks []Sink) Sink {
	return &routedSink{labels: slices.Clone(labels), sinks: slices.Clone(sinks)}
}

func (s *routedSink) Begin(h join.Header) error {
	for _, in := range s.sinks {
		if err := in.Begin(h); err != nil {
			return err
		}
	}
	return nil
}

func (s *routedSink) Writer() RowWriter {
	return &routedWriter{s: s, ws: make([]RowWriter, len(s.sinks))}
}

func (s *routedSink) Finish(ctx context.Context) error {
	for _, in := range s.sinks {
		if err := in.Finish(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (s *routedSink) Close() error {
	var first error
	for _, in := range s.sinks {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// sortEach puts an external sort in front of each class's sink, sharing
// budget among them.
func (s *routedSink) sortEach(tempDir string, budget int64, writers int) {
	for i, in := range s.sinks {
		s.sinks[i] = newSorted(in, tempDir, max(budget/int64(len(s.sinks)), 1<<20), writers)
	}
}

type routedWriter struct {
	s  *routedSink
	ws []RowWriter // made on first use
}

func (w *routedWriter) Write(key []byte, seq, small int64, largeRow, smallRow []byte) error {
	if len(smallRow) < 2 {
		return fmt.Errorf("join: internal error: a routed row without its class")
	}
	i := int(binary.BigEndian.Uint16(smallRow))
	if i >= len(w.ws) {
		return fmt.Errorf("join: internal error: class index %d of %d", i, len(w.ws))
	}
	if w.ws[i] == nil {
		w.ws[i] = w.s.sinks[i].Writer()
	}
	return w.ws[i].Write(key, seq, small, largeRow, smallRow[2:])
}

func (w *routedWriter) Flush() error {
	for _, rw := range w.ws {
		if rw != nil {
			if err := rw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}
