// Package evaluate measures filter kinds on synthetic keys, as `join filter
// eval` prints them: each kind of the registry is sized and built for n keys,
// then its false positives are counted over fresh non-members and compared
// with its formula (a z-score), its false negatives counted (there must be
// none), and its operations timed. Deletable kinds can be churned first:
// rounds that delete and re-insert a fifth of the keys (the paper's update
// period), checked against an exact model of the set.
//
// Keys are 8-byte big-endian integers, the form the join gives integer keys:
// members have the top bit clear and queries the top bit set, so no query is
// a member; both come from PCG streams of the seed, so a run is reproducible.
//
// Evaluate runs the kinds one after another on one goroutine (timings are
// per core). Memory: the keys (about 40 bytes each) and one filter at a time.
package evaluate

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
)

// Config is what to evaluate.
type Config struct {
	Kinds   []filters.Kind // default: every kind of the registry
	N       int            // distinct keys, at least 1
	Queries int            // fresh non-members to count false positives over, at least 1 (DefaultQueries is the command line's)
	// Churn is the number of update rounds for deletable kinds: each
	// deletes a fifth of the keys, chosen at random, and inserts them again.
	Churn  int
	Seed   uint64
	Sizing filters.Sizing
	// Progress, if set, is called as each kind starts a phase.
	Progress func(kind filters.Kind, phase string)
}

// Limits of a Config: enough for the statistics to mean something, few
// enough for the keys to fit in memory.
const (
	MaxN            = 100_000_000
	MaxQueries      = 1_000_000_000
	MaxChurn        = 1000
	DefaultQueries  = 1_000_000
	churnFraction   = 0.2 // the part of the keys each churn round deletes and re-inserts
	batchCheck      = 1 << 20
	queryChunk      = 4096
	batchSize       = 256 // the map phase's batch of keys
	zLimit          = 4   // |z| at most this passes
	insertOnlyExtra = 0.1 // the part of n added to time Add, for kinds that cannot delete
)

// ErrConfig is wrapped by errors about a Config.
var ErrConfig = errors.New("evaluate: invalid config")

