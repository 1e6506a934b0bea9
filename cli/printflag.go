package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

var fmtFprintf = fmt.Fprintf

// printFlag prints one flag as flag.PrintDefaults does: "  -name type",
// its usage on the next line, indented, and its default unless zero.
func printFlag(w io.Writer, f *flag.Flag) {
	var b strings.Builder
	fmt.Fprintf(&b, "  -%s", f.Name)
	name, usage := flag.UnquoteUsage(f)
	if len(name) > 0 {
		b.WriteString(" " + name)
	}
	if b.Len() <= 4 { // a one-letter boolean fits on its line
		b.WriteString("\t")
	} else {
		b.WriteString("\n    \t")
	}
	b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
	if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "[]" {
		if _, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || d != "false" {
			if strings.Contains(name, "string") || name == "value" && strings.ContainsAny(d, " ,") {
				fmt.Fprintf(&b, " (default %q)", d)
			} else {
				fmt.Fprintf(&b, " (default %v)", d)
			}
		}
	}
	fmt.Fprintln(w, b.String())
}
