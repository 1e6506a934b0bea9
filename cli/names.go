package cli

import (
	"fmt"
	"runtime"

	"github.com/acbfjoin/acbfjoin/join"
)

// SuffixUsage is the help of --suffix, every command's that writes a
// joined row (run, compare, stream, beamjoin).
const SuffixUsage = "appended to a key-side column's name in the output where the large side has a column of that name, again until the name is unique (lat -> lat_keys); --columns takes the output's names"

// OnUsage is the help of --on, as SuffixUsage.
const OnUsage = "the join column of both sides, when it has one name on both: the same as --key-col COL --join-col COL (several, comma-separated, for a composite key)"

// WhereUsage is the help of a predicate flag (--where, --keys-where) that
// selects side's rows (when says when it applies).
func WhereUsage(side, when string) string {
	return "keep only " + side + ` rows for which this expression holds, over the side's columns (expr-lang: state == "CA" and delay > 60; and, or, not, in [...], + - * / %, startsWith, endsWith, contains, lower(), upper(), x == nil for NULL; a name that is no identifier as $env["Mean Temp"]); ` + when + "; docs/where.md"
}

// On returns the key-side and large-side key columns from --on (on, set
// when given) and --key-col and --join-col (keyCol, joinCol, each set
// when given): --on's value for both, which neither of the others may
// then be given with. Its error names the flags.
func On(on string, onSet bool, keyCol string, keySet bool, joinCol string, joinSet bool) (string, string, error) {
	if !onSet {
		return keyCol, joinCol, nil
	}
	if keySet || joinSet {
		return "", "", fmt.Errorf("--on %q names the join column of both sides: give --on, or --key-col and --join-col, not both", on)
	}
	return on, on, nil
}

// VersionLine is what --version prints for the command prog: its name,
// the build (join.Version: the module's version and commit) and the Go
// release and platform it was built with.
func VersionLine(prog string) string {
	return fmt.Sprintf("%s %s (%s %s/%s)", prog, join.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
