package app

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update", false, "rewrite docs/cli.md from the program's help")

// TestCLIDoc: docs/cli.md is the program's help as it prints it (every
// page a command's -h), so that the document cannot drift from the flags.
func TestCLIDoc(t *testing.T) {
	const path = "../../../docs/cli.md"
	want := cliDoc("acbfjoin")
	for _, page := range helpPages {
		if !strings.Contains(want, "## acbfjoin "+strings.Join(page, " ")+"\n\n```\nusage: ") &&
			!strings.Contains(want, "## acbfjoin "+strings.Join(page, " ")+"\n\n```\n") {
			t.Errorf("no help page for %v", page)
		}
	}
	if *updateDoc {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/internal/app -run TestCLIDoc -update)", err)
	}
	if string(got) != want {
		t.Fatalf("docs/cli.md is stale: run go test ./cmd/internal/app -run TestCLIDoc -update")
	}
}
