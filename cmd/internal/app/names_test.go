package app

import "testing"

// TestNamedCommands: the libraries' messages that name a command of the
// program ("rebuild it with join bank build") name it as it was invoked;
// prose that says "join" is left alone.
func TestNamedCommands(t *testing.T) {
	defer func(p string) { prog = p }(prog)
	prog = "acbfjoin"
	for in, want := range map[string]string{
		"not a filter bank (magic); write one with join bank build":                    "not a filter bank (magic); write one with acbfjoin bank build",
		"rebuild it with join build-filter":                                            "rebuild it with acbfjoin build-filter",
		"the NBER files, as written by join fetch or join gen":                         "the NBER files, as written by acbfjoin fetch or acbfjoin gen",
		"on keys whose values repeat it does not (join multikey absent).":              "on keys whose values repeat it does not (acbfjoin multikey absent).",
		"apply the moves with join bank update":                                        "apply the moves with acbfjoin bank update",
		"a join with join keys; the join run by join; this join compares int keys":     "a join with join keys; the join run by join; this join compares int keys",
		"built for int keys, this join compares string keys (see join run -h)":         "built for int keys, this join compares string keys (see acbfjoin run -h)",
		"data from `join gen --scale 1`, as join gen writes it, with join gen and run": "data from `join gen --scale 1`, as join gen writes it, with acbfjoin gen and run",
	} {
		if got := named(in); got != want {
			t.Errorf("named(%q)\n = %q\nwant %q", in, got, want)
		}
	}
	// A report's text: only a command's name after with, by, or, and, "(".
	if got := namedCommands("| join | 3 |\n(join multikey absent)"); got != "| join | 3 |\n(acbfjoin multikey absent)" {
		t.Errorf("namedCommands: %q", got)
	}
}
