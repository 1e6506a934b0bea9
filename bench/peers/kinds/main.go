// Command kinds measures the filter kinds of issue 14 against their Go peers
// in one run, alternating between them round by round, and checks the goals
// of bench/results/filter-kinds.md:
//
//   - cuckoo (acbfjoin/cuckoo, b = 4, f = 8) against seiflotfy/cuckoofilter
//     (b = 4, 8-bit fingerprints), at n keys: Add, Contains of members and of
//     non-members, Remove, FP, bytes; and the table filled to 95% without a
//     failed insert; 10 rounds deleting and re-inserting 20% lose nothing;
//   - scalable (acbfjoin/scalable: n0 1000, P0 0.001, s 2, r 0.5) grown to
//     100,000 keys against tylertreat/BoomFilters' ScalableBloomFilter with
//     the same n0, P0 and r (it adds sub-filters of n0 keys);
//   - blocked and the binary fuse filter (the fuse kind) beside our classic
//     Bloom filter (the bloom kind, bits-and-blooms/bloom/v3) at the same
//     bits per key, each with its best k or fingerprint;
//   - the fuse kind against FastFilter/xorfilter's BinaryFuse8 itself, on
//     the same keys as uint64s: what our key reduction and format cost.
//
// With -eval FILE..., the JSON of `join filter eval --report-json` runs, it
// also checks that every kind passed (FP within 4 sd of its fill, no false
// negative) and prints each kind's z against the formula.
//
// Times are ns per operation on one goroutine, medians over -rounds rounds.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/FastFilter/xorfilter"
	cuckoopeer "github.com/seiflotfy/cuckoofilter"
	boom "github.com/tylertreat/BoomFilters"

	"github.com/acbfjoin/acbfjoin/cuckoo"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/scalable"
)

// keys returns n distinct 8-byte keys of a PCG stream; member keys have the
// top bit clear, the others set, so the two never meet.
func keys(seed, stream uint64, n int, member bool) [][]byte {
	r := rand.NewPCG(seed, stream)
	seen := make(map[uint64]bool, n)
	buf := make([]byte, 8*n)
	out := make([][]byte, 0, n)
	for len(out) < n {
		v := r.Uint64() >> 1
		if !member {
			v |= 1 << 63
		}
		if seen[v] {
			continue
		}
		seen[v] = true
		k := buf[8*len(out) : 8*len(out)+8 : 8*len(out)+8]
		binary.BigEndian.PutUint64(k, v)
		out = append(out, k)
	}
	return out
}

// sample is one round's measurements of one filter (ns per op; NaN: not
// measured).
type sample struct {
	add, hit, miss, remove float64
	fp                     float64
	bytes                  int
	note                   string
}

func nsPer(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / float64(n) }

// timeLoop times f over ks and returns ns per key and how many returned true.
func timeLoop(ks [][]byte, f func([]byte) bool) (float64, int) {
	yes := 0
	start := time.Now()
	for _, k := range ks {
		if f(k) {
			yes++
		}
	}
	return nsPer(time.Since(start), len(ks)), yes
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v) == 0 {
		return math.NaN()
	}
	return v[len(v)/2]
}

type contender struct {
	name string
	run  func() sample
	got  []sample
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kinds:", err)
	os.Exit(1)
}