// Result is the evaluation of one kind.
type Result struct {
	Kind filters.Kind `json:"kind"`
	// Params are the filter's parameters spelled (filters.Params.String),
	// Shape in a few words (filters.Spec.Describe).
	Params  string `json:"params"`
	Shape   string `json:"shape"`
	Deletes bool   `json:"deletes"`
	N       int    `json:"n"`
	// Bytes is the serialized size; MemoryBits the structure in memory.
	Bytes      int64   `json:"bytes"`
	MemoryBits uint64  `json:"memory_bits"`
	BitsPerKey float64 `json:"bits_per_key"`

	// Queries fresh non-members were asked; FalsePositives said yes.
	Queries        int64   `json:"queries"`
	FalsePositives int64   `json:"false_positives"`
	FPP            float64 `json:"fpp"`         // measured
	FormulaFPP     float64 `json:"fpp_formula"` // the kind's formula with N keys
	// FillFPP is the rate this one filter's contents give (Spec.FillFPP;
	// NaN for kinds without it): FormulaFPP is its expectation over random
	// key sets, and one filter's differs from it by the chance in how its
	// keys fell, which at 10^7 queries can be several binomial sd.
	FillFPP float64 `json:"fpp_fill"`
	// Z is (FPP - FillFPP) / sd, sd = sqrt(p(1-p)/Queries), against the
	// filter's own rate where the kind has one, else against FormulaFPP;
	// ZFormula is always against FormulaFPP (the filter's chance included).
	// NaN when the rate compared with is 0 or 1 (exact, none), where only
	// equality passes.
	Z        float64 `json:"z"`
	ZFormula float64 `json:"z_formula"`
	// FillSD is the sd of FillFPP over fillFilters filters of the kind built
	// from other keys (NaN for kinds without FillFPP): the part of ZFormula's
	// sd that comes from where the keys fell, not from the queries.
	FillSD float64 `json:"fill_sd"`
	// FalseNegatives counts members that tested negative, after the build
	// and after every churn round (must be 0).
	FalseNegatives int64 `json:"false_negatives"`

	// Churn: rounds run, deletes and re-inserts that failed (a failed
	// insert leaves the key out of the set, reported, not lost silently),
	// and the deleted keys that still tested positive before being
	// re-inserted (each key counted the first time it is deleted), against
	// the formula with n minus the deleted keys.
	ChurnRounds      int     `json:"churn_rounds"`
	InsertFailures   int64   `json:"insert_failures"`
	RemoveFailures   int64   `json:"remove_failures"`
	Deleted          int64   `json:"deleted"`
	DeletedPositives int64   `json:"deleted_positives"`
	DeletedExpected  float64 `json:"deleted_fpp_expected"` // the filter's FillFPP (or formula) after each round's deletes, averaged
	DeletedZ         float64 `json:"deleted_z"`
	deletedVar       float64 // the binomial variance of DeletedPositives
	// fpDev and deletedDev are the deviations Pass judged, as z-scores
	// (deviation): the FP check's and the deleted keys' (0 without churn).
	fpDev, deletedDev float64

	// Nanoseconds per key: building the filter, one Add into it, one
	// Remove, one Contains (a loop of single calls), one key of
	// ContainsBatch in batches of 256. NaN where the kind has no such
	// operation.
	BuildNs    float64 `json:"build_ns_per_key"`
	AddNs      float64 `json:"add_ns"`
	RemoveNs   float64 `json:"remove_ns"`
	ContainsNs float64 `json:"contains_ns"`
	BatchNs    float64 `json:"contains_batch_ns"`

	// Pass: no false negative, the FP within 4 sd of the formula (exactly
	// the formula for exact and none), and after churn the deleted keys'
	// FP within 4 sd of theirs.
	Pass bool `json:"pass"`
	// Err is why the kind could not be evaluated (a sizing it cannot meet,
	// a full filter at build time); the other fields are then zero.
	Err string `json:"error,omitempty"`
}

// Validate checks c and fills in its default Kinds. Errors about N,
// Queries and Churn are option.Errors naming the field (wrapping ErrConfig).
func (c Config) Validate() (Config, error) {
	bad := func(name string, v int, format string, a ...any) (Config, error) {
		return c, &option.Error{Pkg: "evaluate", Name: name, Value: v, Reason: fmt.Sprintf(format, a...), Err: ErrConfig}
	}
	if len(c.Kinds) == 0 {
		for _, sp := range filters.Kinds() {
			c.Kinds = append(c.Kinds, sp.Kind)
		}
	}
	for _, k := range c.Kinds {
		if _, err := filters.Lookup(string(k)); err != nil {
			return c, err
		}
	}
	switch {
	case c.N < 1 || c.N > MaxN:
		return bad("N", c.N, "want 1 to %d keys", MaxN)
	case c.Queries < 1 || c.Queries > MaxQueries:
		return bad("Queries", c.Queries, "want 1 to %d", MaxQueries)
	case c.Churn < 0 || c.Churn > MaxChurn:
		return bad("Churn", c.Churn, "want 0 to %d rounds", MaxChurn)
	}
	return c, c.Sizing.Validate()
}

// keyGen yields the 8-byte keys of one PCG stream; members and queries are
// disjoint by their top bit.
type keyGen struct {
	rng    *rand.PCG
	topBit uint64
}

func newKeyGen(seed, stream uint64, member bool) *keyGen {
	g := &keyGen{rng: rand.NewPCG(seed, stream)}
	if !member {
		g.topBit = 1 << 63
	}
	return g
}

func (g *keyGen) next() uint64 { return g.rng.Uint64()>>1 | g.topBit }

// members returns n distinct member keys, each 8 bytes of one backing array.
func members(seed uint64, n int) [][]byte { return membersOf(seed, 1, n) }

