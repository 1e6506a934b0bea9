package beamjoin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/jointest/nullcases"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestNullCases: the pipeline, on every NULL and empty key case (an empty
// string of a Parquet or Arrow side is a value and matches; an empty CSV
// field, quoted or not, is NULL under every key type; a NULL never
// matches), each pair of formats, key type and join type, equals DuckDB's
// answer on the same files (testdata/nulls, bench/nulls-diff.sh). Every
// join is one branch of one pipeline: one prism run; the default key type
// alone (the types given are join/local's and join/stream's matter).
func TestNullCases(t *testing.T) {
	dir := t.TempDir()
	cases, err := nullcases.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	var run []nullcases.Case
	var outs []string
	for i, c := range cases {
		if c.KeyType != "auto" { // the key types given: join/local's and join/stream's TestNullCases
			continue
		}
		out := filepath.Join(dir, fmt.Sprintf("out-%d.csv", i))
		if _, _, _, err := Build(s.Scope(fmt.Sprint(i)), Options{
			Sides:    join.Sides{Keys: c.Keys, Input: c.Input},
			Keying:   join.Keying{KeyCol: c.KeyCol, JoinCol: c.JoinCol, KeyType: key.Type(c.KeyType)},
			JoinType: join.JoinType(c.JoinType),
			Filter:   filters.ACBF,
			Output:   out,
		}); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		run, outs = append(run, c), append(outs, out)
	}
	if _, err := prism.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for i, c := range run {
		golden, err := nullcases.Golden("../testdata/nulls", c.Golden)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(outs[i])
		if err != nil && !os.IsNotExist(err) { // textio.Write writes no file for no rows
			t.Fatal(err)
		}
		if err := nullcases.Equal(golden, append([]byte("header\n"), data...)); err != nil {
			t.Errorf("%s (against %s): %v", c.Name(), c.Golden, err)
		}
	}
	t.Logf("%d joins in one pipeline", len(run))
}
