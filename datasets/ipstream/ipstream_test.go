package ipstream

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func probeBytes(t *testing.T, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteProbe(context.Background(), &buf, opt); err != nil {
		t.Fatalf("WriteProbe(%+v): %v", opt, err)
	}
	return buf.Bytes()
}

func eventBytes(t *testing.T, opt Options) ([]byte, EventStats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := WriteEvents(context.Background(), &buf, opt)
	if err != nil {
		t.Fatalf("WriteEvents(%+v): %v", opt, err)
	}
	return buf.Bytes(), st
}

// readCSV reads a whole file with encoding/csv, records of any length.
func readCSV(t *testing.T, data []byte) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv: %v", err)
	}
	return recs
}

// parseAddr parses a dotted address the strict way (net/netip: four
// decimal octets, no leading zeros) and checks it is printed canonically.
func parseAddr(t *testing.T, where, s string) uint32 {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() || a.String() != s {
		t.Fatalf("%s: %q is not a canonical dotted IPv4 address (%v)", where, s, err)
	}
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// zipfShare is P(k) of Zipf(s) on 1..n: k^-s / H(n, s), H summed directly,
// smallest terms first. O(n): the reference the sampler is checked against.
func zipfShare(k, n uint64, s float64) float64 {
	var h float64
	for j := n; j >= 1; j-- {
		h += math.Pow(float64(j), -s)
	}
	return math.Pow(float64(k), -s) / h
}

// TestDomain: Addr is a bijection that Rank inverts, the D addresses are
// distinct, Rank tells members from others, and AppendAddr prints what
// net/netip prints.
func TestDomain(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	for _, size := range []uint64{1, 2, 1000, 1 << 16, MaxDistinct} {
		d := NewDomain(seed, size)
		seen := map[uint32]bool{}
		for r := range min(size, 1<<16) {
			a := d.Addr(uint32(r))
			if seen[a] {
				t.Fatalf("size %d: rank %d repeats address %08x", size, r, a)
			}
			seen[a] = true
			if back, ok := d.Rank(a); back != uint32(r) || !ok {
				t.Fatalf("size %d: Rank(Addr(%d)) = %d, %v", size, r, back, ok)
			}
		}
		for range 10000 {
			r := rng.Uint32()
			back, ok := d.Rank(d.Addr(r))
			if back != r || ok != (uint64(r) < size) {
				t.Fatalf("size %d: Rank(Addr(%d)) = %d, %v", size, r, back, ok)
			}
		}
	}
	if a, b := NewDomain(1, 100).Addr(0), NewDomain(2, 100).Addr(0); a == b {
		t.Errorf("seeds 1 and 2 map rank 0 to the same address %08x", a)
	}
	for _, a := range []uint32{0, 1, 0x01_0b_01_01, 0x0b_01_01_01, 0x0a_00_00_ff, 0xffffffff, rng.Uint32(), rng.Uint32()} {
		want := netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}).String()
		if got := string(AppendAddr([]byte("x"), a)); got != "x"+want {
			t.Errorf("AppendAddr(%08x) = %q, want x%s", a, got, want)
		}
	}
	buf := make([]byte, 0, 15)
	if n := testing.AllocsPerRun(100, func() { buf = AppendAddr(buf[:0], 0xffffffff) }); n != 0 {
		t.Errorf("AppendAddr allocates %v times", n)
	}
}

// TestZipfShares: the sampler's frequencies of the top ranks, and of all
// the others together, are within 4 standard deviations of the exact
// Zipf(s) shares, for s below, at and above 1, and it stays in 1..n. Fixed
// seeds: the tolerance is a 4-sd band, so a new seed fails about once in
// 3,000 runs.
func TestZipfShares(t *testing.T) {
	testutil.SkipUnderRace(t)
	draws := 400000
	if testing.Short() {
		draws = 100000
	}
	for _, tc := range []struct {
		s float64
		n uint64
	}{{0.5, 1000}, {0.99999999, 1000}, {1, 1000}, {1.1, 100000}, {2, 50}, {3.5, 10}, {1.1, 1}} {
		t.Run(fmt.Sprintf("s=%g/n=%d", tc.s, tc.n), func(t *testing.T) {
			z := NewZipf(rand.New(rand.NewPCG(7, 11)), tc.s, tc.n)
			const top = 10
			var count [top + 1]int // count[top]: the ranks beyond
			for range draws {
				k := z.Next()
				if k < 1 || k > tc.n {
					t.Fatalf("draw %d outside 1..%d", k, tc.n)
				}
				count[min(k, top+1)-1]++
			}
			rest := 1.0
			for k := uint64(1); k <= top+1; k++ {
				var p float64
				if k <= top && k <= tc.n {
					p = zipfShare(k, tc.n, tc.s)
					rest -= p
				} else if k == top+1 {
					p = max(rest, 0)
				}
				mean, sd := float64(draws)*p, math.Sqrt(float64(draws)*p*(1-p))
				if got := float64(count[k-1]); math.Abs(got-mean) > 4*sd+1e-9 {
					t.Errorf("rank %d (11: the rest): %v draws, want %.1f ± 4×%.1f", k, got, mean, sd)
				}
			}
		})
	}
}

