package filters

import (
	"fmt"
	"slices"
	"strings"
)

// ParseKinds reads a list of kinds: "all" (every kind, in report order) or
// names separated by commas, each once. An unknown name is an error
// wrapping ErrUnknownKind that lists the kinds. O(len(list)).
func ParseKinds(list string) ([]Kind, error) {
	if strings.TrimSpace(list) == "all" {
		var kinds []Kind
		for _, sp := range Kinds() {
			kinds = append(kinds, sp.Kind)
		}
		return kinds, nil
	}
	var kinds []Kind
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		sp, err := Lookup(s)
		if err != nil {
			return nil, listError{fmt.Sprintf("%q: unknown filter (want all, or some of %s)", s, strings.Join(Names(), ", ")), ErrUnknownKind}
		}
		if slices.Contains(kinds, sp.Kind) {
			return nil, fmt.Errorf("%s is given twice", sp.Kind)
		}
		kinds = append(kinds, sp.Kind)
	}
	return kinds, nil
}

// listError is an error of a list of kinds that wraps err without saying
// it.
type listError struct {
	msg string
	err error
}

func (e listError) Error() string { return e.msg }
func (e listError) Unwrap() error { return e.err }
