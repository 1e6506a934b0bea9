package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Parse parses a command's flags (prog names the program in the hint: "join
// run"). A bad flag is one line naming it and where the help is (not the
// whole usage); a flag given twice is refused (--out a --out b would keep b,
// silently) but a Repeated one; positional arguments are refused. -h prints
// the command's usage and returns flag.ErrHelp. The other errors are usage
// errors (a bad command line).
func Parse(fs *flag.FlagSet, args []string, prog string) error {
	Once(fs)
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package would print the usage on every error
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		fs.VisitAll(func(f *flag.Flag) { // the usage names a flag's type from its Value's
			if o, ok := f.Value.(*onceValue); ok {
				f.Value = o.Value
			}
		})
		fs.Usage()
		return err
	}
	if err != nil {
		hint := ""
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			hint = DidYouMean(strings.TrimLeft(name, "-"), flagNames(fs), "--")
		}
		return fmt.Errorf("%s: %w%s (see %s -h)", fs.Name(), err, hint, prog)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q (flags start with -; see %s -h)", fs.Name(), strings.Join(fs.Args(), " "), prog)
	}
	return emptyFlag(fs)
}

// emptyFlag refuses a text flag given with an empty value (--dataset "",
// --filter ""): every text flag's empty value is its default or nothing,
// never what a user who typed the flag meant.
func emptyFlag(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		v := f.Value
		if o, ok := v.(*onceValue); ok {
			v = o.Value
		}
		if g, ok := v.(flag.Getter); ok && err == nil {
			if s, isText := g.Get().(string); isText && s == "" {
				err = fmt.Errorf("%s: --%s is empty", fs.Name(), f.Name)
				if f.DefValue != "" {
					err = fmt.Errorf("%w (leave it out for its default, %s)", err, f.DefValue)
				}
			}
		}
	})
	return err
}

// Once makes every flag of fs but the Repeated ones refuse a second value.
func Once(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Value.(type) {
		case *Repeated, *onceValue:
		default:
			f.Value = &onceValue{Value: f.Value}
		}
	})
}

// UsageWithExamples sets the usage of a command: its synopsis, its flags
// and a few examples.
func UsageWithExamples(fs *flag.FlagSet, synopsis, examples string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), examples)
	}
}

// onceValue refuses a second Set of a flag.
type onceValue struct {
	flag.Value
	set bool
}

// Unwrap returns the flag's own value (Rewrite quotes a string's).
func (o *onceValue) Unwrap() flag.Value { return o.Value }

// String is the flag's value's; "" for the zero onceValue that
// flag.PrintDefaults makes to tell a default from a zero value.
func (o *onceValue) String() string {
	if o == nil || o.Value == nil {
		return ""
	}
	return o.Value.String()
}

func (o *onceValue) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%q, then %q)", o.Value.String(), v)
	}
	o.set = true
	return o.Value.Set(v)
}

// IsBoolFlag keeps a boolean flag one without a value.
func (o *onceValue) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Repeated collects a flag that may be given several times.
type Repeated []string

func (m *Repeated) String() string     { return strings.Join(*m, ",") }
func (m *Repeated) Set(v string) error { *m = append(*m, v); return nil }

// Count is a count given as an integer or in e-notation (1e6), as filter
// sizes usually are: a whole number from 0 to 2^37.
type Count struct{ N int }

func (c *Count) String() string { return strconv.Itoa(c.N) }

func (c *Count) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || v < 0 || v > math.MaxInt32*64.0 {
		return fmt.Errorf("want a whole number such as 100000 or 1e6")
	}
	c.N = int(v)
	return nil
}

// KeyTypeUsage is the --key-type flag's help, every command's (join's and
// beamjoin's).
const KeyTypeUsage = "compare keys as auto, int or string: one type for every key column, or one a column in order (int,string). auto: a Parquet or Arrow column's type; " +
	"for CSV, int when every key of the key side is a canonical integer (no sign, no leading zero), else string; a NULL key never matches (an empty CSV field, quoted or not, is NULL; an empty string of a Parquet or Arrow column is a value)"
