// Package option is the error type of invalid options: the library's packages
// name the option (a field of their Options or Sizing) and the command line
// maps that name to its flag, so that neither says the other's words.
package option

import (
	"errors"
	"fmt"
)

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

// Within returns err, if it is an *Error, as package pkg's, wrapping its
// sentinel too: an option checked by a lower package on pkg's behalf (the
// key package's column rules, for join, stream and Beam), so that pkg's
// callers find pkg's sentinel. The original stays in the chain. Other
// errors come back unchanged.
func Within(err error, pkg string, sentinel error) error {
	var oe *Error
	if !errors.As(err, &oe) {
		return err
	}
	c := *oe
	c.Pkg, c.Err, c.Cause = pkg, sentinel, oe
	return &c
}
