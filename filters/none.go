package filters

import (
	"fmt"
	"io"
)

// passAll is the none kind: every key passes.
type passAll struct{}

func (passAll) Contains([]byte) bool { return true }

func init() {
	register(&Spec{
		Kind:   None,
		Doc:    "no filter: every row is shuffled",
		Order:  0,
		Build:  func(Params, [][]byte) (Filter, int64, error) { return passAll{}, 0, nil },
		Encode: func(Filter, io.Writer) error { return nil },
		Decode: func(data []byte) (Filter, error) {
			if len(data) != 0 {
				return nil, fmt.Errorf("none filter: %d bytes, want none", len(data))
			}
			return passAll{}, nil
		},
		FPP: func(Params, uint64) float64 { return 1 },
	})
}
