package join_test

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
)

// The default kind is the library's: a join that names no filter, no
// filter file and no bank builds DefaultFilter; a filter file or a bank
// brings its own, and Filter stays unset.
func TestResolveDefaultFilter(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  join.Options
		want filters.Kind
	}{
		{"none named", join.Options{}, join.DefaultFilter},
		{"a kind", join.Options{FilterChoice: join.FilterChoice{Filter: filters.Bloom}}, filters.Bloom},
		{"a filter file", join.Options{FilterChoice: join.FilterChoice{FilterFile: "keys.acbf"}}, ""},
		{"a bank", join.Options{Keying: join.Keying{KeyType: "int"}, BankJoin: join.BankJoin{Bank: "cat.bank"}}, ""},
	} {
		tc.opt.Keys, tc.opt.Input = "keys.csv", "input.csv"
		r, err := tc.opt.Resolve()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Filter != tc.want {
			t.Errorf("%s: Filter %q, want %q", tc.name, r.Filter, tc.want)
		}
	}
	if join.DefaultFilter != filters.ACBF {
		t.Errorf("DefaultFilter %q: the docs and the help say acbf", join.DefaultFilter)
	}
}

// Check is Resolve before the bank is read: the bank's key column and type
// are not known yet, so the join columns stand in for the key's (a
// composite key of two columns passes), and every other option is still
// checked, by its field's name.
func TestCheckBank(t *testing.T) {
	opt := join.Options{Sides: join.Sides{Keys: "keys.csv", Input: "input.csv"}, Keying: join.Keying{JoinCol: "a,b"}, BankJoin: join.BankJoin{Bank: "cat.bank"}}
	if _, err := opt.Check(); err != nil {
		t.Fatalf("a bank join on two join columns, its key column left to the bank: %v", err)
	}
	if _, err := opt.Resolve(); err == nil {
		t.Errorf("Resolve passed a bank join whose key column is not yet known: want the count of columns refused (Check is the pre-check)")
	}
	for _, tc := range []struct {
		name  string
		opt   join.Options
		field string
	}{
		{"bits per key", join.Options{FilterChoice: join.FilterChoice{Sizing: filters.Sizing{BitsPerKey: 16}}}, "Sizing.BitsPerKey"},
		{"a filter file", join.Options{FilterChoice: join.FilterChoice{FilterFile: "keys.acbf"}}, "FilterFile"},
		{"auto", join.Options{FilterChoice: join.FilterChoice{Filter: join.FilterAuto}}, "Bank"},
		{"hot exclusions", join.Options{FilterChoice: join.FilterChoice{HotExclusions: 10}}, "HotExclusions"},
	} {
		o := tc.opt
		o.Keys, o.Input, o.Bank = "keys.csv", "input.csv", "cat.bank"
		_, err := o.Check()
		var oe *option.Error
		if !errors.As(err, &oe) || oe.Name != tc.field {
			t.Errorf("%s with a bank: Check gave %v, want an error naming %s", tc.name, err, tc.field)
		}
	}
	// Without a bank, Check is Resolve.
	plain := join.Options{Sides: join.Sides{Keys: "keys.csv", Input: "input.csv"}, Keying: join.Keying{KeyCol: "a,b", JoinCol: "c,d"}}
	r1, err1 := plain.Check()
	r2, err2 := plain.Resolve()
	if err1 != nil || err2 != nil || r1.KeyCol != r2.KeyCol || r1.Filter != r2.Filter {
		t.Errorf("without a bank: Check (%v, %v) and Resolve (%v, %v) differ", r1.KeyCol, err1, r2.KeyCol, err2)
	}
}

// TestFileErrorURL: a URL that no file system of the program reads (join
// registers none) is named as such, not only as a missing file.
func TestFileErrorURL(t *testing.T) {
	_, err := os.Open("s3://bucket/cite.csv")
	got := join.FileError("Input", "s3://bucket/cite.csv", err)
	if got == nil || !strings.Contains(got.Error(), "s3:// is read by beamjoin") || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("a URL: %v", got)
	}
	_, err = os.Open("no/such/file.csv")
	if got := join.FileError("Input", "no/such/file.csv", err); got == nil || strings.Contains(got.Error(), "beamjoin") {
		t.Errorf("a missing local file: %v", got)
	}
}
