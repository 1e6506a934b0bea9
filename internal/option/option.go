// Package option is the error type of invalid options: the library's packages
// name the option (a field of their Options or Sizing) and the command line
// maps that name to its flag, so that neither says the other's words.
package option

import "fmt"

// Error is an invalid option: its name as the library calls it
// ("Mappers", "Sizing.BitsPerKey"), the value given, and why it is refused.
// It wraps a package sentinel (join.ErrOptions, filters.ErrSizing) and, where
// there is one, the cause (acbf.ErrConfig).
type Error struct {
	Pkg    string // the package that refused it: "join", "filters"
	Name   string // the option
	Value  any    // the value given
	Reason string // what is wrong, and what would do
	Err    error  // the sentinel
	Cause  error  // the underlying error, or nil
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s %v: %s", e.Pkg, e.Name, e.Value, e.Reason)
}

// Unwrap returns the sentinel and the cause, for errors.Is.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}
