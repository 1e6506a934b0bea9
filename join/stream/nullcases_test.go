package stream

import (
	"bytes"
	"context"
	"testing"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/jointest/nullcases"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestNullCases: the stream engine, on every NULL and empty key case
// whose key side is text (key events are CSV: "+row"), with the probe
// side in every format, each key type and each join type a stream has,
// equals DuckDB's answer (testdata/nulls, bench/nulls-diff.sh): an empty
// CSV field, quoted or not, is NULL under every key type; an empty string
// of a probe table is a value, which no CSV key can be. Every key event
// is applied before the first probe batch (KeyBatch), so that the stream
// answers as a join of the two files does: a probe row meets only the keys
// live when its batch is probed.
func TestNullCases(t *testing.T) {
	cases, err := nullcases.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		jt := join.JoinType(c.JoinType)
		if c.KeysFormat != "csv" || (jt != join.JoinInner && jt != join.JoinSemi && jt != join.JoinAnti) {
			continue
		}
		golden, err := nullcases.Golden("../../testdata/nulls", c.Golden)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := Run(context.Background(), Options{Keying: join.Keying{KeyCol: c.KeyCol, JoinCol: c.JoinCol, KeyType: key.Type(c.KeyType)}, KeyEvents: c.Events, Probe: c.Input, JoinType: jt, Batch: 2, KeyBatch: 1000, NoSketches: true}, &out); err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		if err := nullcases.Equal(golden, out.Bytes()); err != nil {
			t.Errorf("%s (against %s): %v", c.Name(), c.Golden, err)
		}
		n++
	}
	t.Logf("%d cases", n)
}
