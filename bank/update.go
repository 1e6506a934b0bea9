package bank

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/key"
)

// Move takes a key out of one class and into another: a re-rated title.
type Move struct {
	Key      []byte // the join key's bytes (key.Of)
	Text     string // the key as written, for messages
	From, To string // class labels
	Line     int64  // in the moves file
}

// ReadMoves reads a moves file: CSV lines key,from,to (an optional first
// line key,from,to names the columns), keys of type kt. A composite key (kt
// one type a column, "int,string", as the bank's KeyType) takes a field a
// column: a,b,from,to (an optional first line ending from,to names them).
// A line of the wrong field count, an empty field or a key that does not
// parse is an error naming the line. O(bytes).
func ReadMoves(r io.Reader, name string, kt key.Type) ([]Move, error) {
	types := strings.Split(string(kt), ",")
	n := len(types)
	ks := key.Spec{}
	for i, t := range types {
		ks.Cols = append(ks.Cols, i)
		ks.Types = append(ks.Types, key.Type(t))
		ks.Names = append(ks.Names, "key")
		if n > 1 {
			ks.Names[i] = fmt.Sprintf("key %d", i+1)
		}
	}
	want := "key,from,to"
	if n > 1 {
		want = fmt.Sprintf("%d key fields,from,to", n)
	}
	cr := csvscan.NewReader(r, name)
	first, err := cr.ReadHeader()
	if err != nil {
		return nil, err
	}
	if len(first) != n+2 {
		return nil, fmt.Errorf("%s:1: %d fields, want %d: %s", name, len(first), n+2, want)
	}
	var moves []Move
	add := func(fields [][]byte, line int64) error {
		for i, f := range fields {
			if len(f) == 0 {
				what := "key"
				switch {
				case i == n:
					what = "from"
				case i == n+1:
					what = "to"
				}
				return fmt.Errorf("%s:%d: field %d (%s) is empty", name, line, i+1, what)
			}
		}
		key, err := ks.Append(nil, fields)
		text := string(bytes.Join(fields[:n], []byte(",")))
		if err != nil {
			return fmt.Errorf("%s:%d: key %q: %v", name, line, text, err)
		}
		moves = append(moves, Move{Key: key, Text: text, From: string(fields[n]), To: string(fields[n+1]), Line: line})
		return nil
	}
	header := strings.EqualFold(first[n], "from") && strings.EqualFold(first[n+1], "to") && (n > 1 || strings.EqualFold(first[0], "key"))
	if !header {
		fs := make([][]byte, len(first))
		for i, f := range first {
			fs[i] = []byte(f)
		}
		if err := add(fs, 1); err != nil {
			return nil, err
		}
	}
	for cr.Next() {
		if err := add(cr.Fields(), cr.Line()); err != nil {
			return nil, err
		}
	}
	return moves, cr.Err()
}

// MoveStats counts what Apply did.
type MoveStats struct {
	Moved     int // keys that changed class
	Unchanged int // keys whose moves end in the class they started in
	// Joined counts the moved keys whose new class held them already
	// (Bank.Shared): that class is unchanged, the old one loses them.
	Joined int
}