// membersOf is members from another stream of the generator.
func membersOf(seed, stream uint64, n int) [][]byte {
	g := newKeyGen(seed, stream, true)
	seen := make(map[uint64]struct{}, n)
	buf := make([]byte, 8*n)
	keys := make([][]byte, 0, n)
	for len(keys) < n {
		v := g.next()
		if _, dup := seen[v]; dup {
			continue
		}
		seen[v] = struct{}{}
		k := buf[8*len(keys) : 8*len(keys)+8 : 8*len(keys)+8]
		binary.BigEndian.PutUint64(k, v)
		keys = append(keys, k)
	}
	return keys
}

// Evaluate evaluates every kind of c. A kind that cannot be built has its
// Err set; Evaluate fails only on a bad Config or a cancelled ctx.
func Evaluate(ctx context.Context, c Config) ([]Result, error) {
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	keys := members(c.Seed, c.N)
	var out []Result
	for _, kind := range c.Kinds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sp, _ := filters.Lookup(string(kind))
		r, err := evaluate(ctx, c, sp, sp, keys)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (c Config) progress(kind filters.Kind, phase string) {
	if c.Progress != nil {
		c.Progress(kind, phase)
	}
}

// fillFilters is how many more filters fillSD builds.
const fillFilters = 8

// fillSD returns the sample sd of FillFPP over fillFilters filters of
// parameters p holding n keys each, of streams other than the members' and
// the queries'. Cost: fillFilters builds.
func fillSD(ctx context.Context, c Config, sp ops, p filters.Params, n int) (float64, error) {
	var sum, sum2 float64
	for i := range uint64(fillFilters) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		f, _, _, err := sp.Build(p, membersOf(c.Seed, 100+i, n))
		if err != nil {
			return math.NaN(), nil // a table that cannot take these keys (a full cuckoo filter): no estimate
		}
		x := sp.FillFPP(f)
		sum += x
		sum2 += x * x
	}
	mean := sum / fillFilters
	return math.Sqrt(max(0, (sum2-fillFilters*mean*mean)/(fillFilters-1))), nil
}

// ops are the operations of a kind that the evaluation calls:
// *filters.Spec's, an interface so that a test can break one.
type ops interface {
	Size(n uint64, s filters.Sizing) (filters.Params, error)
	Build(p filters.Params, keys [][]byte) (filters.Filter, filters.Params, int64, error)
	Describe(p filters.Params) string
	Spell(p filters.Params) string
	FPP(p filters.Params, n uint64) float64
	HasFillFPP() bool
	FillFPP(f filters.Filter) float64
	CanAdd() bool
	Add(f filters.Filter, key []byte) error
	Remove(f filters.Filter, key []byte) error
}

