package nber

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysExpr (issue 46): KeysOptions.Expr keeps the records for which
// an expression of package where holds, beside the COL=VALUE predicates;
// IsPredicate tells the two forms apart.
func TestKeysExpr(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(path, []byte("PATENT,GYEAR,COUNTRY\n1,1990,\"JP\"\n2,1991,\"US\"\n3,1985,\"JP\"\n4,1999,\"JP\"\n5,,\"JP\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := ExtractKeys(path, &out, KeysOptions{Sample: 10, Expr: `GYEAR >= 1990`, Where: []Predicate{{"COUNTRY", "JP"}}})
	if err != nil || res.Matched != 2 || out.String() != "PATENT,GYEAR,COUNTRY\n1,1990,\"JP\"\n4,1999,\"JP\"\n" {
		t.Fatalf("%+v %v %q", res, err, out.String())
	}
	if _, err := ExtractKeys(path, &out, KeysOptions{Expr: `YEAR > 1`}); err == nil || !strings.Contains(err.Error(), `has no column "YEAR" (at character 1)`) {
		t.Errorf("a column the file has not: %v", err)
	}
	for s, want := range map[string]bool{"GYEAR=1999": true, "COUNTRY=": true, "GYEAR==1999": false, "GYEAR >= 1990": false, "a != 1": false, `n == "a=b"`: false, "x<=3": false, "(a)=1": false, "=1": false, "GYEAR": false} {
		if got := IsPredicate(s); got != want {
			t.Errorf("IsPredicate(%q) = %v, want %v", s, got, want)
		}
	}
}
