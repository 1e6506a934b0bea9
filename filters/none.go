package filters

import (
	"fmt"
	"io"

	"github.com/acbfjoin/acbfjoin/keylist"
)

// None is no filter: every key passes, every row is shuffled.
const None Kind = "none"

// passAll is the none kind's filter.
type passAll struct{}

func (passAll) Contains([]byte) bool { return true }

// noneParams are the none kind's: nothing.
type noneParams struct{}

func (noneParams) String() string   { return "none" }
func (noneParams) Shape() string    { return "every key passes" }
func (noneParams) Summary() Summary { return Summary{} }

type noneKind struct{}

func init() {
	register(&Spec{Kind: None, Doc: "no filter: every row is shuffled", Order: 0, f: noneKind{}})
}

func (noneKind) size(uint64, Sizing) (Params, error) { return noneParams{}, nil }

func (noneKind) build(Params, keylist.List) (Filter, Params, int64, error) {
	return passAll{}, noneParams{}, 0, nil
}

func (noneKind) encode(Filter, io.Writer) error { return nil }

func (noneKind) decode(data []byte) (Filter, Params, error) {
	if len(data) != 0 {
		return nil, nil, fmt.Errorf("none filter: %d bytes, want none", len(data))
	}
	return passAll{}, noneParams{}, nil
}

func (noneKind) fpp(Params, uint64) float64 { return 1 }

func (noneKind) paramsOf(Filter) Params { return noneParams{} }