// evaluate evaluates the kind of info through its operations sp (info's
// own, but in tests); keys is not modified.
func evaluate(ctx context.Context, c Config, info *filters.Spec, sp ops, keys [][]byte) (Result, error) {
	kind := info.Kind
	nan := math.NaN()
	r := Result{Kind: kind, N: len(keys), Deletes: info.Deletes, Z: nan, ZFormula: nan, FillFPP: nan, FillSD: nan, DeletedZ: nan,
		AddNs: nan, RemoveNs: nan, BatchNs: nan, DeletedExpected: nan}
	c.progress(kind, "build")
	p, err := sp.Size(uint64(len(keys)), c.Sizing)
	if err != nil {
		r.Err = err.Error()
		return r, nil
	}
	start := time.Now()
	f, p, size, err := sp.Build(p, keys)
	if err != nil {
		r.Err = err.Error()
		return r, nil
	}
	r.BuildNs = nsPer(time.Since(start), len(keys))
	r.Params, r.Shape, r.Bytes = sp.Spell(p), sp.Describe(p), size
	r.MemoryBits = p.Summary().MemoryBits
	r.BitsPerKey = float64(r.MemoryBits) / float64(len(keys))

	set := append([][]byte(nil), keys...) // the model: the keys now in the filter
	r.FalseNegatives += falseNegatives(f, set)
	if info.Deletes && c.Churn > 0 {
		c.progress(kind, "churn")
		if set, err = churn(ctx, c, sp, f, p, set, &r); err != nil {
			return r, err
		}
	}

	c.progress(kind, "queries")
	if err := queries(ctx, c, f, &r); err != nil {
		return r, err
	}
	r.FormulaFPP = sp.FPP(p, uint64(len(set)))
	r.FPP = float64(r.FalsePositives) / float64(r.Queries)
	r.ZFormula = zScore(r.FPP, r.FormulaFPP, r.Queries)
	if sp.HasFillFPP() && !math.IsNaN(r.ZFormula) {
		// The formula is an expectation over filters of random keys; this
		// filter's rate is one draw. The sd of the comparison is that of the
		// queries and of the fill, estimated over fillFilters more filters
		// of the same size built from other keys.
		c.progress(kind, "fill spread")
		sd, err := fillSD(ctx, c, sp, p, len(set))
		if err != nil {
			return r, err
		}
		r.FillSD = sd
		q := r.FormulaFPP * (1 - r.FormulaFPP) / float64(r.Queries)
		r.ZFormula = (r.FPP - r.FormulaFPP) / math.Sqrt(q+sd*sd)
	}
	want := r.FormulaFPP
	if sp.HasFillFPP() {
		r.FillFPP = sp.FillFPP(f)
		want = r.FillFPP
	}
	r.Z = zScore(r.FPP, want, r.Queries)
	r.fpDev = deviation(r.FalsePositives, want*float64(r.Queries), r.Z)
	r.Pass = r.FalseNegatives == 0 && consistent(r.fpDev)
	if r.ChurnRounds > 0 && r.Deleted > 0 {
		r.DeletedZ = math.NaN()
		if r.deletedVar > 0 {
			r.DeletedZ = (float64(r.DeletedPositives) - r.DeletedExpected*float64(r.Deleted)) / math.Sqrt(r.deletedVar)
		}
		r.deletedDev = deviation(r.DeletedPositives, r.DeletedExpected*float64(r.Deleted), r.DeletedZ)
		r.Pass = r.Pass && consistent(r.deletedDev)
	}

	// Time updates the churn did not: a fifth deleted and re-inserted for
	// kinds that delete, a tenth more keys for those that only insert. The
	// filter is not measured after this.
	if sp.CanAdd() && math.IsNaN(r.AddNs) {
		c.progress(kind, "updates")
		timeUpdates(c, sp, info.Deletes, f, set, &r)
	}
	return r, nil
}

// falseNegatives counts the members of set that f says are absent.
func falseNegatives(f filters.Filter, set [][]byte) int64 {
	var fn int64
	for _, k := range set {
		if !f.Contains(k) {
			fn++
		}
	}
	return fn
}

