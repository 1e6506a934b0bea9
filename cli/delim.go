package cli

import (
	"fmt"
	"slices"

	"github.com/acbfjoin/acbfjoin/key"
)

// ParseDelim reads a field separator flag (--delim, --keys-delim,
// --input-delim of join's commands and beamjoin): one byte, "tab" or "\t"
// for a tab; "" is 0 (the library's default: by the file's name). Its error
// names the flag (name, without dashes) and the value.
func ParseDelim(name, s string) (byte, error) {
	switch s {
	case "":
		return 0, nil
	case `\t`, "tab", "\t":
		return '\t', nil
	}
	if len(s) != 1 || s == `"` || s == "\n" || s == "\r" {
		return 0, fmt.Errorf(`--%s %q: want one byte such as "," or "\t" (not a quote or line break)`, name, s)
	}
	return s[0], nil
}

// ParseColumns reads --columns (join's commands and beamjoin): column
// names, comma-separated, a name holding a comma quoted as in a CSV line
// (key.SplitList). Its error names the flag and the value.
func ParseColumns(s string) ([]string, error) {
	cols, err := key.SplitList(s)
	if err != nil || len(cols) == 0 || slices.Contains(cols, "") {
		return nil, fmt.Errorf("--columns %q: want column names, comma-separated (a name holding a comma quoted, as in a CSV line)", s)
	}
	return cols, nil
}
