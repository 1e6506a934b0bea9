package app

import (
	"flag"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/filters"
)

// sizingFlags are cli.SizingFlags with their errors marked usage errors
// (exit status 2).
type sizingFlags struct {
	cli.SizingFlags
	fs *flag.FlagSet
}

func (s *sizingFlags) register(fs *flag.FlagSet) { s.fs = fs; s.Register(fs) }

func (s *sizingFlags) set(name string) bool { return s.IsSet(name) }

func (s *sizingFlags) sizing(cmd string) (filters.Sizing, error) {
	z, err := s.Sizing(cmd)
	if err != nil {
		return z, usageError{err}
	}
	return z, nil
}

func (s *sizingFlags) checkKinds(cmd string, filter filters.Kind) error {
	if err := s.CheckKinds(cmd, filter); err != nil {
		return usageError{err}
	}
	return nil
}

// resolve is sizing, then checkKinds for the filter kind (or the --kinds
// given, for ""): the sizing flags of one command, checked.
func (s *sizingFlags) resolve(cmd string, filter filters.Kind) (filters.Sizing, error) {
	z, err := s.sizing(cmd)
	if err != nil {
		return z, err
	}
	return z, s.checkKinds(cmd, filter)
}
