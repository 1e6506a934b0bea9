package cli

import (
	"flag"
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped command or flag gets the nearest names, an
// unrelated one nothing.
func TestDidYouMean(t *testing.T) {
	cmds := []string{"demo", "run", "build-filter", "compare", "filter", "bank", "stream", "repro", "gen", "keys", "clean"}
	for _, tc := range []struct{ in, want string }{
		{"rnu", " (did you mean run?)"}, {"comapre", " (did you mean compare?)"}, {"filtr", " (did you mean filter?)"},
		{"strem", " (did you mean stream?)"}, {"xyzzy", ""}, {"Run", " (did you mean run?)"},
	} {
		if got := DidYouMean(tc.in, cmds, ""); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.String("filter", "acbf", "")
	fs.String("input", "", "")
	err := Parse(fs, []string{"--fliter", "x"}, "acbfjoin run")
	if err == nil || !strings.Contains(err.Error(), "did you mean --filter?") {
		t.Fatalf("--fliter: %v", err)
	}
}
