package local

import (
	"context"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
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
func rowKey(dst []byte, r source.RowReader, ks key.Spec, lenient bool) ([]byte, keyVerdict, error) {
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
func nullKey(r source.RowReader, ks key.Spec) bool {
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