// TestProbeFile reads the probe file with encoding/csv: the header, SEQ =
// 1..N, every IP a canonical dotted address in the domain, the addresses in
// Probe's order (a differential check of the writer), and the top ranks'
// frequencies within 4 sd of their Zipf shares.
func TestProbeFile(t *testing.T) {
	testutil.SkipUnderRace(t)
	opt := Options{Rows: 100000, Zipf: 1.1, Distinct: 5000, Events: 1, Live: 1, Seed: 3}
	data := probeBytes(t, opt)
	if !bytes.HasSuffix(data, []byte("\n")) || bytes.Contains(data, []byte("\r")) {
		t.Fatalf("want LF line ends, ending in one")
	}
	recs := readCSV(t, data)
	if len(recs) != int(opt.Rows)+1 || strings.Join(recs[0], ",") != ProbeHeader {
		t.Fatalf("%d records, header %q", len(recs), recs[0])
	}
	if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != len(recs) {
		t.Fatalf("%d lines but %d CSV records", len(lines), len(recs))
	}
	p := NewProbe(opt)
	counts := map[uint32]int{}
	for i, rec := range recs[1:] {
		where := fmt.Sprintf("line %d", i+2)
		if len(rec) != 2 || rec[1] != strconv.Itoa(i+1) {
			t.Fatalf("%s: %q, want IP,%d", where, rec, i+1)
		}
		a := parseAddr(t, where, rec[0])
		if want := p.Next(); a != want {
			t.Fatalf("%s: %s, Probe gives %08x", where, rec[0], want)
		}
		r, ok := p.Domain().Rank(a)
		if !ok {
			t.Fatalf("%s: %s has rank %d, outside the domain of %d", where, rec[0], r, opt.Distinct)
		}
		counts[r]++
	}
	for r := range uint32(5) {
		pr := zipfShare(uint64(r)+1, uint64(opt.Distinct), opt.Zipf)
		mean, sd := float64(opt.Rows)*pr, math.Sqrt(float64(opt.Rows)*pr*(1-pr))
		if got := float64(counts[r]); math.Abs(got-mean) > 4*sd {
			t.Errorf("rank %d: %v rows, want %.1f ± 4×%.1f", r+1, got, mean, sd)
		}
	}
}

// checkEvents reads an events file with encoding/csv and replays it on a
// reference live set (a map): every insert is of an address not live, in
// the domain, numbered by its position; every delete of a live address; the
// stats match. It returns the live count after each event.
func checkEvents(t *testing.T, opt Options, data []byte, st EventStats) []int64 {
	t.Helper()
	recs := readCSV(t, data)
	if len(recs) != int(opt.Events)+1 || strings.Join(recs[0], ",") != EventsHeader {
		t.Fatalf("%d records, header %q", len(recs), recs[0])
	}
	dom := NewDomain(opt.Seed, uint64(opt.Distinct))
	walk := NewWalk(opt)
	live := map[uint32]bool{}
	var got EventStats
	trace := make([]int64, 0, opt.Events)
	for i, rec := range recs[1:] {
		where := fmt.Sprintf("line %d", i+2)
		if len(rec[0]) < 2 || (rec[0][0] != '+' && rec[0][0] != '-') {
			t.Fatalf("%s: %q: want +IP,SINCE or -IP", where, rec)
		}
		insert := rec[0][0] == '+'
		a := parseAddr(t, where, rec[0][1:])
		if _, ok := dom.Rank(a); !ok {
			t.Fatalf("%s: %s is not in the domain", where, rec[0][1:])
		}
		if e := walk.Next(); e.Insert != insert || e.Addr != a {
			t.Fatalf("%s: %q, Walk gives %+v", where, rec, e)
		}
		if insert {
			if len(rec) != 2 || rec[1] != strconv.Itoa(i+1) {
				t.Fatalf("%s: insert %q, want SINCE %d", where, rec, i+1)
			}
			if live[a] {
				t.Fatalf("%s: insert of %s, which is live", where, rec[0][1:])
			}
			live[a] = true
			got.Inserts++
		} else {
			if len(rec) != 1 {
				t.Fatalf("%s: delete %q has %d fields, want 1", where, rec, len(rec))
			}
			if !live[a] {
				t.Fatalf("%s: delete of %s, which is not live", where, rec[0][1:])
			}
			delete(live, a)
			got.Deletes++
		}
		got.MaxLive = max(got.MaxLive, int64(len(live)))
		trace = append(trace, int64(len(live)))
	}
	got.FinalLive = int64(len(live))
	if got != st {
		t.Fatalf("replayed stats %+v, WriteEvents reported %+v", got, st)
	}
	return trace
}

