// Command topk compares the heavy-hitter summaries of sketch/topk with
// BoomFilters' TopK (a count-min sketch plus a heap) on one Zipf stream: the
// recall of the true top k, the mean relative error of the reported counts,
// Add throughput and memory. Our HeavyKeeper and count-min heap run at the
// same bytes as the peer's structure (computed below) and at a tenth of them.
// It prints a Markdown table of medians over rounds.
//
// Keys are 8-byte big-endian ids (--keys be, the default) or the ids'
// decimal strings (--keys decimal); id 0 is the most frequent. The peer hashes
// with 64-bit FNV-1, whose last step only XORs in the last byte, and derives
// its rows from the two halves of that one hash, (lower + upper*i) mod width:
// keys that differ in their last bytes, as big-endian ids do, then collide
// in a correlated way across rows, which the minimum over rows cannot undo.
// The decimal run shows how much of the peer's result is that. The stream is
// generated once (math/rand/v2 Zipf, PCG seeded by --seed) and every
// summary adds the same rows in the same order; within a round the summaries
// run one after another, in reverse order on odd rounds.
//
//	cd bench/peers && go run ./topk --rows 10000000 --distinct 1000000 --zipf 1.1 --k 100
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	boom "github.com/tylertreat/BoomFilters"

	"github.com/acbfjoin/acbfjoin/sketch/topk"
)

// summary is what every contender offers.
type summary interface {
	Add(key []byte)
	Top() []topk.Item
	MemoryBytes() uint64
}

// ours adapts a topk.Summary.
type ours struct{ s topk.Summary }

func (o ours) Add(key []byte)      { o.s.Add(key, 1) }
func (o ours) Top() []topk.Item    { return o.s.Top() }
func (o ours) MemoryBytes() uint64 { return o.s.MemoryBytes() }

// peer adapts BoomFilters' TopK.
type peer struct {
	t     *boom.TopK
	bytes uint64
}

func (p peer) Add(key []byte) { p.t.Add(key) }
func (p peer) Top() []topk.Item {
	var out []topk.Item
	for _, e := range p.t.Elements() {
		out = append(out, topk.Item{Key: e.Data, Count: e.Freq})
	}
	return out
}
func (p peer) MemoryBytes() uint64 { return p.bytes }

// peerBytes is the memory of boom.NewTopK(eps, delta, k): its count-min
// sketch of ceil(e/eps) x ceil(ln(1/delta)) uint64 counters, and a heap of k
// pointers to Elements (a slice header and a uint64) with their 8-byte keys
// (the peer keeps the caller's key slices rather than copying them; they are
// counted as if it owned them, as ours do).
func peerBytes(eps, delta float64, k int) (bytes uint64, width, depth int) {
	width = int(math.Ceil(math.E / eps))
	depth = int(math.Ceil(math.Log(1 / delta)))
	perKey := uint64(unsafe.Sizeof(uintptr(0))) + uint64(unsafe.Sizeof(boom.Element{})) + 8
	return 8*uint64(width)*uint64(depth) + uint64(k)*perKey, width, depth
}

type contender struct {
	name, sizing string
	make         func() summary
}

type measurement struct {
	recall, relErr, rowsPerSec float64
	bytes                      uint64
}

