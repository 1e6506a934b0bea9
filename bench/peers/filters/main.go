// Command filters compares the project's counting filters with peer filter
// libraries at the same n and about the same memory: FP on non-members, ns per
// lookup, ns per update (one deletion or insertion), and whether the filter
// can delete. It prints a Markdown table (bench/peers.sh saves it).
//
// Sizes follow the paper's simulation: n = 100,000 strings, 1,000,000 non-member
// queries, an update period of 20,000 deletions and 20,000 insertions; memory
// 32 bits per key (the CBF's 8 four-bit counters per key), k = 6.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/FastFilter/xorfilter"
	"github.com/bits-and-blooms/bloom/v3"
	cuckoo "github.com/seiflotfy/cuckoofilter"
	boom "github.com/tylertreat/BoomFilters"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/cbf"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

type result struct {
	name, note         string
	bytes              int
	fp                 float64
	lookupNs, updateNs float64
	deletes            bool
}

func keys(prefix string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, "%s-%d", prefix, i)
	}
	return out
}

// measure times lookups of the queries and, if upd is set, the update period.
func measure(r *result, contains func([]byte) bool, upd func(old, new []byte), set, fresh, queries [][]byte) {
	if upd != nil {
		start := time.Now()
		for i := range fresh {
			upd(set[i], fresh[i])
		}
		r.updateNs = float64(time.Since(start).Nanoseconds()) / float64(2*len(fresh))
	} else {
		r.updateNs = math.NaN()
	}
	fp := 0
	start := time.Now()
	for _, q := range queries {
		if contains(q) {
			fp++
		}
	}
	r.lookupNs = float64(time.Since(start).Nanoseconds()) / float64(len(queries))
	r.fp = float64(fp) / float64(len(queries))
}

func main() {
	n := flag.Int("n", 100_000, "elements")
	q := flag.Int("queries", 1_000_000, "non-member queries")
	u := flag.Int("updates", 20_000, "deletions (and as many insertions) in the update period")
	bpk := flag.Float64("bits-per-key", 32, "memory per element for the sized filters")
	flag.Parse()
	set, fresh, queries := keys("elem", *n), keys("new", *u), keys("query", *q)
	m := uint64(*bpk * float64(*n) / 4)
	k := int(math.Round(float64(m) / float64(*n) * math.Ln2))
	var rs []result

	{ // our CBF
		f, _ := cbf.New(m, k)
		for _, key := range set {
			f.Add(key)
		}
		r := result{name: "acbfjoin/cbf", bytes: int((m + 1) / 2), deletes: true}
		measure(&r, f.Contains, func(o, nw []byte) { f.Remove(o); f.Add(nw) }, set, fresh, queries)
		rs = append(rs, r)
	}
	for _, j := range []int{0, 3} { // our ACBF_opt and ACBF_3
		cfg := acbf.ConfigOptimal(m, uint64(*n), k)
		name := "acbfjoin/acbf (optimal)"
		if j == 3 {
			cfg, name = acbf.ConfigJ(3, m, uint64(*n), k), "acbfjoin/acbf_3"
		}
		f, err := acbf.New(cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, key := range set {
			f.Add(key)
		}
		r := result{name: name, bytes: int(f.Stats().ResidentBytes), deletes: true, note: fmt.Sprintf("logical %d bytes", f.Stats().BudgetBits/8)}
		measure(&r, f.Contains, func(o, nw []byte) { f.Remove(o); f.Add(nw) }, set, fresh, queries)
		rs = append(rs, r)
	}
	{ // plain Bloom filter, same 4m bits, same k; cannot delete: the update period only inserts
		f := bloom.New(uint(4*m), uint(k))
		for _, key := range set {
			f.Add(key)
		}
		r := result{name: "bits-and-blooms/bloom/v3", bytes: int(4 * m / 8), deletes: false, note: "no deletion: the 20K old elements stay (n+20K)"}
		measure(&r, f.Test, func(_, nw []byte) { f.Add(nw) }, set, fresh, queries)
		r.updateNs *= 2 // one insertion per pair
		rs = append(rs, r)
	}
	{ // BoomFilters counting Bloom filter, 4-bit buckets, sized to m counters
		p := math.Exp(-float64(m) / float64(*n) * math.Ln2 * math.Ln2)
		f := boom.NewCountingBloomFilter(uint(*n), 4, p)
		for _, key := range set {
			f.Add(key)
		}
		r := result{name: "tylertreat/BoomFilters (counting)", bytes: int(f.Capacity() * 4 / 8), deletes: true, note: fmt.Sprintf("k = %d", f.K())}
		measure(&r, f.Test, func(o, nw []byte) { f.TestAndRemove(o); f.Add(nw) }, set, fresh, queries)
		rs = append(rs, r)
	}
	{ // cuckoo filter: 8-bit fingerprints, 4 per bucket; capacity rounded to a power of two
		f := cuckoo.NewFilter(uint(*n))
		for _, key := range set {
			f.Insert(key)
		}
		r := result{name: "seiflotfy/cuckoofilter", bytes: len(f.Encode()), deletes: true}
		measure(&r, f.Lookup, func(o, nw []byte) { f.Delete(o); f.Insert(nw) }, set, fresh, queries)
		rs = append(rs, r)
	}
	{ // binary fuse filter: static, built from 64-bit hashes of the keys
		hs := make([]uint64, len(set))
		for i, key := range set {
			hs[i], _ = hashing.Sum(key)
		}
		f, err := xorfilter.PopulateBinaryFuse8(hs)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		r := result{name: "FastFilter/xorfilter (binary fuse 8)", bytes: len(f.Fingerprints), deletes: false, note: "static: rebuilt to change; keys pre-hashed with murmur3"}
		measure(&r, func(key []byte) bool { h, _ := hashing.Sum(key); return f.Contains(h) }, nil, set, fresh, queries)
		rs = append(rs, r)
	}

	fmt.Printf("n = %d, %d non-member queries, update period %d + %d, %.0f bits per key for the sized filters (m = %d counters, k = %d)\n\n",
		*n, *q, *u, *u, *bpk, m, k)
	fmt.Println("| filter | bytes | bits/key | FP | ns/lookup | ns/update op | deletes | note |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		upd := "n/a"
		if !math.IsNaN(r.updateNs) {
			upd = fmt.Sprintf("%.0f", r.updateNs)
		}
		fmt.Printf("| %s | %d | %.1f | %.3g | %.1f | %s | %v | %s |\n", r.name, r.bytes, float64(8*r.bytes)/float64(*n), r.fp, r.lookupNs, upd, r.deletes, r.note)
	}
}
