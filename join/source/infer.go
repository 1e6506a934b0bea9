package source

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// Keyed is a side and its key columns.
type Keyed struct {
	Side *Side
	Spec key.Spec
}

// DecideTypes decides the key's types (key.Decide) from the types
// given, the key side's columns and the large side's (input.side nil: none),
// inferring a text column's type from its values with mappers workers.
func DecideTypes(ctx context.Context, given []key.Type, keys, input Keyed, mappers int) (key.Decision, error) {
	return decideTypes(given, keys, input, func(cols []int) ([]key.Evidence, error) {
		return inferText(ctx, keys.Side, keys.Spec, cols, mappers)
	})
}

// decideTypes is DecideTypes with the evidence of text columns from infer.
func decideTypes(given []key.Type, keys, input Keyed, infer func(cols []int) ([]key.Evidence, error)) (key.Decision, error) {
	var in []key.Source
	if input.Side != nil {
		in = input.Side.Sources(input.Spec)
	}
	d, err := key.Decide(given, keys.Side.Sources(keys.Spec), in, infer)
	return d, option.Within(err, "join", join.ErrOptions)
}

// Sources are the key columns ks of the side as key.Decide takes them.
func (s *Side) Sources(ks key.Spec) []key.Source { return KeySources(s.Name, s.Types, ks) }

// KeySources are the key columns ks of a side named name, whose columns
// have types (nil: CSV, untyped), as key.Decide takes them: for an engine
// that opens its sides itself (join/stream). O(key columns).
func KeySources(name string, types []columnar.Type, ks key.Spec) []key.Source {
	out := make([]key.Source, len(ks.Cols))
	for j, c := range ks.Cols {
		out[j] = key.Source{File: name, Column: ks.Names[j]}
		if types != nil && types[c].Typed() {
			t := types[c]
			out[j].DataType = t.String()
			out[j].KeyType, _ = t.KeyType()
			out[j].Wide = t.Wide()
		}
	}
	return out
}