func main() {
	rows := flag.Int("rows", 10_000_000, "stream rows")
	distinct := flag.Int("distinct", 1_000_000, "distinct keys (Zipf support)")
	s := flag.Float64("zipf", 1.1, "Zipf exponent s (> 1)")
	k := flag.Int("k", 100, "keys reported")
	seed := flag.Uint64("seed", 1, "stream seed (also the summaries' seed)")
	rounds := flag.Int("rounds", 3, "rounds; medians are reported")
	eps := flag.Float64("epsilon", 0.001, "the peer's count-min epsilon")
	delta := flag.Float64("delta", 0.01, "the peer's count-min delta")
	frac := flag.Float64("small", 0.1, "the smaller memory point, as a fraction of the peer's bytes")
	enc := flag.String("keys", "be", "key encoding: be (8-byte big-endian ids) or decimal (the ids' decimal strings)")
	flag.Parse()
	if *enc != "be" && *enc != "decimal" {
		fmt.Fprintln(os.Stderr, "topk: --keys must be be or decimal")
		os.Exit(2)
	}
	if *rows < 1 || *distinct < 2 || *k < 1 || *rounds < 1 || !(*s > 1) {
		fmt.Fprintln(os.Stderr, "topk: want --rows >= 1, --distinct >= 2, --k >= 1, --rounds >= 1, --zipf > 1")
		os.Exit(2)
	}

	start := time.Now()
	keys := make([][]byte, *distinct)
	var buf []byte
	ends := make([]int, *distinct)
	for i := range keys {
		if *enc == "be" {
			buf = binary.BigEndian.AppendUint64(buf, uint64(i))
		} else {
			buf = strconv.AppendUint(buf, uint64(i), 10)
		}
		ends[i] = len(buf)
	}
	for i, start := range ends {
		if i > 0 {
			start = ends[i-1]
		} else {
			start = 0
		}
		keys[i] = buf[start:ends[i]:ends[i]]
	}
	idOf := func(key []byte) (uint64, bool) { // the id of a reported key
		if *enc == "be" {
			return binary.BigEndian.Uint64(key), len(key) == 8
		}
		id, err := strconv.ParseUint(string(key), 10, 64)
		return id, err == nil
	}
	z := rand.NewZipf(rand.New(rand.NewPCG(*seed, 0x5eed)), *s, 1, uint64(*distinct-1))
	ids := make([]uint32, *rows)
	truth := make([]uint64, *distinct)
	for i := range ids {
		id := uint32(z.Uint64())
		ids[i] = id
		truth[id]++
	}
	sorted := slices.Clone(truth)
	slices.SortFunc(sorted, func(a, b uint64) int { return cmpDesc(a, b) })
	kth := sorted[min(*k, len(sorted))-1]
	var topMass uint64
	for _, c := range sorted[:min(*k, len(sorted))] {
		topMass += c
	}
	genTime := time.Since(start)

	pb, pw, pd := peerBytes(*eps, *delta, *k)
	small := uint64(float64(pb) * *frac)
	hk := func(bytes uint64) func() summary {
		return func() summary {
			c := topk.ForMemory(*k, bytes)
			c.Seed = *seed
			t, err := topk.New(c)
			check(err)
			return ours{t}
		}
	}
	cm := func(bytes uint64, conservative bool) func() summary {
		return func() summary {
			c := topk.CMSForMemory(*k, bytes)
			c.Seed, c.Conservative = *seed, conservative
			t, err := topk.NewCMSHeap(c)
			check(err)
			return ours{t}
		}
	}
	hc, cc := topk.ForMemory(*k, pb), topk.CMSForMemory(*k, pb)
	hs, cs := topk.ForMemory(*k, small), topk.CMSForMemory(*k, small)
	contenders := []contender{
		{"tylertreat/BoomFilters TopK", fmt.Sprintf("eps %g, delta %g: %d x %d", *eps, *delta, pw, pd),
			func() summary { return peer{boom.NewTopK(*eps, *delta, uint(*k)), pb} }},
		{"topk.TopK (HeavyKeeper)", fmt.Sprintf("equal: %d x %d", hc.Width, hc.Depth), hk(pb)},
		{"topk.CMSHeap", fmt.Sprintf("equal: %d x %d", cc.Width, cc.Depth), cm(pb, false)},
		{"topk.CMSHeap conservative", fmt.Sprintf("equal: %d x %d", cc.Width, cc.Depth), cm(pb, true)},
		{"topk.TopK (HeavyKeeper)", fmt.Sprintf("%g x: %d x %d", *frac, hs.Width, hs.Depth), hk(small)},
		{"topk.CMSHeap", fmt.Sprintf("%g x: %d x %d", *frac, cs.Width, cs.Depth), cm(small, false)},
		{"topk.CMSHeap conservative", fmt.Sprintf("%g x: %d x %d", *frac, cs.Width, cs.Depth), cm(small, true)},
	}

	results := make([][]measurement, len(contenders))
	for r := range *rounds {
		order := make([]int, len(contenders))
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			m := run(contenders[i].make(), ids, keys, idOf, truth, kth, *k)
			results[i] = append(results[i], m)
			fmt.Fprintf(os.Stderr, "round %d %-28s %-24s recall %.3f err %.3g %.2f Mrows/s\n", r+1, contenders[i].name, contenders[i].sizing, m.recall, m.relErr, m.rowsPerSec/1e6)
		}
	}

	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "# Top-k peers\n\n")
	fmt.Fprintf(w, "Machine: %s, %d cores; %s %s/%s.\n\n", cpuModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "Stream: %d rows of Zipf(s = %g) over %d distinct keys (%s), seed %d, generated once in %.1f s; k = %d. "+
		"The true top %d hold %.1f%% of the rows; the %d-th largest true count is %d. %d rounds, medians; the summaries run one after another, reversed on odd rounds.\n\n",
		*rows, *s, *distinct, map[string]string{"be": "8-byte big-endian ids", "decimal": "the ids' decimal strings"}[*enc], *seed, genTime.Seconds(), *k, *k, 100*float64(topMass)/float64(*rows), *k, kth, *rounds)
	fmt.Fprintf(w, "Recall = reported keys whose true count is at least the %d-th largest, over %d (ties at the boundary count as hits). "+
		"Error = mean |estimate - true| / true over the reported keys. Bytes: the peer's %d x %d uint64 counters plus its heap (pointer, Element, 8-byte key per entry); "+
		"ours from MemoryBytes (8-byte buckets or counters, 48-byte heap entries, 4-byte index slots, key buffers), sized by ForMemory and CMSForMemory for 8-byte keys.\n\n", *k, *k, pw, pd)
	fmt.Fprintln(w, "| summary | sizing (width x depth) | bytes | recall | mean rel. error | Mrows/s | recall per round |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for i, c := range contenders {
		ms := results[i]
		var per []string
		for _, m := range ms {
			per = append(per, fmt.Sprintf("%.2f", m.recall))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.3f | %.3g | %.2f | %s |\n", c.name, c.sizing, ms[0].bytes,
			median(ms, func(m measurement) float64 { return m.recall }),
			median(ms, func(m measurement) float64 { return m.relErr }),
			median(ms, func(m measurement) float64 { return m.rowsPerSec })/1e6,
			strings.Join(per, " "))
	}
	fmt.Fprintln(w)
	hkRecall := median(results[1], func(m measurement) float64 { return m.recall })
	cmRecall := median(results[2], func(m measurement) float64 { return m.recall })
	peerRecall := median(results[0], func(m measurement) float64 { return m.recall })
	verdict := "NOT MET"
	if hkRecall >= 0.95 {
		verdict = "MET"
	}
	fmt.Fprintf(w, "Goal \"top-%d recall >= 0.95 on Zipf %g at equal memory with the peer in the same run\": **%s** by topk.TopK (HeavyKeeper, median recall %.3f at %d bytes; the peer %.3f, topk.CMSHeap %.3f).\n",
		*k, *s, verdict, hkRecall, results[1][0].bytes, peerRecall, cmRecall)
}

