package bank

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/acbfjoin/acbfjoin/filters"
)

// MaxClasses bounds the classes of a bank: each has its own filter, and
// validation probes every key against every class.
const MaxClasses = 4096

// Bank is one filter per class of a column: the classes of a key file's
// rows (Classing of the class column), each with a filter of one kind sized
// for its own distinct keys.
type Bank struct {
	Kind     filters.Kind
	Sizing   filters.Sizing // as asked, for every class (FPP or BitsPerKey, K)
	KeyCol   string
	ClassCol string
	KeyType  string // "int" or "string", as key.Type
	Classing Classing
	Classes  []*Class // in class order (Classing's)
	// Shared holds the keys held by more than one class, each with the
	// indexes in Classes of its classes, ascending (shared.go); nil when
	// no key is. SharedKnown is false for a bank read from a file of
	// format 1, which did not record them: it cannot move keys.
	Shared      map[string][]int
	SharedKnown bool
	// FileVersion is the format version of the file the bank was read
	// from (0 for one built here); WriteTo writes FormatVersion.
	FileVersion int
}

// FormatVersion is the version of the bank files WriteTo writes (4, with
// the sizing's options by name, and the exact kind compact); Read reads 1
// to it.
const FormatVersion = version

// Class is one class of a bank and its filter.
type Class struct {
	Label string
	// Built is the class's filter over its distinct keys: N, the parameters
	// (m, k, bits), the formula FPP for them, the keys' fingerprint.
	Built *filters.Built
}

// KeySet is the distinct keys of one class, as a scan of the key file
// collected them (join/local.ScanClasses).
type KeySet interface {
	Len() int
	Keys() [][]byte      // the keys, in no order
	Has(key []byte) bool // exact membership
}

// ClassKeys is a class label and its distinct keys.
type ClassKeys struct {
	Label string
	Keys  KeySet
}

// ErrBank is wrapped by every error about a bank's contents or its use.
var ErrBank = errors.New("bank")

// Meta is what a bank was built for: the kind, sizing and columns.
type Meta struct {
	Kind     filters.Kind
	Sizing   filters.Sizing
	KeyCol   string
	ClassCol string
	KeyType  string
	Classing Classing
}

// Build builds a bank: for each class, a filter of meta.Kind sized by
// meta.Sizing for its own distinct keys (the seed's m_i = -n_i ln p /
// ln^2 2 with Sizing.FPP = p and the Bloom kind); a Sizing.Budget is the
// whole bank's, shared by the classes in proportion to their keys
// (Sizing.Share). Classes are built in
// parallel, one goroutine a core; O(total keys x k). The classes are
// ordered by meta.Classing; a label given twice is an error. A key file of
// no rows makes a bank of no classes, with which a join is empty. The keys held
// by several classes (Bank.Shared) are found beside the builds, O(K log K)
// for K keys in all; BuildShared takes them from a caller that has them.
func Build(meta Meta, classes []ClassKeys) (*Bank, error) {
	return build(meta, classes, nil)
}

// BuildShared is Build with the keys held by several classes given by
// shared, called beside the filters' builds: each key with the labels of
// its classes (nil: no key is). A caller whose scan finds them faster
// (join/local.ScanClasses merges its sorted sets) saves Build its search.
// They must be exact: a move (Apply) trusts them.
func BuildShared(meta Meta, classes []ClassKeys, shared func() map[string][]string) (*Bank, error) {
	return build(meta, classes, shared)
}