// inferText reads the key columns infer (indexes into ks) of the key side
// s, opened anew (a regular file), and returns their key.Evidence: the
// first non-empty field (by position in the file) that is no canonical
// integer. Rows that do not parse are skipped, left to the build, which
// reports them. O(the side's bytes), one scan with mappers goroutines, in
// four parts each (a goroutine slowed by other work leaves its last part
// to the others).
//
// The pass is cut into parts as s was (Options.SkipBad): where the join
// stops at the first malformed row, also by the parity of quotes, so that
// a file whose lines all hold quotes (the NBER patents quote their text
// fields) is read in parallel, not as one part. A malformed row can then
// put the cuts after it off the records, and the evidence read past it
// wrong, but the build meets that row first (its parts are cut the same
// way) and fails there whatever the type decided.
func inferText(ctx context.Context, s *Side, ks key.Spec, infer []int, mappers int) ([]key.Evidence, error) {
	if !s.Reopenable() {
		return nil, fmt.Errorf("%s: inferring the key type reads the key side before the join does, and it is a stream (a bug: it should have been saved to a file)", s.Name)
	}
	pass, err := Open(ctx, Options{Option: "Keys", Path: s.Path, Name: s.Name, Parts: 4 * mappers, Taper: true, SkipBad: s.skipBad, Sep: s.Sep, Format: string(columnar.CSV)})
	if err != nil {
		return nil, err
	}
	defer pass.Close()
	inferParts(len(pass.In.Ranges()))
	pass.Bad = &BadRows{} // the build reports them
	type first struct {
		at    int64 // the place in the side of the first non-canonical field, -1 none (csvscan.Reader.SeqBase + its offset)
		value string
		file  string // the file it is in, and its offset there
		off   int64
	}
	type state struct {
		firsts []first
		n      []int64
	}
	var mu sync.Mutex
	total := make([]first, len(infer))
	for i := range total {
		total[i].at = -1
	}
	keys := make([]int64, len(infer))
	err = Scan(ctx, pass, mappers, func() *state {
		st := &state{firsts: make([]first, len(infer)), n: make([]int64, len(infer))}
		for i := range st.firsts {
			st.firsts[i].at = -1
		}
		return st
	}, func(st *state, rr RowReader) error {
		r := rr.(*csvscan.Reader)
		see := func(i int, f []byte, off int64) {
			if len(f) == 0 {
				return // NULL
			}
			st.n[i]++
			if st.firsts[i].at < 0 && !key.CanonicalInt(f) { // else one was found already in this worker's parts (read in order)
				st.firsts[i] = first{r.SeqBase() + off, string(f), r.Name(), off}
			}
		}
		if len(infer) == 1 {
			// One column: its field alone, in batches, as the map phase
			// reads a join column (the others are not split).
			var b csvscan.Batch
			for r.NextBatch(ks.Cols[infer[0]], inferBatch, &b) {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				for i := range b.Len() {
					see(0, b.Field(i), b.Offset(i))
				}
			}
			return r.Err()
		}
		for n := 1; r.Next(); n++ {
			if n%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			fields := r.Fields()
			for i, j := range infer {
				see(i, fields[ks.Cols[j]], r.Offset())
			}
		}
		return r.Err()
	}, func(st *state) error {
		mu.Lock()
		defer mu.Unlock()
		for i, f := range st.firsts {
			keys[i] += st.n[i]
			if f.at >= 0 && (total[i].at < 0 || f.at < total[i].at) {
				total[i] = f
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]key.Evidence, len(infer))
	for i := range infer {
		out[i].Keys = keys[i]
		f := total[i]
		if f.at < 0 {
			continue
		}
		out[i].Found, out[i].Value = true, f.value
		path, where := s.Path, ""
		if s.many { // a side of many files: the line of the file the field is in
			path, where = f.file, " of "+f.file
		}
		if line := csvscan.LineAt(path, f.off); line > 0 {
			out[i].At = fmt.Sprintf("line %d%s", line, where)
		} else {
			out[i].At = fmt.Sprintf("the record at byte %d%s", f.off, where)
		}
	}
	return out, nil
}

// inferParts is told how many parts inferText's pass was cut into (a
// test's hook).
var inferParts = func(int) {}

// KeySide is a key side opened alone (ReadKeySet, ScanClasses: the
// commands that build from keys without a join), with its key columns and
// their decided types (decideKeyTypes, with no other side).
type KeySide struct {
	*Side
	Spec    key.Spec
	Typing  key.Decision
	spooled string
}

// OpenKeySide opens the key side o and finds its key columns cols of
// types (key.Auto decided from the data); close releases it.
func OpenKeySide(ctx context.Context, o Options, cols []string, types []key.Type, mappers int) (_ *KeySide, err error) {
	k := &KeySide{}
	defer func() {
		if err != nil {
			k.Close()
		}
	}()
	if k.spooled, err = SpoolToInfer(ctx, &o, types); err != nil {
		return nil, err
	}
	if k.Side, err = Open(ctx, o); err != nil {
		return nil, err
	}
	if k.Spec, err = k.KeySpec("KeyCol", cols, types); err != nil {
		return nil, err
	}
	if err := k.RefuseNested(k.Spec.Cols, true); err != nil {
		return nil, err
	}
	k.SkipNested() // the keys alone are read (a class column is checked by its reader)
	if k.Typing, err = DecideTypes(ctx, types, Keyed{k.Side, k.Spec}, Keyed{}, mappers); err != nil {
		return nil, err
	}
	k.Spec.Types, k.Spec.Wide = k.Typing.Types, k.Typing.KeysWide
	return k, nil
}

func (k *KeySide) Close() {
	if k.Side != nil {
		k.Side.Close()
	}
	if k.spooled != "" {
		os.Remove(k.spooled)
	}
}

// inferBatch is the records a batch of the inference's scan (the map
// phase's batch); checkEvery is how many records a loop reads between two
// looks at its context.
const (
	inferBatch = 256
	checkEvery = 1 << 14
)
