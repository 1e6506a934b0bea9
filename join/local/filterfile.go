package local

import (
	"context"
	"sync"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
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
	Keys [][]byte
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
// KeyCol, KeyType; Mappers goroutines), as the build phase reads them, for
// building a filter file.
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
		set    map[string]struct{}
		cannot keyCounts
	}
	var mu sync.Mutex
	set := map[string]struct{}{}
	var cannot keyCounts
	err = source.Scan(ctx, s.Side, opt.Mappers, func() *state { return &state{set: map[string]struct{}{}} }, func(st *state, r source.RowReader) error {
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
			st.set[string(k)] = struct{}{}
		}
		return r.Err()
	}, func(st *state) error {
		mu.Lock()
		for k := range st.set {
			set[k] = struct{}{}
		}
		cannot.null += st.cannot.null
		cannot.unmatchable += st.cannot.unmatchable
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	ksr := &KeySet{Keys: make([][]byte, 0, len(set)), KeyType: key.JoinTypes(s.Typing.Types), Why: s.Typing.Why, Null: cannot.null, Unmatchable: cannot.unmatchable}
	for k := range set {
		ksr.Keys = append(ksr.Keys, []byte(k))
	}
	return ksr, nil
}
