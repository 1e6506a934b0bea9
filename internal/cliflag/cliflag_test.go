package cliflag

import (
	"errors"
	"flag"
	"testing"

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
	} {
		if got := RewriteText(in); got != want {
			t.Errorf("RewriteText(%q) = %q, want %q", in, got, want)
		}
	}
}
