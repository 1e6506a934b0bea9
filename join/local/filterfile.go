package local

import (
	"context"
	"sync"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join"
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

// ReadKeySet returns the distinct join keys of the key side of opt (Keys,
// KeyCol, KeyType; Mappers goroutines), as the build phase reads them, for
// building a filter file.
func ReadKeySet(ctx context.Context, opt join.Options) ([][]byte, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return nil, err
	}
	s, err := openSide(ctx, "Keys", opt.Keys, opt.KeysName, opt.Mappers, false, opt.Sep)
	if err != nil {
		return nil, err
	}
	defer s.close()
	ks, err := s.keySpec("KeyCol", opt.KeyCols, opt.KeyTypes)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	set := map[string]struct{}{}
	err = scan(ctx, s, opt.Mappers, func() map[string]struct{} { return map[string]struct{}{} }, func(local map[string]struct{}, r *csvscan.Reader) error {
		var kb []byte
		for r.Next() {
			k, err := ks.Append(kb[:0], r.Fields())
			if err != nil {
				return r.Errorf("%w", err)
			}
			kb = k
			local[string(k)] = struct{}{}
		}
		return r.Err()
	}, func(local map[string]struct{}) error {
		mu.Lock()
		for k := range local {
			set[k] = struct{}{}
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	keys := make([][]byte, 0, len(set))
	for k := range set {
		keys = append(keys, []byte(k))
	}
	return keys, nil
}
