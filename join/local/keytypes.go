package local

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

// keyTyping is how a join's keys compare, decided before either side is
// read (decideKeyTypes: key.Decide's rules).
type keyTyping = key.Decision

// decideKeyTypes settles the key types of a join of keys (key columns ks)
// and input (columns js; nil for the commands that read only a key side)
// by key.Decide's rules, given types (Options.KeyTypes): a type given is
// kept, else a Parquet or Arrow column's type, else the key side's text
// decides, read once here (inferText; a stream must have been saved to a
// file: spoolToInfer).
// DecideKeyTypes decides how the keys of the join opt compare, as Run
// decides (Options.KeyType; auto: a Parquet or Arrow column's type, else
// the key side's text, read for it), without running the join: for an
// executor that reads the sides itself (beam). Cost: both sides' headers,
// and the key side's key column when its type is inferred.
func DecideKeyTypes(ctx context.Context, opt join.Options) (key.Decision, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return key.Decision{}, err
	}
	x, err := start(ctx, opt)
	if err != nil {
		return key.Decision{}, err
	}
	defer x.close()
	return x.typing, nil
}

// keyedSide is a side and its key columns.
type keyedSide struct {
	side *side
	spec key.Spec
}

// decideKeyTypes decides the key's types (key.Decide) from the types
// given, the key side's columns and the large side's (input.side nil: none),
// inferring a text column's type from its values with mappers workers.
func decideKeyTypes(ctx context.Context, given []key.Type, keys, input keyedSide, mappers int) (keyTyping, error) {
	var in []key.Source
	if input.side != nil {
		in = input.side.sources(input.spec)
	}
	d, err := key.Decide(given, keys.side.sources(keys.spec), in, func(cols []int) ([]key.Evidence, error) {
		return inferText(ctx, keys.side, keys.spec, cols, mappers)
	})
	return d, option.Within(err, "join", join.ErrOptions)
}

// sources are the key columns ks of the side as key.Decide takes them.
func (s *side) sources(ks key.Spec) []key.Source {
	out := make([]key.Source, len(ks.Cols))
	for j, c := range ks.Cols {
		out[j] = key.Source{File: s.name, Column: ks.Names[j]}
		if s.typed(c) {
			t := s.types[c]
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
// integer. Rows that do not parse are left to the build, which reports
// them. O(the side's bytes), one scan with mappers goroutines.
func inferText(ctx context.Context, s *side, ks key.Spec, infer []int, mappers int) ([]key.Evidence, error) {
	if !s.reopenable() {
		return nil, fmt.Errorf("%s: inferring the key type reads the key side before the join does, and it is a stream (a bug: it should have been saved to a file)", s.name)
	}
	pass, err := openSide(ctx, sideOptions{option: "Keys", path: s.path, name: s.name, parts: mappers, skipBad: true, sep: s.sep, format: string(columnar.CSV)})
	if err != nil {
		return nil, err
	}
	defer pass.close()
	pass.bad = &badRows{} // the build reports them
	type first struct {
		at    int64 // the offset of the first non-canonical field, -1 none
		value string
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
	err = scan(ctx, pass, mappers, func() *state {
		st := &state{firsts: make([]first, len(infer)), n: make([]int64, len(infer))}
		for i := range st.firsts {
			st.firsts[i].at = -1
		}
		return st
	}, func(st *state, rr rowReader) error {
		see := func(i int, f []byte, at int64) {
			if len(f) == 0 {
				return // NULL
			}
			st.n[i]++
			if st.firsts[i].at < 0 && !key.CanonicalInt(f) { // else one was found already in this worker's parts (read in order)
				st.firsts[i] = first{at, string(f)}
			}
		}
		r := rr.(*csvscan.Reader)
		if len(infer) == 1 {
			// One column: its field alone, in batches, as the map phase
			// reads a join column (the others are not split).
			var b csvscan.Batch
			for r.NextBatch(ks.Cols[infer[0]], mapBatch, &b) {
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
		if line := csvscan.LineAt(s.path, f.at); line > 0 {
			out[i].At = fmt.Sprintf("line %d", line)
		} else {
			out[i].At = fmt.Sprintf("the record at byte %d", f.at)
		}
	}
	return out, nil
}

// keyVerdict is what a row's key is: a key, a NULL, or no value of the
// key type (lenient typing).
type keyVerdict uint8

const (
	keyOK keyVerdict = iota
	keyNull
	keyUnmatchable
)

// rowKey makes the key (ks) of r's current row into dst. A NULL in a key
// column (nullKey, under every key type) is keyNull; with lenient typing a
// key that is no value of its type is keyUnmatchable; else a key that does
// not parse is an error (the caller's: keyError, rowError).
func rowKey(dst []byte, r rowReader, ks key.Spec, lenient bool) ([]byte, keyVerdict, error) {
	if nullKey(r, ks) {
		return dst, keyNull, nil
	}
	k, err := ks.Append(dst, r.Fields())
	if err != nil {
		if key.Unmatchable(err, lenient) {
			return dst, keyUnmatchable, nil
		}
		return dst, keyOK, err
	}
	return k, keyOK, nil
}

// nullKey reports whether r's current row has a NULL in a key column of
// ks (key.Spec.IsNull: a table's NULL, a CSV side's empty field).
func nullKey(r rowReader, ks key.Spec) bool {
	return ks.IsNull(key.NullsOf(r), r.Fields())
}

// keyCounts counts a side's rows whose key cannot match.
type keyCounts struct {
	null, unmatchable int64
}

func (c *keyCounts) add(v keyVerdict) {
	if v == keyNull {
		c.null++
	} else {
		c.unmatchable++
	}
}

// keySide is a key side opened alone (ReadKeySet, ScanClasses: the
// commands that build from keys without a join), with its key columns and
// their decided types (decideKeyTypes, with no other side).
type keySide struct {
	*side
	ks      key.Spec
	typing  keyTyping
	spooled string
}

// openKeySide opens the key side o and finds its key columns cols of
// types (key.Auto decided from the data); close releases it.
func openKeySide(ctx context.Context, o sideOptions, cols []string, types []key.Type, mappers int) (_ *keySide, err error) {
	k := &keySide{}
	defer func() {
		if err != nil {
			k.close()
		}
	}()
	if k.spooled, err = spoolToInfer(ctx, &o, types); err != nil {
		return nil, err
	}
	if k.side, err = openSide(ctx, o); err != nil {
		return nil, err
	}
	if k.ks, err = k.keySpec("KeyCol", cols, types); err != nil {
		return nil, err
	}
	if err := k.refuseNested(k.ks.Cols, true); err != nil {
		return nil, err
	}
	k.skipNested() // the keys alone are read (a class column is checked by its reader)
	if k.typing, err = decideKeyTypes(ctx, types, keyedSide{k.side, k.ks}, keyedSide{}, mappers); err != nil {
		return nil, err
	}
	k.ks.Types, k.ks.Wide = k.typing.Types, k.typing.KeysWide
	return k, nil
}

func (k *keySide) close() {
	if k.side != nil {
		k.side.close()
	}
	if k.spooled != "" {
		os.Remove(k.spooled)
	}
}