// Apply moves keys between classes in place. A move "key, from, to" says
// that the key is in class to instead of class from: afterwards from does
// not hold it, and to does (once: a class holds a key once, so a key that
// to held already leaves to unchanged). A key's moves are followed in
// order on its set of classes, which the bank knows exactly for a key of
// several classes (Bank.Shared) and which is the first move's from class
// for the others (a key of one class is in no other); each move needs its
// from class in the set. The classes a key leaves lose it and those it
// joins gain it: every removal is made before any add (so keys can trade
// places between acbf classes that have no room to spare), each updating
// the class's filter, key count, key fingerprint and formula FPP, so that
// the bank equals one built from the key file with the moves made, at the
// bank's sizes (a filter is not resized): for cbf and acbf filters byte for
// byte while no counter saturates (TestApplyEqualsRebuild); for cuckoo
// filters in the keys held and their counts, the slots of the fingerprints
// being free to differ.
//
// Only kinds that delete (cbf, acbf, cuckoo) can move keys, and a class of
// an acbf or cuckoo bank cannot end with more keys than it has room for (an
// acbf is built for exactly its keys; a cuckoo filter to its load). A move
// from a class that does not hold the key is an error naming its line:
// exactly for a key of several classes, by the filter for the first move of
// the others. A key that the filter holds by a false positive cannot be
// told apart there: the fingerprints then no longer match the key file, and
// a join or validation with it refuses the bank (never a wrong row). A
// class the bank has not is an error, and so is a bank read from a version
// 1 file (it does not record its shared keys). On an error b is partly
// updated: discard it. O(moves x k).
func (b *Bank) Apply(moves []Move, name string) (MoveStats, error) {
	var st MoveStats
	sp, err := filters.Lookup(string(b.Kind))
	if err != nil {
		return st, err
	}
	if !sp.Deletes || !sp.CanAdd() {
		return st, fmt.Errorf("%w: a bank of %s filters cannot move keys (a %s filter cannot delete one): rebuild it with join bank build, or build it with --filter cbf, acbf or cuckoo", ErrBank, b.Kind, b.Kind)
	}
	if !b.SharedKnown {
		return st, fmt.Errorf("%w: this bank's file (format 1) does not record the keys held by several classes, which a move needs to know: rebuild it with join bank build", ErrBank)
	}
	index := map[string]int{}
	for i, c := range b.Classes {
		index[c.Label] = i
	}
	// Each key's set of classes, before and after its moves, in order.
	type keyMoves struct {
		first       Move
		before, now []int         // class indexes, sorted
		line        map[int]int64 // the line of the move that took the key into a class
	}
	var order []string
	keys := map[string]*keyMoves{}
	for _, mv := range moves {
		at := fmt.Sprintf("%s:%d", name, mv.Line)
		for _, l := range []string{mv.From, mv.To} {
			if _, ok := index[l]; !ok {
				return st, fmt.Errorf("%s: %w: no class %q (the bank's classes: %s); a new class needs a rebuild", at, ErrBank, l, b.quotedLabels())
			}
		}
		from, to := index[mv.From], index[mv.To]
		km := keys[string(mv.Key)]
		if km == nil {
			km = &keyMoves{first: mv, line: map[int]int64{}}
			if cs, ok := b.Shared[string(mv.Key)]; ok {
				km.before = slices.Clone(cs)
			} else {
				// A key of one class: this one, if its filter holds it.
				if !b.Classes[from].Built.Filter.Contains(mv.Key) {
					return st, fmt.Errorf("%s: %w: key %s is not in class %q (its filter does not hold it)", at, ErrBank, mv.Text, mv.From)
				}
				km.before = []int{from}
			}
			km.now = slices.Clone(km.before)
			keys[string(mv.Key)] = km
			order = append(order, string(mv.Key))
		}
		if !slices.Contains(km.now, from) {
			return st, fmt.Errorf("%s: %w: key %s is not in class %q (it is in %s)", at, ErrBank, mv.Text, mv.From, b.labelsOf(km.now))
		}
		if from == to {
			continue
		}
		km.now = slices.DeleteFunc(km.now, func(c int) bool { return c == from })
		if slices.Contains(km.now, to) {
			st.Joined++ // held already: to is unchanged
			continue
		}
		km.now = append(km.now, to)
		km.line[to] = mv.Line
		slices.Sort(km.now)
	}
	type change struct {
		km    *keyMoves
		key   []byte
		fp    [2]uint64
		class int
	}
	var removals, adds []change
	for _, k := range order {
		km := keys[k]
		if slices.Equal(km.before, km.now) {
			st.Unchanged++
			continue
		}
		st.Moved++
		fp := filters.KeysFingerprint([][]byte{km.first.Key})
		for _, c := range km.before {
			if !slices.Contains(km.now, c) {
				removals = append(removals, change{km, km.first.Key, fp, c})
			}
		}
		for _, c := range km.now {
			if !slices.Contains(km.before, c) {
				adds = append(adds, change{km, km.first.Key, fp, c})
			}
		}
	}
	for _, ch := range removals {
		cls, mv := b.Classes[ch.class], ch.km.first
		if !cls.Built.Filter.Contains(ch.key) { // a shared key's record and its filter disagree: a bug
			return st, fmt.Errorf("%s:%d: %w: key %s is not in class %q (its filter does not hold it)", name, mv.Line, ErrBank, mv.Text, cls.Label)
		}
		if err := sp.Remove(cls.Built.Filter, ch.key); err != nil {
			return st, fmt.Errorf("%s:%d: %w: removing key %s from class %q: %v", name, mv.Line, ErrBank, mv.Text, cls.Label, err)
		}
		cls.Built.N--
		cls.Built.KeysFingerprint[0] -= ch.fp[0]
		cls.Built.KeysFingerprint[1] -= ch.fp[1]
	}
	for _, ch := range adds {
		cls, mv := b.Classes[ch.class], ch.km.first
		if err := sp.Add(cls.Built.Filter, ch.key); err != nil {
			return st, fmt.Errorf("%s:%d: %w: adding key %s to class %q: %v (a %s filter holds no more keys than it was built for: rebuild the bank with join bank build)", name, ch.km.line[ch.class], ErrBank, mv.Text, cls.Label, err, b.Kind)
		}
		cls.Built.N++
		cls.Built.KeysFingerprint[0] += ch.fp[0]
		cls.Built.KeysFingerprint[1] += ch.fp[1]
	}
	for _, k := range order {
		b.setShared([]byte(k), keys[k].now)
	}
	for _, c := range b.Classes {
		bt := c.Built
		bt.Params = sp.ParamsOf(bt.Filter)
		bt.Summary = bt.Params.Summary()
		bt.FPP = sp.FPP(bt.Params, uint64(max(bt.N, 0)))
	}
	return st, nil
}

// setShared records the classes of a key, dropping the record when it is
// in one class only.
func (b *Bank) setShared(key []byte, classes []int) {
	if len(classes) < 2 {
		delete(b.Shared, string(key))
		return
	}
	slices.Sort(classes)
	if b.Shared == nil {
		b.Shared = map[string][]int{}
	}
	b.Shared[string(key)] = classes
}

// labelsOf returns the labels of class indexes, quoted, for messages:
// "class \"7\"" or "classes \"7\", \"8\"".
func (b *Bank) labelsOf(classes []int) string {
	out := make([]string, len(classes))
	for i, c := range classes {
		out[i] = strconv.Quote(b.Classes[c].Label)
	}
	if len(out) == 1 {
		return "class " + out[0]
	}
	return "classes " + strings.Join(out, ", ")
}

// quotedLabels returns every class label, quoted, comma-separated.
func (b *Bank) quotedLabels() string {
	out := make([]string, len(b.Classes))
	for i, c := range b.Classes {
		out[i] = strconv.Quote(c.Label)
	}
	return strings.Join(out, ", ")
}
