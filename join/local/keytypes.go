package local

import (
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

// keyTyping is how a join's keys compare, decided before either side is
// read (source.DecideTypes: key.Decide's rules).
type keyTyping = key.Decision

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