// race runs the contenders rounds times, alternating, and prints a table of
// medians. It returns the medians by name.
func race(title string, rounds int, cs []*contender) map[string]sample {
	for r := 0; r < rounds; r++ {
		for i := range cs {
			c := cs[(r+i)%len(cs)] // alternate who goes first
			c.got = append(c.got, c.run())
		}
	}
	fmt.Printf("\n### %s\n\n", title)
	fmt.Println("| filter | ns/Add | ns/Contains (members) | ns/Contains (non-members) | ns/Remove | measured FP | bytes | note |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---|")
	out := map[string]sample{}
	for _, c := range cs {
		var add, hit, miss, rm, fp []float64
		for _, s := range c.got {
			add, hit, miss, rm, fp = append(add, s.add), append(hit, s.hit), append(miss, s.miss), append(rm, s.remove), append(fp, s.fp)
		}
		m := sample{add: median(add), hit: median(hit), miss: median(miss), remove: median(rm), fp: median(fp), bytes: c.got[0].bytes, note: c.got[0].note}
		out[c.name] = m
		f := func(v float64) string {
			if math.IsNaN(v) {
				return "-"
			}
			return fmt.Sprintf("%.1f", v)
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %.3g | %d | %s |\n", c.name, f(m.add), f(m.hit), f(m.miss), f(m.remove), m.fp, m.bytes, m.note)
	}
	return out
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds, alternating between the filters")
	n := flag.Int("n", 1_000_000, "keys of the cuckoo and blocked comparisons")
	q := flag.Int("queries", 1_000_000, "lookups of members and of non-members, each")
	bpk := flag.Float64("bits-per-key", 10, "bits per key of the blocked-against-Bloom comparison")
	seed := flag.Uint64("seed", 1, "seed of the keys")
	eval := flag.String("eval", "", "comma-separated JSON files of join filter eval --report-json to check")
	flag.Parse()
	var goals []string
	goal := func(ok bool, format string, a ...any) {
		verdict := "met"
		if !ok {
			verdict = "**missed**"
		}
		goals = append(goals, fmt.Sprintf("- %s: %s", fmt.Sprintf(format, a...), verdict))
	}

	members := keys(*seed, 1, *n, true)
	hits := members[:min(*q, len(members))]
	misses := keys(*seed, 2, *q, false)

	// Cuckoo against seiflotfy/cuckoofilter, 8-bit fingerprints, b = 4.
	ours := &contender{name: "acbfjoin/cuckoo (b=4, f=8)", run: func() sample {
		f, err := cuckoo.New(uint64(*n), 4, 8)
		if err != nil {
			fail(err)
		}
		start := time.Now()
		for _, k := range members {
			if err := f.Add(k); err != nil {
				fail(fmt.Errorf("our cuckoo filter refused key %d of %d (its capacity): %w", f.Len()+1, *n, err))
			}
		}
		s := sample{add: nsPer(time.Since(start), len(members)), bytes: int(f.SerializedSize()),
			note: fmt.Sprintf("%d buckets, load %.3f", f.Buckets(), f.LoadFactor())}
		s.hit, _ = timeLoop(hits, f.Contains)
		var fp int
		s.miss, fp = timeLoop(misses, f.Contains)
		s.fp = float64(fp) / float64(len(misses))
		d := members[:len(members)/5]
		s.remove, _ = timeLoop(d, func(k []byte) bool { return f.Remove(k) == nil })
		for _, k := range d {
			if err := f.Add(k); err != nil {
				fail(fmt.Errorf("our cuckoo filter: re-insert: %w", err))
			}
		}
		return s
	}}
	peer := &contender{name: "seiflotfy/cuckoofilter", run: func() sample {
		f := cuckoopeer.NewFilter(uint(*n))
		start := time.Now()
		failed := 0
		for _, k := range members {
			if !f.Insert(k) {
				failed++
			}
		}
		s := sample{add: nsPer(time.Since(start), len(members)), bytes: len(f.Encode()), note: fmt.Sprintf("%d inserts refused", failed)}
		s.hit, _ = timeLoop(hits, f.Lookup)
		var fp int
		s.miss, fp = timeLoop(misses, f.Lookup)
		s.fp = float64(fp) / float64(len(misses))
		d := members[:len(members)/5]
		s.remove, _ = timeLoop(d, f.Delete)
		for _, k := range d {
			f.Insert(k)
		}
		return s
	}}
	cm := race(fmt.Sprintf("Cuckoo filters, n = %d, %d lookups each of members and non-members", *n, *q), *rounds, []*contender{ours, peer})
	co, cp := cm[ours.name], cm[peer.name]
	goal(co.hit <= cp.hit && co.miss <= cp.miss, "cuckoo Contains at least as fast as seiflotfy/cuckoofilter: members %.1f vs %.1f ns (%.2fx), non-members %.1f vs %.1f ns (%.2fx)",
		co.hit, cp.hit, co.hit/cp.hit, co.miss, cp.miss, co.miss/cp.miss)
	goal(co.add <= cp.add, "cuckoo Add at least as fast as seiflotfy/cuckoofilter: %.1f vs %.1f ns (%.2fx)", co.add, cp.add, co.add/cp.add)

	// Cuckoo: 95% load without a failed insert, then 10 rounds of deleting
	// and re-inserting 20%, checked against the set.
	{
		f, err := cuckoo.New(uint64(*n), 4, 8)
		if err != nil {
			fail(err)
		}
		fill := keys(*seed, 3, int(f.Cap()), true)
		refused := 0
		for _, k := range fill {
			if f.Add(k) != nil {
				refused++
			}
		}
		goal(refused == 0, "cuckoo filled to its capacity %d (load %.3f, b = 4) with %d refused inserts", f.Cap(), f.LoadFactor(), refused)
		rng := rand.New(rand.NewPCG(*seed, 4))
		lost, reinsertFailed := 0, 0
		for round := 0; round < 10; round++ {
			rng.Shuffle(len(fill), func(i, j int) { fill[i], fill[j] = fill[j], fill[i] })
			d := fill[:len(fill)/5]
			for _, k := range d {
				if err := f.Remove(k); err != nil {
					fail(fmt.Errorf("cuckoo: removing a member: %w", err))
				}
			}
			for _, k := range d {
				if f.Add(k) != nil {
					reinsertFailed++
				}
			}
			for _, k := range fill {
				if !f.Contains(k) {
					lost++
				}
			}
		}
		goal(lost == 0 && reinsertFailed == 0, "cuckoo at load %.3f: 10 rounds deleting and re-inserting 20%% lost %d keys (%d re-inserts refused, each reported as ErrFull)", f.LoadFactor(), lost, reinsertFailed)
	}

	// Scalable, 1,000 -> 100,000 keys.
	const grown = 100_000
	sm := members[:grown]
	var ourSub, peerSub int
	ourS := &contender{name: "acbfjoin/scalable (n0 1000, P0 0.001, s 2, r 0.5)", run: func() sample {
		f, err := scalable.New(scalable.Config{InitialCapacity: 1000, FPP: 0.001, Growth: 2, Tightening: 0.5})
		if err != nil {
			fail(err)
		}
		start := time.Now()
		for _, k := range sm {
			if err := f.Add(k); err != nil {
				fail(err)
			}
		}
		ourSub = f.Filters()
		s := sample{add: nsPer(time.Since(start), len(sm)), bytes: int(f.SerializedSize()), remove: math.NaN(),
			note: fmt.Sprintf("%d sub-filters, bound %.3g", f.Filters(), f.Bound())}
		s.hit, _ = timeLoop(sm, f.Contains)
		var fp int
		s.miss, fp = timeLoop(misses, f.Contains)
		s.fp = float64(fp) / float64(len(misses))
		return s
	}}
	peerS := &contender{name: "tylertreat/BoomFilters ScalableBloomFilter (hint 1000, 0.001, r 0.5)", run: func() sample {
		f := boom.NewScalableBloomFilter(1000, 0.001, 0.5)
		start := time.Now()
		for _, k := range sm {
			f.Add(k)
		}
		s := sample{add: nsPer(time.Since(start), len(sm)), remove: math.NaN()}
		var buf countWriter
		f.WriteTo(&buf)
		s.bytes = int(buf)
		peerSub = int((f.Capacity() + 999) / 1000)
		s.note = fmt.Sprintf("%d sub-filters", peerSub)
		s.hit, _ = timeLoop(sm, f.Test)
		var fp int
		s.miss, fp = timeLoop(misses, f.Test)
		s.fp = float64(fp) / float64(len(misses))
		return s
	}}
	sres := race(fmt.Sprintf("Scalable Bloom filters grown from 1,000 to %d keys, %d non-member lookups", grown, *q), *rounds, []*contender{ourS, peerS})
	so, sp := sres[ourS.name], sres[peerS.name]
	goal(ourSub == 7, "scalable grown 1,000 -> 100,000 keys with s = 2 holds %d sub-filters (7 expected); BoomFilters holds %d", ourSub, peerSub)
	sd := math.Sqrt(0.002 * (1 - 0.002) / float64(*q))
	goal(so.fp <= 0.002+4*sd, "scalable FP %.4g <= P0/(1-r) = 0.002 + 4 sd (%.2g)", so.fp, 4*sd)
	goal(so.hit < sp.hit && so.miss < sp.miss, "scalable lookups faster than BoomFilters' ScalableBloomFilter: members %.1f vs %.1f ns (%.2fx), non-members %.1f vs %.1f ns (%.2fx)",
		so.hit, sp.hit, so.hit/sp.hit, so.miss, sp.miss, so.miss/sp.miss)

	// Blocked and fuse beside the bloom kind at the same bits per key.
	kindContender := func(name string, kind filters.Kind, sz filters.Sizing) *contender {
		return &contender{name: name, run: func() sample {
			start := time.Now()
			b, err := filters.Build(kind, members, sz)
			if err != nil {
				fail(err)
			}
			s := sample{add: nsPer(time.Since(start), len(members)), bytes: int(b.SerializedBytes), remove: math.NaN(), note: b.Spell()}
			s.hit, _ = timeLoop(hits, b.Filter.Contains)
			var fp int
			s.miss, fp = timeLoop(misses, b.Filter.Contains)
			s.fp = float64(fp) / float64(len(misses))
			return s
		}}
	}
	atBits := filters.Sizing{BitsPerKey: *bpk}
	blk := kindContender("acbfjoin blocked", filters.Blocked, atBits)
	blo := kindContender("acbfjoin bloom (bits-and-blooms/bloom/v3 bits, our probes)", filters.Bloom, atBits)
	fus := kindContender("acbfjoin fuse (FastFilter/xorfilter)", filters.Fuse, atBits)
	bres := race(fmt.Sprintf("Blocked, binary fuse and classic Bloom filters, n = %d, %.0f bits per key, each at its best k or fingerprint", *n, *bpk), *rounds, []*contender{blk, blo, fus})
	b1, b2 := bres[blk.name], bres[blo.name]
	goal(b1.hit <= 0.5*b2.hit && b1.miss <= 0.5*b2.miss, "blocked Contains <= 0.5x our classic Bloom's at %.0f bits per key: members %.1f vs %.1f ns (%.2fx), non-members %.1f vs %.1f ns (%.2fx)",
		*bpk, b1.hit, b2.hit, b1.hit/b2.hit, b1.miss, b2.miss, b1.miss/b2.miss)

	// The fuse kind against the library it wraps, on the same keys.
	u64 := func(ks [][]byte) []uint64 {
		out := make([]uint64, len(ks))
		for i, k := range ks {
			out[i] = binary.LittleEndian.Uint64(k)
		}
		return out
	}
	mu := u64(members)
	lib := &contender{name: "FastFilter/xorfilter BinaryFuse8 (the keys' bytes as uint64s)", run: func() sample {
		start := time.Now()
		f, err := xorfilter.PopulateBinaryFuse8(slices.Clone(mu))
		if err != nil {
			fail(err)
		}
		s := sample{add: nsPer(time.Since(start), len(mu)), bytes: len(f.Fingerprints), remove: math.NaN(), note: "the array alone"}
		// Through the same loop as ours: a function of the key's bytes.
		contains := func(k []byte) bool { return f.Contains(binary.LittleEndian.Uint64(k)) }
		s.hit, _ = timeLoop(hits, contains)
		var fp int
		s.miss, fp = timeLoop(misses, contains)
		s.fp = float64(fp) / float64(len(misses))
		return s
	}}
	ourFuse := kindContender("acbfjoin fuse, f = 8", filters.Fuse, filters.Sizing{}.With(filters.OptionFingerprintBits, 8))
	fres := race(fmt.Sprintf("Binary fuse filters, n = %d, 8-bit fingerprints", *n), *rounds, []*contender{ourFuse, lib})
	f1, f2 := fres[ourFuse.name], fres[lib.name]
	goal(f1.hit <= 1.25*f2.hit && f1.miss <= 1.25*f2.miss, "fuse Contains within 1.25x of the library it wraps: members %.1f vs %.1f ns (%.2fx), non-members %.1f vs %.1f ns (%.2fx)",
		f1.hit, f2.hit, f1.hit/f2.hit, f1.miss, f2.miss, f1.miss/f2.miss)
	fsd := math.Sqrt(math.Ldexp(1, -8) * (1 - math.Ldexp(1, -8)) / float64(len(misses)))
	goal(math.Abs(f1.fp-math.Ldexp(1, -8)) <= 4*fsd, "fuse FP %.4g within 4 sd of 2^-8 = %.4g (sd %.2g)", f1.fp, math.Ldexp(1, -8), fsd)

	if *eval != "" {
		fmt.Printf("\n### `join filter eval`: every kind against its formula\n\n")
		fmt.Println("| n | queries | kind | bits per key | FP measured | FP of its fill | z | FP formula | z formula | false negatives | insert failures | result |")
		fmt.Println("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
		for _, path := range strings.Split(*eval, ",") {
			data, err := os.ReadFile(path)
			if err != nil {
				fail(err)
			}
			var rep struct {
				N, Queries, Churn int
				Results           []struct {
					Kind           string
					BitsPerKey     float64 `json:"bits_per_key"`
					FPP            float64
					FillFPP        float64 `json:"fpp_fill"`
					FormulaFPP     float64 `json:"fpp_formula"`
					Z              float64
					ZFormula       float64 `json:"z_formula"`
					FalseNegatives int64   `json:"false_negatives"`
					InsertFailures int64   `json:"insert_failures"`
					Pass           bool
					Err            string `json:"error"`
					ChurnRounds    int    `json:"churn_rounds"`
				}
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				fail(fmt.Errorf("%s: %w", path, err))
			}
			var failed, formulaOff []string
			for _, r := range rep.Results {
				fill, z := "-", "-"
				if r.FillFPP >= 0 {
					fill, z = fmt.Sprintf("%.4g", r.FillFPP), fmt.Sprintf("%+.2f", r.Z)
				}
				zf := "-"
				if r.FormulaFPP > 0 && r.FormulaFPP < 1 {
					zf = fmt.Sprintf("%+.2f", r.ZFormula)
					if math.Abs(r.ZFormula) > 4 {
						formulaOff = append(formulaOff, fmt.Sprintf("%s (%+.1f)", r.Kind, r.ZFormula))
					}
				}
				verdict := "PASS"
				if !r.Pass || r.Err != "" {
					verdict = "FAIL " + r.Err
					failed = append(failed, r.Kind)
				}
				fmt.Printf("| %d | %d | %s | %.1f | %.4g | %s | %s | %.4g | %s | %d | %d | %s |\n", rep.N, rep.Queries, r.Kind, r.BitsPerKey, r.FPP, fill, z, r.FormulaFPP, zf, r.FalseNegatives, r.InsertFailures, verdict)
			}
			goal(len(failed) == 0, "n = %d, %d queries, %d churn rounds: every kind's FP within 4 sd of its fill, no false negative (failed: %s)", rep.N, rep.Queries, rep.Churn, orNone(failed))
			goal(len(formulaOff) == 0, "n = %d: every kind's FP within 4 sd of its formula (beyond: %s)", rep.N, orNone(formulaOff))
		}
	}

	fmt.Printf("\n### Goals\n\n%s\n", strings.Join(goals, "\n"))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