// churn runs c.Churn rounds on f: each deletes a random fifth of set, counts
// how many deleted keys still test positive, re-inserts them, and checks
// every member. It returns the set at the end (without keys whose re-insert
// failed).
func churn(ctx context.Context, c Config, sp ops, f filters.Filter, p filters.Params, set [][]byte, r *Result) ([][]byte, error) {
	rng := rand.New(rand.NewPCG(c.Seed, 3))
	var addTime, removeTime time.Duration
	var adds, removes int
	deletedBefore := map[string]struct{}{}
	for round := 0; round < c.Churn; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := int(math.Round(churnFraction * float64(len(set))))
		// A random d of the set to its end (a partial Fisher-Yates shuffle).
		for i := 0; i < d; i++ {
			j := len(set) - 1 - i
			s := rng.IntN(j + 1)
			set[s], set[j] = set[j], set[s]
		}
		kept, gone := slices.Clone(set[:len(set)-d]), set[len(set)-d:]
		var removed [][]byte
		start := time.Now()
		for _, k := range gone {
			if err := sp.Remove(f, k); err != nil {
				r.RemoveFailures++
				kept = append(kept, k) // still in the filter
				continue
			}
			removed = append(removed, k)
		}
		removeTime += time.Since(start)
		removes += len(gone)
		want := sp.FPP(p, uint64(len(kept)))
		if sp.HasFillFPP() {
			want = sp.FillFPP(f)
		}
		counted := 0
		// A key deleted again in a later round tests as it did before
		// (most of the keys around it are the same): counting it twice
		// would count correlated trials as independent.
		for _, k := range removed {
			if _, again := deletedBefore[string(k)]; again {
				continue
			}
			deletedBefore[string(k)] = struct{}{}
			counted++
			if f.Contains(k) {
				r.DeletedPositives++
			}
		}
		// The expected rate over the rounds, weighted by their keys.
		if total := r.Deleted + int64(counted); total > 0 {
			prev := r.DeletedExpected
			if r.Deleted == 0 {
				prev = 0
			}
			r.DeletedExpected = (prev*float64(r.Deleted) + want*float64(counted)) / float64(total)
		}
		r.Deleted += int64(counted)
		r.deletedVar += float64(counted) * want * (1 - want)
		start = time.Now()
		var failed []int
		for i, k := range removed {
			if err := sp.Add(f, k); err != nil {
				failed = append(failed, i)
			}
		}
		addTime += time.Since(start)
		adds += len(removed)
		r.InsertFailures += int64(len(failed))
		next := kept // a clone of set's head: it can grow into the next set
		for i, k := range removed {
			if len(failed) > 0 && failed[0] == i {
				failed = failed[1:]
				continue
			}
			next = append(next, k)
		}
		set = next
		r.FalseNegatives += falseNegatives(f, set)
		r.ChurnRounds++
	}
	r.AddNs = nsPer(addTime, adds)
	r.RemoveNs = nsPer(removeTime, removes)
	return set, nil
}

// queries asks f about c.Queries fresh non-members, counting false positives
// and timing Contains; on the first batchCheck of them it also times
// ContainsBatch and checks that it answers as Contains does.
func queries(ctx context.Context, c Config, f filters.Filter, r *Result) error {
	g, bg := newKeyGen(c.Seed, 2, false), newKeyGen(c.Seed, 5, false)
	buf := make([]byte, 8*queryChunk)
	chunk := make([][]byte, queryChunk)
	for i := range chunk {
		chunk[i] = buf[8*i : 8*i+8 : 8*i+8]
	}
	bf, isBatch := f.(filters.BatchFilter)
	var single, batch time.Duration
	var batched int
	answers := make([]bool, queryChunk)
	for done := 0; done < c.Queries; done += queryChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := chunk[:min(queryChunk, c.Queries-done)]
		for _, k := range q {
			binary.BigEndian.PutUint64(k, g.next())
		}
		start := time.Now()
		fp := 0
		for _, k := range q {
			if f.Contains(k) {
				fp++
			}
		}
		single += time.Since(start)
		r.FalsePositives += int64(fp)
		if isBatch && done < batchCheck {
			// Other queries than the loop's, whose cache lines it has
			// just loaded.
			for _, k := range q {
				binary.BigEndian.PutUint64(k, bg.next())
			}
			start = time.Now()
			for i := 0; i < len(q); i += batchSize {
				bf.ContainsBatch(q[i:min(i+batchSize, len(q))], answers[i:])
			}
			batch += time.Since(start)
			batched += len(q)
			for i, k := range q {
				if answers[i] != f.Contains(k) {
					return fmt.Errorf("evaluate: %s: ContainsBatch says %v for key %x, Contains %v", r.Kind, answers[i], k, !answers[i])
				}
			}
		}
	}
	r.Queries = int64(c.Queries)
	r.ContainsNs = nsPer(single, c.Queries)
	if isBatch {
		r.BatchNs = nsPer(batch, batched)
	}
	return nil
}