// run adds the stream to s and measures it against the truth.
func run(s summary, ids []uint32, keys [][]byte, idOf func([]byte) (uint64, bool), truth []uint64, kth uint64, k int) measurement {
	runtime.GC()
	start := time.Now()
	for _, id := range ids {
		s.Add(keys[id])
	}
	el := time.Since(start)
	top := s.Top()
	hit := 0
	var errSum float64
	for _, it := range top {
		tc := uint64(0)
		if id, ok := idOf(it.Key); ok && id < uint64(len(truth)) {
			tc = truth[id]
		}
		if tc >= kth {
			hit++
		}
		if tc > 0 {
			errSum += math.Abs(float64(it.Count)-float64(tc)) / float64(tc)
		} else {
			errSum += 1
		}
	}
	m := measurement{recall: float64(hit) / float64(k), rowsPerSec: float64(len(ids)) / el.Seconds(), bytes: s.MemoryBytes()}
	if len(top) > 0 {
		m.relErr = errSum / float64(len(top))
	}
	return m
}

func cmpDesc(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func median(ms []measurement, f func(measurement) float64) float64 {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// cpuModel returns the processor's model name with its family and model
// numbers, as bench/permodel.sh's cpu_model prints them (KVM guests often
// show a generic name such as "AMD EPYC").
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	var name, family, model string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case k == "model name" && name == "":
			name = v
		case k == "cpu family" && family == "":
			family = v
		case k == "model" && model == "":
			model = v
		}
	}
	if name == "" {
		return "unknown CPU"
	}
	return fmt.Sprintf("%s (family %s, model %s)", name, family, model)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "topk:", err)
		os.Exit(1)
	}
}
