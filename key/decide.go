package key

import (
	"fmt"
	"strconv"
)

// Source is a key column as a side brings it: its file and column names,
// and, for a typed side (Parquet, Arrow), its type as the data declares it
// (DataType: "int64", "string", "date") with the key type that gives
// (KeyType: Int for integers of any width, String for strings and bytes,
// "" for a type that is no join key). A text side (CSV) has neither.
type Source struct {
	File, Column string
	DataType     string
	KeyType      Type
	// Wide says the integer column may hold values beyond int64 (uint64),
	// which no int key holds.
	Wide bool
}

func (s Source) typed() bool { return s.DataType != "" }

func (s Source) String() string {
	return fmt.Sprintf("column %q of %s is %s", s.Column, s.File, s.DataType)
}

// Evidence is what a text key column held, for inference: its non-empty
// keys read (Keys), and the first (by position in the file) that is no
// canonical integer, if any (Value, found at At: "line 12").
type Evidence struct {
	Keys      int64
	Found     bool
	Value, At string
}

// Decision is how a join's keys compare: a type a key column and why
// ("given", "from the data: ...", "inferred: ..."). Lenient says some type
// was decided here rather than given: then a key that is no value of its
// type (text that is no integer when keys compare as integers) cannot
// match, and an empty text field is NULL; both are counted and left out
// by the executor, where with types given they are errors.
type Decision struct {
	Types   []Type
	Why     []string
	Lenient bool
	// KeysWide and InputWide say, a key column each, that the key side's
	// (the input's) column is a uint64 compared as Int against a side
	// that could hold its values beyond int64 too (text, another uint64
	// given int, or no other side yet: a filter's keys): such a value is
	// an error (Spec.Wide, ErrBeyond), never an unmatchable key, which
	// would silently miss its match. Against a signed integer column,
	// which holds no such value, it is unmatchable.
	KeysWide, InputWide []bool
}

// Decide settles the key types of a join, column by column j, from the
// types given (Auto decides) and each side's sources (keys[j], input[j];
// input nil for a key side read alone):
//   - a type given (Int, String) is kept;
//   - else a typed source gives its key type; two typed sources must
//     agree (an integer column cannot meet a string column: refused,
//     naming both and the option that settles it), and a type that is no
//     join key (a float, a date) is refused;
//   - else (text on both sides) the key side's text decides: Int when
//     every non-empty key is canonical (CanonicalInt), else String.
//     infer reads the key side's text columns asked (indexes j) and
//     returns their Evidence; it is called once, only if needed.
//
// Inference never changes which of the key side's keys are equal: two
// distinct canonical spellings are two distinct integers. Errors are
// option.Errors naming KeyType, wrapping ErrKey (option.Within makes them
// a package's own).
func Decide(given []Type, keys, input []Source, infer func(cols []int) ([]Evidence, error)) (Decision, error) {
	d, err := decide(given, keys, input, infer)
	if err != nil {
		return d, err
	}
	// A uint64 column compared as Int: its values beyond int64 have no int
	// key; they are unmatchable only where the other side is a typed
	// integer column that is no uint64 (it cannot hold them).
	d.KeysWide, d.InputWide = make([]bool, len(given)), make([]bool, len(given))
	for j := range given {
		if d.Types[j] != Int {
			continue
		}
		var in Source
		if input != nil {
			in = input[j]
		}
		narrow := func(s Source) bool { return s.typed() && s.KeyType == Int && !s.Wide }
		d.KeysWide[j] = keys[j].Wide && !narrow(in)
		d.InputWide[j] = in.Wide && !narrow(keys[j])
	}
	return d, nil
}

func decide(given []Type, keys, input []Source, infer func(cols []int) ([]Evidence, error)) (Decision, error) {
	d := Decision{Types: make([]Type, len(given)), Why: make([]string, len(given))}
	var text []int
	for j, g := range given {
		if g != Auto {
			d.Types[j], d.Why[j] = g, "given"
			continue
		}
		if input != nil && keys[j].Wide && input[j].Wide {
			// Two uint64 columns: both may hold values beyond int64, which
			// no int key holds; their decimal text (one text a value)
			// compares them by value, all of them.
			d.Lenient = true
			d.Types[j], d.Why[j] = String, fmt.Sprintf("from the data: %s and %s: compared as decimal text (values beyond int64 too)", keys[j], input[j])
			continue
		}
		d.Lenient = true
		sources := []Source{keys[j]}
		if input != nil {
			sources = append(sources, input[j])
		}
		var from *Source
		for i, s := range sources {
			if !s.typed() {
				continue
			}
			if s.KeyType == "" {
				return d, keyError("KeyType", string(Auto), "%s, which is no join key: join on an integer or a string column, or give the type string to compare its text", s)
			}
			if from != nil && s.KeyType != from.KeyType {
				return d, keyError("KeyType", string(Auto), "%s and %s: their keys compare as %s and as %s (an integer column cannot meet a string column); give the type int (the text read as integers) or string (the integers as decimal text)", *from, s, from.KeyType, s.KeyType)
			}
			if from == nil {
				from = &sources[i]
			}
		}
		if from != nil {
			d.Types[j], d.Why[j] = from.KeyType, "from the data: "+from.String()
			continue
		}
		text = append(text, j)
	}
	if len(text) == 0 {
		return d, nil
	}
	ev, err := infer(text)
	if err != nil {
		return d, err
	}
	for i, j := range text {
		e := ev[i]
		if !e.Found {
			d.Types[j], d.Why[j] = Int, fmt.Sprintf("inferred: every key in column %q of %s (%d) is a canonical integer", keys[j].Column, keys[j].File, e.Keys)
			continue
		}
		v := e.Value
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		d.Types[j], d.Why[j] = String, fmt.Sprintf("inferred: column %q of %s holds %s at %s, no canonical integer (digits without sign or leading zero, within int64)",
			keys[j].Column, keys[j].File, strconv.Quote(v), e.At)
	}
	return d, nil
}
