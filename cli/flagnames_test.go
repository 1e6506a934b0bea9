package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
)

func TestRewrite(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.Float64("bits-per-key", 32, "")
	fs.String("key-time", "", "")
	fs.String("format", "", "")
	if err := fs.Parse([]string{"--bits-per-key", "2.50", "--format", "a b"}); err != nil {
		t.Fatal(err)
	}
	other := errors.New("plain")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&option.Error{Pkg: "filters", Name: "Sizing.BitsPerKey", Value: 2.5, Reason: "too small"}, "run: --bits-per-key 2.5: too small"},
		{&option.Error{Pkg: "stream", Name: "KeyTime", Value: `""`, Reason: "required with a window"}, "run: --key-time is required with a window"},
		{&option.Error{Pkg: "local", Name: "Format", Value: "a b", Reason: "want csv"}, `run: --format "a b": want csv`},
		{&option.Error{Pkg: "join", Name: "Mappers", Value: -1, Reason: "want at least 1"}, "run: --mappers -1: want at least 1"},
		{&option.Error{Pkg: "x", Name: "NoSuchOption", Value: 1, Reason: "r"}, "x: NoSuchOption 1: r"},
		// an option the reason names is named by its flag; other words in parentheses stay
		{&option.Error{Pkg: "join", Name: "Classes", Value: "a", Reason: "needs a bank (Bank)"}, "run: --classes a: needs a bank (--bank)"},
		{&option.Error{Pkg: "join", Name: "Mappers", Value: 0, Reason: "want 1 (Sizing.FPP) (NoSuchOption) (SQL)"}, "run: --mappers 0: want 1 (--fpp) (NoSuchOption) (SQL)"},
		{other, "plain"},
	} {
		if got := Rewrite("run", fs, c.err).Error(); got != c.want {
			t.Errorf("Rewrite(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestRewriteText(t *testing.T) {
	for in, want := range map[string]string{
		"filters: Sizing.BitsPerKey 2: k = 1 counter bits": "--bits-per-key 2: k = 1 counter bits",
		"key file: join: KeyCol NOPE: k.csv has no column": "key file: --key-col NOPE: k.csv has no column",
		"input: x.csv:2: CITED: invalid integer":           "input: x.csv:2: CITED: invalid integer",
		"bank: Unknown 3: stays":                           "bank: Unknown 3: stays",
		"filters: Sizing.bucket-size 3: want 1, 2, 4 or 8": "--bucket-size 3: want 1, 2, 4 or 8",
	} {
		if got := RewriteText(in); got != want {
			t.Errorf("RewriteText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSizingFlags: every kind's option is a flag, given ones reach the
// Sizing by name, a 0 or a value no kind takes is refused naming the flag,
// and a flag the command's kinds do not read is refused naming the kinds
// that do.
func TestSizingFlags(t *testing.T) {
	opts, _ := filters.AllOptions()
	for _, c := range []struct {
		args  []string
		kinds []filters.Kind
		want  filters.Sizing
		err   string
	}{
		{nil, nil, filters.Sizing{}, ""},
		{[]string{"--bits-per-key", "12", "--k", "3"}, []filters.Kind{filters.CBF}, filters.Sizing{BitsPerKey: 12}.With(filters.OptionK, 3), ""},
		{[]string{"--fpp", "0.01", "--bucket-size", "8", "--fingerprint-bits", "9"}, []filters.Kind{filters.Cuckoo}, filters.Sizing{FPP: 0.01}.With(filters.OptionBucketSize, 8).With(filters.OptionFingerprintBits, 9), ""},
		{[]string{"--growth", "1.5"}, []filters.Kind{filters.Scalable, filters.CBF}, filters.Sizing{}.With(filters.OptionGrowth, 1.5), ""},
		{[]string{"--bits-per-key", "0"}, nil, filters.Sizing{}, "x: --bits-per-key 0: want a positive number"},
		{[]string{"--k", "0"}, nil, filters.Sizing{}, "x: --k 0: want a whole number from 1 to 64"},
		{[]string{"--k", "70"}, nil, filters.Sizing{}, "x: --k 70: want a whole number from 1 to 64"},
		{[]string{"--tightening", "1"}, nil, filters.Sizing{}, "x: --tightening 1: want a ratio between 0 and 1"},
		{[]string{"--fpp", "0.1", "--bits-per-key", "3"}, nil, filters.Sizing{}, "x: --bits-per-key and --fpp both size the filter"},
		{[]string{"--k", "3"}, []filters.Kind{filters.Cuckoo}, filters.Sizing{}, "x: --k: the cuckoo filter does not read it (an option of bloom, cbf, acbf, acbf1, acbf2, acbf3, blocked)"},
		{[]string{"--fpp", "0.1"}, []filters.Kind{filters.None, filters.Exact}, filters.Sizing{}, "x: --fpp: none of none, exact reads it"},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var sf SizingFlags
		sf.Register(fs)
		for _, o := range opts {
			if fs.Lookup(o.Name) == nil {
				t.Fatalf("no flag for the option %s", o.Name)
			}
		}
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		sf.Kinds = c.kinds
		z, err := sf.Sizing("x")
		if err == nil {
			err = sf.CheckKinds("x", "")
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%v: %v, want %q", c.args, err, c.err)
		case c.err == "" && !z.Equal(c.want):
			t.Errorf("%v: %+v, want %+v", c.args, z, c.want)
		}
	}
}

// TestParse: a flag given twice, an argument, a bad count and -h; a
// Repeated flag takes several values.
func TestParse(t *testing.T) {
	mk := func() (*flag.FlagSet, *Repeated, *Count) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("out", "", "")
		fs.Bool("quiet", false, "")
		var r Repeated
		var c Count
		fs.Var(&r, "where", "")
		fs.Var(&c, "n", "")
		UsageWithExamples(fs, "x [flags]", "\nExamples:\n  x\n")
		return fs, &r, &c
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "a", "--out", "b"}, `x: invalid value "b" for flag -out: given twice ("a", then "b") (see prog x -h)`},
		{[]string{"--quiet", "extra"}, `x: unexpected argument "extra" (flags start with -; see prog x -h)`},
		{[]string{"--n", "1.5"}, `x: invalid value "1.5" for flag -n: want a whole number such as 100000 or 1e6 (see prog x -h)`},
	} {
		fs, _, _ := mk()
		if err := Parse(fs, c.args, "prog x"); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	fs, r, n := mk()
	if err := Parse(fs, []string{"--where", "a=1", "--where", "b=2", "--n", "1e6", "--quiet"}, "prog x"); err != nil || len(*r) != 2 || n.N != 1_000_000 {
		t.Fatalf("%v: %v %v", err, *r, n.N)
	}
	fs, _, _ = mk()
	var help strings.Builder
	fs.SetOutput(&help)
	if err := Parse(fs, []string{"-h"}, "prog x"); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), "usage: x [flags]") || !strings.Contains(help.String(), "-out string") {
		t.Fatalf("-h: %v\n%s", err, help.String())
	}
}

// TestEmptyFlag: a text flag given empty is refused, naming its default
// when it has one (--dataset "" wrote the whole NBER set: the default);
// numbers and booleans are not text.
func TestEmptyFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", ""}, `x: --dataset is empty (leave it out for its default, nber)`},
		{[]string{"--out", ""}, "x: --out is empty"},
		{[]string{"--dataset", "imdb", "--out", "o"}, ""},
		{[]string{"--n", "0"}, ""},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("dataset", "nber", "")
		fs.String("out", "", "")
		fs.Int("n", 1, "")
		err := Parse(fs, tc.args, "x")
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