// timeUpdates times Add (and Remove where the kind deletes) on f, which holds
// set: a fifth of set deleted and re-inserted, or a tenth of its size in new
// keys added.
func timeUpdates(c Config, sp ops, deletes bool, f filters.Filter, set [][]byte, r *Result) {
	if deletes {
		d := set[:int(math.Ceil(churnFraction*float64(len(set))))]
		start := time.Now()
		ok := d[:0:0]
		for _, k := range d {
			if sp.Remove(f, k) == nil {
				ok = append(ok, k)
			}
		}
		r.RemoveNs = nsPer(time.Since(start), len(d))
		start = time.Now()
		for _, k := range ok {
			sp.Add(f, k)
		}
		r.AddNs = nsPer(time.Since(start), len(ok))
		return
	}
	extra := max(1, int(insertOnlyExtra*float64(len(set))))
	g := newKeyGen(c.Seed, 4, true)
	buf := make([]byte, 8*extra)
	add := make([][]byte, extra)
	for i := range add {
		add[i] = buf[8*i : 8*i+8]
		binary.BigEndian.PutUint64(add[i], g.next())
	}
	start := time.Now()
	n := 0
	for _, k := range add {
		if sp.Add(f, k) != nil {
			break // full: what was added is timed
		}
		n++
	}
	r.AddNs = nsPer(time.Since(start), n)
}

func nsPer(d time.Duration, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(d.Nanoseconds()) / float64(n)
}

// zScore is (got - want) / sqrt(want(1-want)/q): how many binomial standard
// deviations a measured rate of q trials is from its formula. NaN when the
// formula is 0 or 1.
func zScore(got, want float64, q int64) float64 {
	if want <= 0 || want >= 1 || q == 0 {
		return math.NaN()
	}
	return (got - want) / math.Sqrt(want*(1-want)/float64(q))
}

// consistent reports a count of false positives consistent with its
// expectation, given its deviation: within zLimit, which for a Poisson
// count is a tail probability of at least a normal's beyond zLimit.
func consistent(dev float64) bool { return math.Abs(dev) <= zLimit }

// deviation is how far count lies from its expectation mean, as a z-score
// that a check at zLimit judges as Pass does: 0 where the rate is 0 or 1
// (z NaN) and count is mean, +Inf where it is not; z itself when mean >=
// poissonBelow; and otherwise the normal z-score of the same tail
// probability as count's nearer Poisson tail (with a few false positives
// expected the normal approximation fails: one hit where 0.04 were
// expected is a z of 4.6 but happens in 4% of runs). consistent judges
// it; tests judge many kinds' deviations together.
func deviation(count int64, mean, z float64) float64 {
	switch {
	case math.IsNaN(z):
		if float64(count) == mean {
			return 0
		}
		return math.Inf(1)
	case mean >= poissonBelow:
		return z
	}
	lower, upper := poissonTails(count, mean)
	tail, sign := upper, 1.0
	if lower < upper {
		tail, sign = lower, -1
	}
	if tail >= 0.5 {
		return 0
	}
	return sign * math.Sqrt2 * math.Erfcinv(2*tail) // P(Z >= |dev|) = tail
}

const poissonBelow = 25 // expected counts below this take the Poisson test

// poissonTails returns P(X <= c) and P(X >= c) for X Poisson with mean
// lambda, summing the terms e^-lambda lambda^i / i! directly (lambda < 25,
// c at most a few hundred in use: O(c)).
func poissonTails(c int64, lambda float64) (lower, upper float64) {
	term := math.Exp(-lambda) // i = 0
	below := 0.0              // P(X < c)
	for i := int64(0); i < c; i++ {
		below += term
		term *= lambda / float64(i+1)
	}
	return min(1, below+term), max(0, 1-below)
}
