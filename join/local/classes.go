package local

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

// ClassScan says how to read the classes of a key file for a filter bank
// (join bank build and validate): the key column, the class column and how
// its values become classes.
type ClassScan struct {
	Keys     string // the key file ("-" for standard input)
	KeysName string // names it in messages, if set
	KeyCol   string // several, comma-separated, for a composite key (key.SplitColumns)
	ClassCol string
	// KeyType is how keys compare, one a key column or one for all:
	// int, string, or auto (the default: from the data, as a join decides
	// it; ClassScanResult.KeyType says what it decided).
	KeyType  key.Type
	Classing bank.Classing
	Sep      byte   // field separator (0: by the file's name: csvscan.SepFor)
	Format   string // csv, parquet, arrow; "" by the file's extension
	TempDir  string // where a stream is saved when it must be read twice
	Mappers  int    // goroutines (0: one a core)
	// SkipBadRows skips rows whose key or class does not parse (or of the
	// wrong field count), counting them, instead of failing.
	SkipBadRows bool
}

// ClassScanResult is what ScanClasses read.
type ClassScanResult struct {
	Classes []bank.ClassKeys // by label as text (bank.Build orders them by class)
	sealed  map[string]*classKeys
	Records int64 // key rows read
	// KeyType is the key's type, one a key column (as given, or decided),
	// Why how; Null and Unmatchable count the rows left out for a key that
	// cannot match (NULL; no value of an inferred type).
	KeyType           key.Type
	Why               []string
	Null, Unmatchable int64
	BadRows           int64
	BadRowExamples    []string
}

