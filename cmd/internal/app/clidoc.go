package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// helpPages are the command lines whose help docs/cli.md holds, in order:
// every command, and the subcommands of those that have them.
var helpPages = [][]string{
	{"run"}, {"compare"}, {"stream"}, {"stream", "prep"}, {"build-filter"},
	{"bank"}, {"bank", "build"}, {"bank", "validate"}, {"bank", "update"},
	{"filter"}, {"filter", "size"}, {"filter", "eval"}, {"filter", "plot"},
	{"multikey"}, {"multikey", "seed"}, {"multikey", "absent"},
	{"gen"}, {"keys"}, {"fetch"}, {"demo"}, {"repro"}, {"clean"},
}

// cliDoc returns docs/cli.md: the usage and every help page as the
// program named name prints them. It sets prog while it runs: not for use
// beside another run in the same process.
func cliDoc(name string) string {
	old := prog
	prog = name
	defer func() { prog = old }()
	var b strings.Builder
	fmt.Fprintf(&b, "# The command line\n\nGenerated from the program's own help by `go test ./cmd/internal/app -run TestCLIDoc -update` (a test fails when this file is stale). `%s help` prints the first part, `%s help COMMAND` (or `%s COMMAND -h`) each of the others.\n\n", name, name, name)
	b.WriteString("```\n" + usageText() + "```\n")
	for _, page := range helpPages {
		var out, errb bytes.Buffer
		_ = run(context.Background(), append(append([]string{}, page...), "-h"), &out, &errb)
		fmt.Fprintf(&b, "\n## %s %s\n\n```\n%s```\n", name, strings.Join(page, " "), strings.TrimLeft(out.String()+errb.String(), "\n"))
	}
	return b.String()
}
