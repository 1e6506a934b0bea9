package local

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// readFilterFile reads and checks the filter file at path (join.ReadFilter),
// which may be "-" (standard input), a pipe or a FIFO: opening it gives up
// when ctx ends. It also returns the name messages use for it.
func readFilterFile(ctx context.Context, path string) (*join.FilterFile, string, error) {
	f, name, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return nil, path, join.FileError("FilterFile", path, err)
	}
	defer f.Close()
	ff, err := join.ReadFilter(f, name)
	if err != nil && ctx.Err() != nil {
		return nil, name, ctx.Err()
	}
	return ff, name, err
}

// KeySet is a key side's distinct join keys (ReadKeySet) and how they
// compare.
type KeySet struct {
	// Keys are the distinct keys, in no order (integer keys packed 8 bytes
	// each).
	Keys keylist.List
	// KeyType is the key's type, one a column ("int,string"): as given, or
	// decided from the data (Options.KeyType auto); Why says how, a
	// column each.
	KeyType key.Type
	Why     []string
	// Null counts the rows whose key is NULL, Unmatchable those whose key
	// is no value of an inferred type: no key, as a join leaves them out.
	Null, Unmatchable int64
}

// ReadKeySet returns the distinct join keys of the key side of opt (Keys,
// KeyCol, KeyType; Mappers goroutines), as the build phase reads and
// dedups them (keyCollector, mergeKeys: parts of the keys' hashes, no
// lock a key), for building a filter file. Before, a map of strings shared
// by the goroutines' merges took 30 s and 1.5 GB for 10^7 keys. O(rows),
// parallel; memory about 8 bytes a key row of an integer key.
func ReadKeySet(ctx context.Context, opt join.Options) (*KeySet, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return nil, err
	}
	s, err := source.OpenKeySide(ctx, source.Options{Option: "Keys", Path: opt.Keys, Name: opt.KeysName, Parts: opt.Mappers, Sep: join.SideSep(opt.KeysSep, opt.Sep), Format: opt.KeysFormat, TempDir: opt.TempDir},
		opt.KeyCols, opt.KeyTypes, opt.Mappers)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	type state struct {
		keys   *keyCollector
		cannot keyCounts
	}
	var mu sync.Mutex
	var cols []*keyCollector
	var cannot keyCounts
	err = source.Scan(ctx, s.Side, opt.Mappers, func() *state { return &state{keys: &keyCollector{}} }, func(st *state, r source.RowReader) error {
		var kb []byte
		for r.Next() {
			k, v, err := rowKey(kb[:0], r, s.Spec, s.Typing.Lenient)
			if err != nil {
				return r.Errorf("%w", err)
			}
			if v != keyOK {
				st.cannot.add(v)
				continue
			}
			kb = k
			h1, _ := hashing.Sum(k)
			st.keys.add(k, h1)
		}
		return r.Err()
	}, func(st *state) error {
		mu.Lock()
		cols = append(cols, st.keys)
		cannot.null += st.cannot.null
		cannot.unmatchable += st.cannot.unmatchable
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	keys, _, err := mergeKeys(ctx, cols, opt.Mappers, false)
	if err != nil {
		return nil, err
	}
	return &KeySet{Keys: keys, KeyType: key.JoinTypes(s.Typing.Types), Why: s.Typing.Why, Null: cannot.null, Unmatchable: cannot.unmatchable}, nil
}

// BuiltFilterFile is what WriteFilterFile wrote: the filter, the key
// column and type the file records, and the key side's KeySet counts.
type BuiltFilterFile struct {
	Filter  *filters.Built
	KeyCol  string
	KeyType key.Type
	Keys    *KeySet
}

// WriteFilterFile builds the filter of the key side of opt (ReadKeySet;
// Filter and Sizing) and writes it to w as a filter file (join.WriteFilter)
// that a join with the same key reads as its FilterFile: the key column
// and type are recorded as such a join resolves them. Cost: ReadKeySet's
// and the filter's build; memory the distinct keys and the filter.
func WriteFilterFile(ctx context.Context, opt join.Options, w io.Writer) (*BuiltFilterFile, error) {
	if err := CheckFilterFile(opt); err != nil {
		return nil, err
	}
	opt, err := opt.Resolve() // the defaults of Filter and KeyCol
	if err != nil {
		return nil, err
	}
	ks, err := ReadKeySet(ctx, opt)
	if err != nil {
		return nil, err
	}
	b, err := filters.BuildList(opt.Filter, ks.Keys, opt.Sizing)
	if err != nil {
		return nil, err
	}
	kc, kt, err := key.Canonical(opt.KeyCol, ks.KeyType) // as the join that reads it resolves them
	if err != nil {
		return nil, err
	}
	if err := join.WriteFilter(w, b, kc, kt); err != nil {
		return nil, err
	}
	return &BuiltFilterFile{Filter: b, KeyCol: kc, KeyType: kt, Keys: ks}, nil
}

// CheckFilterFile refuses the options of opt that a filter file cannot
// hold, before any work (WriteFilterFile checks it first): the per-column
// layout.
func CheckFilterFile(opt join.Options) error {
	if opt.Layout == join.LayoutPerColumn {
		return &option.Error{Pkg: "join", Name: "Layout", Value: opt.Layout, Err: join.ErrOptions,
			Reason: "filter files hold composite filters (the per-column layout is for a join)"}
	}
	return nil
}

// WriteText writes what f is, as build-filter prints it: the file's name
// (path), the filter, how the key type was decided and the rows left out.
func (f *BuiltFilterFile) WriteText(w io.Writer, path string) {
	b := f.Filter
	fmt.Fprintf(w, "wrote %s: %s filter of %d %s keys, %d bytes, formula FP %.3g\n", path, b.Spell(), b.N, f.KeyType, b.SerializedBytes, b.FPP)
	for _, why := range f.Keys.Why {
		fmt.Fprintf(w, "key type: %s\n", why)
	}
	if f.Keys.Null+f.Keys.Unmatchable > 0 {
		fmt.Fprintf(w, "left out: %d rows of a NULL key, %d of a key that is no %s\n", f.Keys.Null, f.Keys.Unmatchable, f.KeyType)
	}
}