// ScanClasses reads a key file once, with one goroutine a mapper: each
// keeps, per class, the distinct keys of its parts in a local table (the
// build phase's), and the tables merge by class into the distinct keys of
// each class. O(rows) time, O(distinct keys) memory. A row whose key or
// class does not parse is an error naming its line, or with SkipBadRows a
// counted bad row; more than bank.MaxClasses classes is an error.
func ScanClasses(ctx context.Context, cs ClassScan) (*ClassScanResult, error) {
	var err error
	if cs.Mappers, err = join.Workers("Mappers", cs.Mappers); err != nil {
		return nil, err
	}
	if cs.KeyCol == "" || cs.ClassCol == "" {
		return nil, fmt.Errorf("%w: a key column and a class column are required", join.ErrOptions)
	}
	// The key columns and types as a join resolves them.
	j, err := key.ParseJoin(cs.KeyCol, "", cs.KeyType)
	if err != nil {
		return nil, option.Within(err, "join", join.ErrOptions)
	}
	ksd, err := source.OpenKeySide(ctx, source.Options{Option: "Keys", Path: cs.Keys, Name: cs.KeysName, Parts: cs.Mappers, SkipBad: cs.SkipBadRows, Sep: cs.Sep,
		Format: cs.Format, TempDir: cs.TempDir}, j.KeyCols, j.Types, cs.Mappers)
	if err != nil {
		return nil, err
	}
	defer ksd.Close()
	s, ks, lenient := ksd.Side, ksd.Spec, ksd.Typing.Lenient
	classIdx, err := s.Column("ClassCol", cs.ClassCol)
	if err != nil {
		return nil, err
	}
	if err := s.RefuseNested([]int{classIdx}, true); err != nil {
		return nil, err // a class column is compared as a key is
	}
	var bad *source.BadRows
	if cs.SkipBadRows {
		bad = &source.BadRows{}
		s.Bad = bad
	}
	type worker struct {
		cl      classifier
		classes map[string]*classKeys
		rows    int64
		cannot  keyCounts
	}
	merged := map[string]*classKeys{}
	var records int64
	var cannot keyCounts
	var mu sync.Mutex
	err = source.Scan(ctx, s, cs.Mappers, func() *worker {
		return &worker{cl: classifier{c: cs.Classing}, classes: map[string]*classKeys{}}
	}, func(w *worker, r source.RowReader) error {
		var kb []byte
		for n := 1; r.Next(); n++ {
			if n%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			f := r.Fields()
			key, v, err := rowKey(kb[:0], r, ks, lenient)
			if err != nil {
				if err := rowError(bad, r, "", err); err != nil {
					return err
				}
				continue
			}
			if v != keyOK {
				w.cannot.add(v)
				continue
			}
			label, err := w.cl.label(f[classIdx])
			if err != nil {
				if err := rowError(bad, r, cs.ClassCol, err); err != nil {
					return err
				}
				continue
			}
			ck := w.classes[label]
			if ck == nil {
				if len(w.classes) == bank.MaxClasses {
					return r.Errorf("%s: more than %d classes (use --classes cut:E1,E2,... for a column of many values)", cs.ClassCol, bank.MaxClasses)
				}
				ck = &classKeys{}
				w.classes[label] = ck
			}
			ck.add(key)
			kb = key
			w.rows++
		}
		return r.Err()
	}, func(w *worker) error {
		mu.Lock()
		defer mu.Unlock()
		records += w.rows
		cannot.null += w.cannot.null
		cannot.unmatchable += w.cannot.unmatchable
		for label, ck := range w.classes {
			if m := merged[label]; m != nil {
				m.merge(ck)
			} else {
				merged[label] = ck
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sealAll(merged)
	if len(merged) > bank.MaxClasses {
		return nil, fmt.Errorf("%s: %s: %d classes, at most %d (use --classes cut:E1,E2,... for a column of many values)", s.Name, cs.ClassCol, len(merged), bank.MaxClasses)
	}
	res := &ClassScanResult{Records: records, sealed: merged, KeyType: key.JoinTypes(ksd.Typing.Types), Why: ksd.Typing.Why,
		Null: cannot.null, Unmatchable: cannot.unmatchable}
	for label, ck := range merged {
		res.Classes = append(res.Classes, bank.ClassKeys{Label: label, Keys: ck})
	}
	slices.SortFunc(res.Classes, func(a, b bank.ClassKeys) int { return strings.Compare(a.Label, b.Label) })
	if bad != nil {
		res.BadRows = bad.N
		res.BadRowExamples = bad.Report(map[string]string{s.Name: s.Path})
	}
	return res, nil
}

// rowError handles a key or class that does not parse in r's current
// record (of column col): an error, or with bad a counted bad row.
func rowError(bad *source.BadRows, r source.RowReader, col string, err error) error {
	if col != "" {
		err = fmt.Errorf("%s: %w", col, err)
	}
	if bad == nil {
		return r.Errorf("%w", err)
	}
	bad.Add(rowParseError(r, err))
	return nil
}

// classifier labels class values with a cache from a value's bytes to its
// label: a column of a few distinct values costs a map lookup a row, with
// no allocation. Not safe for concurrent use.
type classifier struct {
	c     bank.Classing
	cache map[string]string
}

// maxCachedLabels bounds the cache (a column of many distinct values).
const maxCachedLabels = 1 << 16

func (cl *classifier) label(v []byte) (string, error) {
	if l, ok := cl.cache[string(v)]; ok {
		return l, nil
	}
	l, err := cl.c.Label(v)
	if err != nil {
		return "", err
	}
	if len(l) > bank.MaxLabelBytes {
		return "", fmt.Errorf("a class label of %d bytes, at most %d", len(l), bank.MaxLabelBytes)
	}
	if cl.cache == nil {
		cl.cache = map[string]string{}
	}
	if len(cl.cache) < maxCachedLabels {
		cl.cache[string(v)] = l
	}
	return l, nil
}

// classKeys is a class's distinct keys (bank.KeySet), collected by a
// scan worker and merged: keys of at most 15 bytes (integer keys, IMDb's
// tconst) as fixed 16-byte values appended to a slice, sorted and made
// distinct once (seal), which is three times faster than a Go map of
// strings on 1.26 million keys (a map's insert is a cache miss into a
// table that keeps growing); longer keys in a keySet. Not safe for
// concurrent use; seal before Len, Has and Keys.
type classKeys struct {
	short []key16
	long  keySet
	list  [][]byte // Keys, once asked
}

// key16 is a key of at most 15 bytes: its bytes big-endian in hi and lo,
// zero-padded, and its length in the lowest byte of lo, so that two keys
// are equal when their key16 are, and order as their bytes do.
type key16 struct{ hi, lo uint64 }

func toKey16(k []byte) key16 {
	var b [16]byte
	copy(b[:], k)
	b[15] = byte(len(k))
	return key16{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

func (k key16) appendTo(dst []byte) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], k.hi)
	binary.BigEndian.PutUint64(b[8:], k.lo)
	return append(dst, b[:b[15]]...)
}

func cmpKey16(a, b key16) int {
	if c := cmp.Compare(a.hi, b.hi); c != 0 {
		return c
	}
	return cmp.Compare(a.lo, b.lo)
}

func (c *classKeys) add(key []byte) {
	if len(key) <= 15 {
		c.short = append(c.short, toKey16(key))
		return
	}
	c.long.add(key)
}

// merge adds o's keys (o is spent).
func (c *classKeys) merge(o *classKeys) {
	if len(c.short) < len(o.short) {
		c.short, o.short = o.short, c.short
	}
	c.short = append(c.short, o.short...)
	c.long.merge(&o.long)
}

// seal sorts the short keys and drops repeats: O(n log n).
func (c *classKeys) seal() {
	slices.SortFunc(c.short, cmpKey16)
	c.short = slices.Compact(c.short)
	c.list = nil
}

func (c *classKeys) Len() int { return len(c.short) + c.long.len() }

func (c *classKeys) Has(key []byte) bool {
	if len(key) <= 15 {
		_, ok := slices.BinarySearchFunc(c.short, toKey16(key), cmpKey16)
		return ok
	}
	_, ok := c.long.strs[string(key)]
	return ok
}

func (c *classKeys) Keys() [][]byte {
	if c.list == nil {
		n := 0
		for _, k := range c.short {
			n += int(k.lo & 0xff)
		}
		arena := make([]byte, 0, n)
		c.list = make([][]byte, 0, c.Len())
		for _, k := range c.short {
			s := len(arena)
			arena = k.appendTo(arena)
			c.list = append(c.list, arena[s:len(arena):len(arena)])
		}
		c.list = append(c.list, c.long.list()...)
	}
	return c.list
}

// sealAll seals the classes, one goroutine a core, the largest first.
func sealAll(m map[string]*classKeys) {
	all := make([]*classKeys, 0, len(m))
	for _, c := range m {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b *classKeys) int { return cmp.Compare(len(b.short), len(a.short)) })
	work := make(chan *classKeys, len(all))
	for _, c := range all {
		work <- c
	}
	close(work)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(all)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				c.seal()
			}
		}()
	}
	wg.Wait()
}