// TestEvents: the walk never deletes an address that is not live, never
// inserts a live one, and, once past its approach (5L events), stays within
// 6 stationary standard deviations (sqrt(L/2)) of L; also for a domain the
// live set fills, and the smallest domain.
func TestEvents(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, opt := range []Options{
		{Rows: 0, Zipf: 1, Distinct: 100000, Events: 40000, Live: 500, Seed: 1},
		{Rows: 0, Zipf: 1, Distinct: 1 << 30, Events: 30000, Live: 2000, Seed: 2}, // the sparse live set
		{Rows: 0, Zipf: 1, Distinct: 64, Events: 5000, Live: 64, Seed: 3},         // L = D: forced deletes
		{Rows: 0, Zipf: 1, Distinct: 1, Events: 100, Live: 1, Seed: 4},
	} {
		t.Run(fmt.Sprintf("D=%d/L=%d", opt.Distinct, opt.Live), func(t *testing.T) {
			data, st := eventBytes(t, opt)
			trace := checkEvents(t, opt, data, st)
			if opt.Distinct == 1 { // insert, delete, insert, ...
				if st.Inserts != 50 || st.Deletes != 50 {
					t.Fatalf("D=1: %+v, want alternating inserts and deletes", st)
				}
				return
			}
			l := float64(opt.Live)
			band := 6 * math.Sqrt(l/2)
			var sum float64
			burn := 5 * int(opt.Live)
			for i, n := range trace[burn:] {
				if math.Abs(float64(n)-l) > band {
					t.Fatalf("event %d: %d live, want %v ± %.0f", burn+i+1, n, l, band)
				}
				sum += float64(n)
			}
			mean := sum / float64(len(trace)-burn)
			t.Logf("%+v: mean live %.1f after event %d (target %v)", st, mean, burn, l)
			if st.MaxLive > opt.Distinct {
				t.Fatalf("MaxLive %d exceeds the domain", st.MaxLive)
			}
		})
	}
}

// TestDeterministic: the same Options give the same bytes, another seed
// other addresses and other events.
func TestDeterministic(t *testing.T) {
	opt := Options{Rows: 20000, Zipf: 1.1, Distinct: 2000, Events: 2000, Live: 100, Seed: 42}
	p1, p2 := probeBytes(t, opt), probeBytes(t, opt)
	e1, _ := eventBytes(t, opt)
	e2, _ := eventBytes(t, opt)
	if !bytes.Equal(p1, p2) || !bytes.Equal(e1, e2) {
		t.Fatalf("two runs of seed 42 differ")
	}
	opt.Seed++
	if bytes.Equal(p1, probeBytes(t, opt)) {
		t.Fatalf("seeds 42 and 43 give the same probe file")
	}
	if e3, _ := eventBytes(t, opt); bytes.Equal(e1, e3) {
		t.Fatalf("seeds 42 and 43 give the same events file")
	}
}

