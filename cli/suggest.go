package cli

import (
	"flag"
	"fmt"
	"strings"
)

// Suggest returns the names among names closest to name by edit distance
// (Levenshtein: insertions, deletions, substitutions; a swap of two
// neighbours counts one), when within max(1, len(name)/3) edits, closest
// first and at most three: "rnu" -> "run", "--filtr" -> "filter". O(len(names)
// x len(name)^2).
func Suggest(name string, names []string) []string {
	limit := max(1, len(name)/3)
	var best []string
	bestD := limit + 1
	for _, n := range names {
		d := distance(strings.ToLower(name), strings.ToLower(n))
		switch {
		case d < bestD:
			best, bestD = []string{n}, d
		case d == bestD && len(best) < 3:
			best = append(best, n)
		}
	}
	if bestD > limit {
		return nil
	}
	return best
}

// DidYouMean is " (did you mean X?)" or " (did you mean X or Y?)" for the
// suggestions of name among names (prefix, e.g. "--", before each), or "".
func DidYouMean(name string, names []string, prefix string) string {
	s := Suggest(name, names)
	if len(s) == 0 {
		return ""
	}
	for i := range s {
		s[i] = prefix + s[i]
	}
	return " (did you mean " + strings.Join(s, " or ") + "?)"
}

// distance is the optimal string alignment distance of a and b (bytes).
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range cur {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// flagNames returns the names of fs's flags.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// FlagGroup is a heading of a command's help and its flags, in order.
type FlagGroup struct {
	Title string
	Flags []string
}

// UsageGrouped sets the usage of a command: its synopsis, a description,
// its flags under the groups' headings (each flag once; the flags no group
// names under "other flags"), then its examples. Each flag is printed by
// flag.PrintDefaults (of a set holding it alone, to keep the group's order),
// so that a flag reads as in any Go program.
func UsageGrouped(fs *flag.FlagSet, synopsis, description string, groups []FlagGroup, examples string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n", synopsis)
		if description != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimRight(description, "\n"))
		}
		seen := map[string]bool{}
		print := func(title string, names []string) {
			var fl []*flag.Flag
			for _, n := range names {
				if f := fs.Lookup(n); f != nil && !seen[n] {
					seen[n] = true
					fl = append(fl, f)
				}
			}
			if len(fl) == 0 {
				return
			}
			fmt.Fprintf(w, "\n%s:\n", title)
			for _, f := range fl { // in the group's order: PrintDefaults of a set of one
				one := flag.NewFlagSet(f.Name, flag.ContinueOnError)
				one.SetOutput(w)
				one.Var(f.Value, f.Name, f.Usage)
				one.Lookup(f.Name).DefValue = f.DefValue
				one.PrintDefaults()
			}
		}
		for _, g := range groups {
			print(g.Title, g.Flags)
		}
		print("other flags", flagNames(fs))
		fmt.Fprint(w, examples)
	}
}