func build(meta Meta, classes []ClassKeys, sharedOf func() map[string][]string) (*Bank, error) {
	sp, err := filters.Lookup(string(meta.Kind))
	if err != nil {
		return nil, err
	}
	if !sp.Sized {
		return nil, fmt.Errorf("%w: a bank of %s filters: want a kind that is sized for its keys (bloom, blocked, cbf, acbf, cuckoo, ...)", ErrBank, meta.Kind)
	}
	if len(classes) > MaxClasses {
		return nil, fmt.Errorf("%w: %d classes, at most %d (use --classes cut:... for a column of many values)", ErrBank, len(classes), MaxClasses)
	}
	b := &Bank{Kind: meta.Kind, Sizing: meta.Sizing, KeyCol: meta.KeyCol, ClassCol: meta.ClassCol, KeyType: meta.KeyType, Classing: meta.Classing}
	classes = slices.Clone(classes)
	slices.SortFunc(classes, func(x, y ClassKeys) int { return meta.Classing.compareLabels(x.Label, y.Label) })
	for i := 1; i < len(classes); i++ {
		if classes[i].Label == classes[i-1].Label {
			return nil, fmt.Errorf("%w: class %q given twice", ErrBank, classes[i].Label)
		}
	}
	b.Classes = make([]*Class, len(classes))
	lists := make([][][]byte, len(classes))
	for i, c := range classes {
		lists[i] = c.Keys.Keys() // here: a KeySet may make its list on the first call
	}
	var total uint64
	for _, l := range lists {
		total += uint64(len(l))
	}
	errs := make([]error, len(classes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range classes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			// A budget is the bank's: each class takes its keys' share.
			built, err := filters.Build(meta.Kind, lists[i], meta.Sizing.Share(uint64(len(lists[i])), total))
			if err != nil {
				errs[i] = fmt.Errorf("class %q (%d keys): %w", c.Label, c.Keys.Len(), err)
				return
			}
			b.Classes[i] = &Class{Label: c.Label, Built: built}
		}()
	}
	var shared map[string][]string
	wg.Add(1)
	go func() { // beside the filters' builds
		defer wg.Done()
		if sharedOf != nil {
			shared = sharedOf()
		} else {
			b.Shared = findShared(lists)
		}
	}()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	b.SharedKnown = true
	for key, labels := range shared {
		cs := make([]int, 0, len(labels))
		for _, l := range labels {
			i := slices.IndexFunc(b.Classes, func(c *Class) bool { return c.Label == l })
			if i < 0 || slices.Contains(cs, i) {
				return nil, fmt.Errorf("%w: shared key %q: class %q unknown or twice", ErrBank, key, l)
			}
			cs = append(cs, i)
		}
		if len(cs) < 2 {
			return nil, fmt.Errorf("%w: shared key %q in %d class", ErrBank, key, len(cs))
		}
		if b.Shared == nil {
			b.Shared = map[string][]int{}
		}
		slices.Sort(cs)
		b.Shared[key] = cs
	}
	return b, nil
}

// Meta returns what b was built for.
func (b *Bank) Meta() Meta {
	return Meta{Kind: b.Kind, Sizing: b.Sizing, KeyCol: b.KeyCol, ClassCol: b.ClassCol, KeyType: b.KeyType, Classing: b.Classing}
}

// Labels returns the class labels, in order.
func (b *Bank) Labels() []string {
	out := make([]string, len(b.Classes))
	for i, c := range b.Classes {
		out[i] = c.Label
	}
	return out
}

// Class returns the class labelled label, or nil.
func (b *Bank) Class(label string) *Class {
	for _, c := range b.Classes {
		if c.Label == label {
			return c
		}
	}
	return nil
}

// Select returns the classes of labels in bank order (all of them for
// none), or an error naming a label the bank does not have or one given
// twice.
func (b *Bank) Select(labels []string) ([]*Class, error) {
	if len(labels) == 0 {
		return slices.Clone(b.Classes), nil
	}
	want := map[string]bool{}
	for _, l := range labels {
		if want[l] {
			return nil, fmt.Errorf("%w: class %q given twice", ErrBank, l)
		}
		if b.Class(l) == nil {
			return nil, fmt.Errorf("%w: no class %q (the bank's classes: %s)", ErrBank, l, b.quotedLabels())
		}
		want[l] = true
	}
	var out []*Class
	for _, c := range b.Classes {
		if want[c.Label] {
			out = append(out, c)
		}
	}
	return out, nil
}

// Union returns the union of the filters of classes (Select's): what a
// join by these classes broadcasts (filters.Union). O(classes).
func Union(classes []*Class) (*filters.Built, error) {
	parts := make([]*filters.Built, len(classes))
	for i, c := range classes {
		parts[i] = c.Built
	}
	return filters.Union(parts)
}

// Bytes returns the bank's filter bytes: the sum of its filters' memory
// (filters.Params.MemoryBits / 8) and of their serialized sizes.
func (b *Bank) Bytes() (memory uint64, serialized int64) {
	for _, c := range b.Classes {
		memory += c.Built.MemoryBits / 8
		serialized += c.Built.SerializedBytes
	}
	return memory, serialized
}

// SetOf returns the KeySet of keys (duplicates count once), for callers
// that hold a class's keys in a slice. O(total key bytes).
func SetOf(keys [][]byte) KeySet {
	s := make(mapKeys, len(keys))
	for _, k := range keys {
		s[string(k)] = struct{}{}
	}
	return s
}

// mapKeys is SetOf's KeySet.
type mapKeys map[string]struct{}

func (s mapKeys) Len() int { return len(s) }

func (s mapKeys) Keys() [][]byte {
	out := make([][]byte, 0, len(s))
	for k := range s {
		out = append(out, []byte(k))
	}
	return out
}

func (s mapKeys) Has(key []byte) bool {
	_, ok := s[string(key)]
	return ok
}