// TestCheck: each field out of range is an *OptionError naming it, which
// unwraps to ErrOption; the defaults are valid.
func TestCheck(t *testing.T) {
	for _, rows := range []int64{0, 1, 19, 10000000} {
		if err := Defaults(rows, 1).Check(); err != nil {
			t.Errorf("Defaults(%d): %v", rows, err)
		}
	}
	if d := Defaults(10000000, 1); d.Distinct != 1000000 || d.Events != 1000000 || d.Live != 50000 || d.Zipf != DefaultZipf {
		t.Errorf("Defaults(10^7) = %+v", d)
	}
	ok := Defaults(1000, 1)
	for _, tc := range []struct {
		field string
		mod   func(*Options)
	}{
		{"Rows", func(o *Options) { o.Rows = -1 }},
		{"Rows", func(o *Options) { o.Rows = MaxRows + 1 }},
		{"Zipf", func(o *Options) { o.Zipf = 0 }},
		{"Zipf", func(o *Options) { o.Zipf = -1 }},
		{"Zipf", func(o *Options) { o.Zipf = math.NaN() }},
		{"Zipf", func(o *Options) { o.Zipf = math.Inf(1) }},
		{"Distinct", func(o *Options) { o.Distinct = 0 }},
		{"Distinct", func(o *Options) { o.Distinct = MaxDistinct + 1 }},
		{"Events", func(o *Options) { o.Events = -1 }},
		{"Live", func(o *Options) { o.Live = 0 }},
		{"Live", func(o *Options) { o.Live = o.Distinct + 1 }},
	} {
		o := ok
		tc.mod(&o)
		err := o.Check()
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Field != tc.field || !errors.Is(err, ErrOption) {
			t.Errorf("%+v: Check() = %v, want an OptionError for %s", o, err, tc.field)
		}
		if _, err := WriteEvents(context.Background(), &bytes.Buffer{}, o); !errors.Is(err, ErrOption) {
			t.Errorf("%+v: WriteEvents accepted", o)
		}
	}
}

// TestGenerate: both files appear whole, equal to WriteProbe's and
// WriteEvents' output; bad options and a cancelled context leave nothing.
func TestGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	opt := Defaults(30000, 5)
	res, err := Generate(context.Background(), dir, opt)
	if err != nil || res.ProbePath != filepath.Join(dir, ProbeFile) || res.EventsPath != filepath.Join(dir, EventsFile) {
		t.Fatalf("Generate: %+v, %v", res, err)
	}
	ev, st := eventBytes(t, opt)
	for path, want := range map[string][]byte{res.ProbePath: probeBytes(t, opt), res.EventsPath: ev} {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the writer's output (%v)", path, err)
		}
	}
	if res.EventStats != st {
		t.Errorf("Generate's stats %+v, WriteEvents's %+v", res.EventStats, st)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries in %s, want the two files", len(ents), dir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := filepath.Join(t.TempDir(), "gone")
	if _, err := Generate(ctx, gone, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	bad := opt
	bad.Live = 0
	if _, err := Generate(context.Background(), gone, bad); !errors.Is(err, ErrOption) {
		t.Fatalf("Live 0: %v", err)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("a failed Generate left %s", gone)
	}
	if _, err := Generate(context.Background(), "", opt); err == nil {
		t.Errorf("empty folder accepted")
	}
}

// TestNoAllocPerRow: writing the probe file allocates a constant amount,
// whatever the number of rows.
func TestNoAllocPerRow(t *testing.T) {
	testutil.SkipUnderRace(t)
	allocs := func(rows int64) float64 {
		opt := Defaults(rows, 1)
		opt.Distinct = 1000
		return testing.AllocsPerRun(3, func() {
			if err := WriteProbe(context.Background(), discard{}, opt); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(1000), allocs(200000); a != b {
		t.Errorf("allocations: %v for 1,000 rows, %v for 200,000", a, b)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkWriteProbe: the cost of a probe row, Zipf 1.1 over 10^6
// addresses.
func BenchmarkWriteProbe(b *testing.B) {
	opt := Defaults(1_000_000, 1)
	opt.Distinct = 1_000_000
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteProbe(context.Background(), discard{}, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(opt.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWalk: the cost of an event, dense and sparse live sets.
func BenchmarkWalk(b *testing.B) {
	for _, d := range []int64{1 << 20, 1 << 32} {
		b.Run(fmt.Sprintf("D=%d", d), func(b *testing.B) {
			w := NewWalk(Options{Distinct: d, Events: 1 << 20, Live: 1 << 14, Seed: 1, Zipf: 1})
			b.ReportAllocs()
			for b.Loop() {
				w.Next()
			}
		})
	}
}