// Shared returns the keys held by more than one class, each with the
// labels of its classes in label order, nil if none (sharedKeys): for
// bank.BuildShared, which calls it beside the filters' builds.
func (r *ClassScanResult) Shared() map[string][]string { return sharedKeys(r.sealed) }

// sharedKeys returns the keys held by more than one of the sealed classes,
// with their labels in label order: the short keys by merging the classes'
// sorted slices (a heap of one cursor a class, O(K log C) comparisons of
// two words for K keys in C classes, in the order the memory lies), the
// long ones through one map of the first class each is seen in. Nil if no
// key is in two classes.
func sharedKeys(merged map[string]*classKeys) map[string][]string {
	labels := slices.Sorted(maps.Keys(merged))
	// A binary min-heap of the classes' next keys, each entry holding its
	// key (no indirection in a comparison) and its class; rest[c] is what
	// follows in class c.
	type head struct {
		hi, lo uint64
		c      int
	}
	less := func(a, b head) bool {
		return a.hi < b.hi || a.hi == b.hi && (a.lo < b.lo || a.lo == b.lo && a.c < b.c)
	}
	h := make([]head, 0, len(labels))
	rest := make([][]key16, len(labels))
	down := func(i int) {
		x := h[i]
		for {
			m := 2*i + 1
			if m >= len(h) {
				break
			}
			if r := m + 1; r < len(h) && less(h[r], h[m]) {
				m = r
			}
			if !less(h[m], x) {
				break
			}
			h[i] = h[m]
			i = m
		}
		h[i] = x
	}
	for i, l := range labels {
		if ks := merged[l].short; len(ks) > 0 {
			h = append(h, head{ks[0].hi, ks[0].lo, i})
			rest[i] = ks[1:]
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	var shared map[string][]string
	var in []string
	for len(h) > 0 {
		k := key16{h[0].hi, h[0].lo}
		in = in[:0]
		for len(h) > 0 && h[0].hi == k.hi && h[0].lo == k.lo {
			c := h[0].c
			in = append(in, labels[c])
			if r := rest[c]; len(r) > 0 {
				h[0].hi, h[0].lo = r[0].hi, r[0].lo
				rest[c] = r[1:]
			} else {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			if len(h) > 0 {
				down(0)
			}
		}
		if len(in) > 1 {
			if shared == nil {
				shared = map[string][]string{}
			}
			shared[string(k.appendTo(nil))] = slices.Clone(in)
		}
	}
	// Long keys: the first class of each, then the others that hold it.
	var first map[string]string
	for _, l := range labels {
		for _, k := range merged[l].long.list() {
			if first == nil {
				first = map[string]string{}
			}
			f, seen := first[string(k)]
			if !seen {
				first[string(k)] = l
				continue
			}
			if shared == nil {
				shared = map[string][]string{}
			}
			if shared[string(k)] == nil {
				shared[string(k)] = []string{f}
			}
			shared[string(k)] = append(shared[string(k)], l)
		}
	}
	return shared
}
