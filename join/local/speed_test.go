package local

import (
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestConstantsScaled: the cost model's constants are the reference's
// times how much slower this machine hashes (here injected: 2.5x), in
// --filter auto's model and in the filter guard alike; with AutoTimings
// (a test's or a replay's decision) they are the reference's own.
func TestConstantsScaled(t *testing.T) {
	defer func(f func() float64, s float64) { hashNs, testShuffleNs = f, s }(hashNs, testShuffleNs)
	hashNs, testShuffleNs = func() float64 { return 2.5 * choose.ReferenceHashNs }, -1
	x := &execution{opt: join.Options{Resources: join.Resources{Mappers: 2}, FilterChoice: join.FilterChoice{Filter: filters.Bloom}}}
	cons, f := x.constants()
	if f != 2.5 || cons != choose.DefaultConstants.Scaled(2.5) {
		t.Errorf("constants = %+v, factor %v; want the reference's times 2.5", cons, f)
	}
	if g := newFilterGuard(x); g.shuffleNsEach != 2*2.5*choose.DefaultConstants.ShuffleNsPerRecord {
		t.Errorf("the guard's shuffle ns a dropped row = %v, want 2 mappers x 2.5 x %v", g.shuffleNsEach, choose.DefaultConstants.ShuffleNsPerRecord)
	}
	x.opt.AutoTimings = map[filters.Kind]join.AutoTiming{}
	if cons, f := x.constants(); f != 1 || cons != choose.DefaultConstants {
		t.Errorf("with AutoTimings: constants = %+v, factor %v; want the reference's", cons, f)
	}
}

// TestHashNs: the machine's hash time is measured as a positive, finite
// number of ns (its size is the machine's: not checked).
func TestHashNs(t *testing.T) {
	if ns := hashNs(); !(ns > 0) || ns > 1e6 {
		t.Errorf("hashNs() = %v", ns)
	}
}
