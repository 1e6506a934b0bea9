package app

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
)

// TestIntKeyHint: a key that is no integer is refused with a hint that says
// how the keys came to compare as integers (--key-type given, a bank's
// type, multikey's default), never "by default" where the type was given;
// a Parquet side's error names its column, as a CSV side's does.
func TestIntKeyHint(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT,C\n1,a\n2,b\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n11,x\n12,2\n")
	s := func(v string) *string { return &v }
	pq := columnartest.Write(t, dir, "i", columnartest.Record(t, []string{"CITING", "CITED"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String},
		[][]*string{{s("10"), s("1")}, {s("11"), s("2")}, {s("12"), s("x")}}), 2, false).Parquet
	bk := mk("k.bank", "")
	if _, stderr, err := runCmd("bank", "build", "--keys", keys, "--key-col", "PATENT", "--class-col", "C", "--classes", "value", "--out", bk, "--quiet"); err != nil {
		t.Fatalf("bank build: %v %s", err, stderr)
	}
	out := mk("o.csv", "")
	for _, c := range []struct {
		args       []string
		want, hint string
	}{
		{[]string{"run", "--keys", keys, "--input", input, "--key-type", "int", "--out", out}, `i.csv:3: CITED: invalid integer "x"`,
			"(--key-type int compares the keys as integers: give --key-type string to compare them as text)"},
		{[]string{"run", "--keys", keys, "--input", pq, "--key-type", "int", "--out", out}, `i.parquet: row 3: CITED: invalid integer "x"`,
			"(--key-type int compares the keys as integers: give --key-type string to compare them as text)"},
		{[]string{"compare", "--keys", keys, "--input", input, "--key-type", "int", "--filters", "bloom"}, `i.csv:3: CITED: invalid integer "x"`,
			"(--key-type int compares the keys as integers"},
		{[]string{"run", "--keys", keys, "--bank", bk, "--input", input, "--out", out}, `i.csv:3: CITED: invalid integer "x"`,
			"(the bank's keys are integers, as it was built: build one with join bank build --key-type string to compare them as text)"},
		{[]string{"multikey", "absent", "--keys", keys, "--key-col", "PATENT,C"}, `k.csv:2: C: invalid integer "a"`,
			"(keys are compared as integers by default: give --key-type string to compare them as text)"},
		{[]string{"multikey", "absent", "--keys", keys, "--key-col", "PATENT,C", "--key-type", "int,int"}, `k.csv:2: C: invalid integer "a"`,
			"(--key-type int,int compares that column as integers: give string in its place to compare it as text)"},
	} {
		_, _, err := runCmd(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(hint(err), c.hint) {
			t.Errorf("%s: %v%s, want %q and the hint %q", strings.Join(c.args[:2], " "), err, hint(err), c.want, c.hint)
		}
	}
}
