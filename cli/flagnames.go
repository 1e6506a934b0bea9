// The flags of the library's options: names maps each option name
// (option.Error.Name: "Sizing.BitsPerKey", "Mappers", "KeyEvents") to the
// flag of the command lines that set it (--bits-per-key, --mappers,
// --key-events), so that join and beamjoin name the user's flag with the
// user's spelling of its value, and the library names none. One table for
// every command line.

package cli

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/option"
)

var names = map[string]string{
	// join.Options and the executors'
	"Keys": "keys", "Input": "input", "KeyCol": "key-col", "JoinCol": "join-col", "KeyType": "key-type", "JoinType": "join", "Columns": "columns", "Suffix": "suffix", "EstimateJoinSize": "estimate-size", "KeepFilter": "keep-filter", "IgnoreFileBloom": "ignore-file-bloom", "KeysWhere": "keys-where",
	"KeysFormat": "keys-format", "InputFormat": "input-format", "KeyEventsFormat": "key-events-format", "ProbeFormat": "probe-format",
	"Filter": "filter", "Mappers": "mappers", "Reducers": "reducers", "MemBudget": "mem", "TempDir": "tmp-dir",
	"FilterFile": "filter-file", "Bank": "bank", "Classes": "classes", "ClassCol": "class-col", "Classing": "classes", "Route": "route", "Sep": "delim", "KeysSep": "keys-delim", "InputSep": "input-delim",
	"Layout": "filter-layout", "Skew": "skew", "BroadcastBudget": "broadcast-budget", "NeedDeletes": "need-deletes",
	"HotExclusions": "hot-exclusions", "Format": "format", "Output": "out",
	// filters.Sizing (its options, "Sizing.k", are flags of their own name)
	"Sizing.BitsPerKey": "bits-per-key", "Sizing.FPP": "fpp", "Sizing.Budget": "filter-budget",
	// repro
	"Table1Sizing": "table1-sizing", "Table1Keys": "table1-keys", "ACBFCapacity": "acbf-capacity", "Data": "data", "Out": "out",
	// join/stream
	"KeyEvents": "key-events", "Probe": "probe", "Batch": "batch", "KeyBatch": "key-batch", "Window": "window",
	"KeyTime": "key-time", "ProbeTime": "probe-time", "Capacity": "capacity", "CMSEps": "cms-eps",
	"CMSDelta": "cms-delta", "TopK": "topk", "Workers": "workers",
	// repro/multikey (join multikey seed)
	"Bits": "bits", "K": "k", "Dims": "dims", "MaxCombinations": "max-combinations", "Queries": "queries", "Replicates": "replicates", "CompositeK": "composite-k", "Domain": "domain",
	// repro/evaluate (join filter eval, plot)
	"N": "n", "Churn": "churn",
	// datasets (join gen)
	"Dataset": "dataset", "Scale": "scale", "Events": "events", "Live": "live",
	// datasets/semijoin (join gen)
	"Where": "where", "Rows": "rows", "Selectivity": "selectivity", "Shape": "key-shape", "Distinct": "distinct", "Zipf": "zipf",
}

// Name returns the flag of the option named option: the table's, or a
// filter kind's own option ("Sizing.bucket-size", filters.Option), which is
// a flag of its name.
func Name(option string) (string, bool) {
	if f, ok := names[option]; ok {
		return f, true
	}
	if o, ok := strings.CutPrefix(option, "Sizing."); ok && kindOption.MatchString(o) {
		return o, true
	}
	return "", false
}

// kindOption matches the names of the filter kinds' options.
var kindOption = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Rewrite returns err with its option.Error (if any, of an option that has
// a flag) said as "cmd: --flag value: reason", the value as the user spelled
// it when fs has the flag and the user set it (strings quoted when they need
// to be), else the value the library used; other errors unchanged. O(flags).
func Rewrite(cmd string, fs *flag.FlagSet, err error) error {
	var oe *option.Error
	if !errors.As(err, &oe) {
		return err
	}
	// --on set the key columns of both sides: an error about one of
	// them names it, not --key-col or --join-col, which were not given.
	if (oe.Name == "KeyCol" || oe.Name == "JoinCol") && isSet(fs, "on") {
		return &rewritten{fmt.Sprintf("%s: --on %s: %s", cmd, fs.Lookup("on").Value, oe.Reason), err}
	}
	name, ok := Name(oe.Name)
	if !ok {
		return err
	}
	value := fmt.Sprint(oe.Value)
	set := false
	if fs != nil {
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	}
	if f := lookup(fs, name); f != nil && set {
		v := f.Value
		if u, ok := v.(interface{ Unwrap() flag.Value }); ok { // a wrapper (join's once-only flags)
			v = u.Unwrap()
		}
		value = v.String()
		if g, ok := v.(flag.Getter); ok {
			if str, ok := g.Get().(string); ok {
				value = strconv.Quote(str)
				if str != "" && !strings.ContainsAny(str, " \t\"\n\r") {
					value = str
				}
			}
		}
	}
	reason := reasonRef.ReplaceAllStringFunc(oe.Reason, func(m string) string {
		if f, ok := Name(m[1 : len(m)-1]); ok {
			return "(--" + f + ")"
		}
		return m
	})
	if !set && (value == "" || value == `""`) { // a flag left out: its reason says what it is ("required with a window")
		return &rewritten{fmt.Sprintf("%s: --%s is %s", cmd, name, reason), err}
	}
	if !set && fs != nil && lookup(fs, name) != nil {
		value += " (the default)" // a value the user did not give
	}
	return &rewritten{fmt.Sprintf("%s: --%s %s: %s", cmd, name, value, reason), err}
}

// rewritten is an error said in flags' words that still wraps the
// library's error (errors.Is and As see its sentinel and cause).
type rewritten struct {
	msg string
	err error
}

func (r *rewritten) Error() string { return r.msg }
func (r *rewritten) Unwrap() error { return r.err }

// isSet reports whether the flag name was given on fs's command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	if fs != nil {
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	}
	return set
}

func lookup(fs *flag.FlagSet, name string) *flag.Flag {
	if fs == nil {
		return nil
	}
	return fs.Lookup(name)
}

// reasonRef matches an option named in a reason's words, "needs a bank
// (Bank)": Rewrite names its flag there instead.
var reasonRef = regexp.MustCompile(`\((?:Sizing\.)?[A-Z][A-Za-z0-9]*\)`)

// optionText matches an option.Error's text, "pkg: Name value: reason".
var optionText = regexp.MustCompile(`\b[a-z]+: ((?:Sizing\.)?[A-Z][A-Za-z0-9]*|Sizing\.[a-z][a-z0-9-]*) ([^:\n]*): `)

// RewriteText rewrites, in an error's text that crossed a process (a Beam
// worker's error reaches the launcher as text), each option.Error's
// "pkg: Name value: " as "--flag value: ", for the options of the table.
func RewriteText(msg string) string {
	return optionText.ReplaceAllStringFunc(msg, func(m string) string {
		sub := optionText.FindStringSubmatch(m)
		if f, ok := Name(sub[1]); ok {
			return "--" + f + " " + sub[2] + ": "
		}
		return m
	})
}
