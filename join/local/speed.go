package local

import (
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// hashNs is what hashing one integer key in portable Go takes on this
// machine (choose.ReferenceHashNs's measure): the best of 9 rounds of
// 1,024 keys, about 50 us in all, measured once a process when first
// asked. The best, not the median: a round that other work interrupted
// says nothing of the machine. Safe for concurrent use.
var hashNs = sync.OnceValue(func() float64 {
	var vals [1024]int64
	for i := range vals {
		vals[i] = int64(i) * 7919
	}
	var h1s, h2s [1024]uint64
	best := math.Inf(1)
	for range 9 {
		t0 := time.Now()
		for i, v := range vals {
			// sum8IntsGo's loop (hashing.Sum8Ints with ACBFJOIN_CPU=portable),
			// which BenchmarkSum8Ints/portable times.
			h1s[i], h2s[i] = hashing.Sum8(bits.ReverseBytes64(uint64(v) ^ 1<<63))
		}
		best = min(best, float64(time.Since(t0).Nanoseconds())/float64(len(vals)))
	}
	warmed.Add(h1s[len(h1s)-1] ^ h2s[0]) // keep the hashes
	return best
})

// constants are the cost model's constants on this machine:
// choose.DefaultConstants scaled by how much slower than their reference
// machine this one hashes, and that factor. Where Options.AutoTimings is
// set the reference's own (factor 1): a test's or a replay's choice
// depends on the data and the timings given alone.
func (x *execution) constants() (choose.Constants, float64) {
	if x.opt.AutoTimings != nil || testShuffleNs >= 0 {
		return choose.DefaultConstants, 1
	}
	f := choose.SpeedFactor(hashNs())
	return choose.DefaultConstants.Scaled(f), f
}
