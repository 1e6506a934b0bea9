package nber

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func genOnce(t *testing.T, scale float64, seed uint64, workers int) (GenResult, string) {
	t.Helper()
	dir := t.TempDir()
	res, err := Generate(context.Background(), dir, GenOptions{Scale: scale, Seed: seed, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return res, dir
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestGenerateDeterministic: the same seed and scale give byte-identical files
// whatever the number of workers; another seed gives other files.
func TestGenerateDeterministic(t *testing.T) {
	a, da := genOnce(t, 0.005, 7, 1)
	b, db := genOnce(t, 0.005, 7, 3)
	c, dc := genOnce(t, 0.005, 8, 2)
	for _, name := range []string{"cite75_99.txt", "apat63_99.txt"} {
		sa, sb, sc := fileSum(t, filepath.Join(da, name)), fileSum(t, filepath.Join(db, name)), fileSum(t, filepath.Join(dc, name))
		if sa != sb {
			t.Errorf("%s differs between 1 and 3 workers", name)
		}
		if sa == sc {
			t.Errorf("%s is the same for seeds 7 and 8", name)
		}
	}
	if a != (GenResult{CitePath: a.CitePath, PatPath: a.PatPath, Patents: b.Patents, Citations: b.Citations, CitedPre1963: b.CitedPre1963, MaxInDegree: b.MaxInDegree, Elapsed: a.Elapsed}) {
		t.Errorf("results differ: %+v vs %+v", a, b)
	}
	_ = c
}

// TestGenerateShape checks row counts and the statistics the generator promises,
// on a 2% scale (58,478 patents, 330,449 citations).
func TestGenerateShape(t *testing.T) {
	const scale = 0.02
	res, _ := genOnce(t, scale, 42, 0)
	wantPat, wantCite := int64(math.Round(PatRows*scale)), int64(math.Round(CiteRows*scale))
	if res.Patents != wantPat || res.Citations != wantCite {
		t.Fatalf("counts %d patents, %d citations; want %d, %d", res.Patents, res.Citations, wantPat, wantCite)
	}
	// Patent file: schema, types, number range, years, CMADE/CRECEIVE.
	type pat struct {
		year                     int
		cmade, crecv             int64
		hasCmade                 bool
		assignee, selfub, secdub bool
	}
	pats := map[int64]pat{}
	rc, name, err := csvscan.Open(res.PatPath)
	if err != nil {
		t.Fatal(err)
	}
	r := csvscan.NewReader(rc, name)
	if err := ExpectHeader(r, Pat); err != nil {
		t.Fatal(err)
	}
	var prev int64
	for r.Next() {
		f := r.Fields()
		for i, col := range Pat.Columns {
			if len(f[i]) == 0 {
				if !col.Nullable {
					t.Fatalf("%s:%d: %s empty", name, r.Line(), col.Name)
				}
				continue
			}
			var err error
			switch col.Type {
			case Int:
				_, err = csvscan.ParseInt(f[i])
			case Float:
				_, err = strconv.ParseFloat(string(f[i]), 64)
			}
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", name, r.Line(), col.Name, err)
			}
		}
		num, _ := csvscan.ParseInt(f[0])
		year, _ := csvscan.ParseInt(f[1])
		if num <= prev || num < FirstPatent || num > LastPatent {
			t.Fatalf("%s:%d: patent %d out of order or range", name, r.Line(), num)
		}
		prev = num
		if y := 1963 + sort.Search(len(yearFirst), func(i int) bool { return yearFirst[i] > num }) - 1; int64(y) != year {
			t.Fatalf("patent %d: GYEAR %d, boundaries say %d", num, year, y)
		}
		p := pat{year: int(year), hasCmade: len(f[12]) > 0, assignee: len(f[6]) > 0, selfub: len(f[19]) > 0, secdub: len(f[21]) > 0}
		p.cmade, _ = csvscan.ParseInt(f[12])
		p.crecv, _ = csvscan.ParseInt(f[13])
		if p.hasCmade != (year >= 1975) {
			t.Fatalf("patent %d (%d): CMADE %q", num, year, f[12])
		}
		if p.selfub && !p.assignee {
			t.Fatalf("patent %d: self-citation share without an assignee", num)
		}
		pats[num] = p
	}
	rc.Close()
	if r.Err() != nil || int64(len(pats)) != wantPat {
		t.Fatalf("%d patent rows, %v", len(pats), r.Err())
	}
	if pats[FirstPatent].year != 1963 || pats[LastPatent].year != 1999 {
		t.Fatalf("first/last patent missing: %+v %+v", pats[FirstPatent], pats[LastPatent])
	}
	// Citation file.
	rc, name, err = csvscan.Open(res.CitePath)
	if err != nil {
		t.Fatal(err)
	}
	r = csvscan.NewReader(rc, name)
	if err := ExpectHeader(r, Cite); err != nil {
		t.Fatal(err)
	}
	made, recv := map[int64]int64{}, map[int64]int64{}
	var rows, pre, prevCiting int64
	var lags []int
	for r.Next() {
		rows++
		citing, err1 := csvscan.ParseInt(r.Fields()[0])
		cited, err2 := csvscan.ParseInt(r.Fields()[1])
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if citing < prevCiting {
			t.Fatalf("%s:%d: CITING not ascending", name, r.Line())
		}
		prevCiting = citing
		cp, ok := pats[citing]
		if !ok || cp.year < 1975 || cited >= citing {
			t.Fatalf("%s:%d: citation %d -> %d (citing year %d)", name, r.Line(), citing, cited, cp.year)
		}
		made[citing]++
		if cited < FirstPatent {
			pre++
		} else {
			dp, ok := pats[cited]
			if !ok {
				t.Fatalf("%s:%d: cited %d is in the patent range but not in the file", name, r.Line(), cited)
			}
			recv[cited]++
			lags = append(lags, cp.year-dp.year)
		}
	}
	rc.Close()
	if r.Err() != nil || rows != wantCite {
		t.Fatalf("%d citation rows, %v", rows, r.Err())
	}
	var maxIn int64
	zero := 0
	for num, p := range pats {
		if p.hasCmade && p.cmade != made[num] || p.crecv != recv[num] {
			t.Fatalf("patent %d: CMADE %d CRECEIVE %d; the citation file says %d, %d", num, p.cmade, p.crecv, made[num], recv[num])
		}
		maxIn = max(maxIn, p.crecv)
		if p.crecv == 0 {
			zero++
		}
	}
	preFrac := float64(pre) / float64(rows)
	slices.Sort(lags)
	median := lags[len(lags)/2]
	zeroFrac := float64(zero) / float64(len(pats))
	t.Logf("pre-1963 %.3f, median lag %d years, max in-degree %d, never cited %.3f", preFrac, median, maxIn, zeroFrac)
	if preFrac < 0.14 || preFrac > 0.18 {
		t.Errorf("%.3f of citations predate 1963, want about 0.16", preFrac)
	}
	if median < 4 || median > 9 {
		t.Errorf("median lag %d years, want a few years", median)
	}
	if maxIn < 300 {
		t.Errorf("max in-degree %d, want a heavy tail (hundreds)", maxIn)
	}
	if zeroFrac < 0.08 || zeroFrac > 0.3 {
		t.Errorf("%.3f of patents never cited, want about a sixth", zeroFrac)
	}
}

func TestGenerateErrors(t *testing.T) {
	dir := t.TempDir()
	for _, scale := range []float64{0, -1, math.NaN(), 11, 1e-6} {
		if _, err := Generate(context.Background(), dir, GenOptions{Scale: scale}); err == nil {
			t.Errorf("scale %v accepted", scale)
		}
	}
	// Cancelled: nothing is left behind.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Generate(ctx, dir, GenOptions{Scale: 0.01}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Generate = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("cancelled Generate left %d files", len(ents))
	}
}

func TestAppendFloat4(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0"}, {1, "1"}, {2.0 / 3, "0.6667"}, {5.875, "5.875"}, {11.857142, "11.8571"}, {0.00004, "0"}, {0.99996, "1"}, {-0.5, "-0.5"}} {
		if got := string(appendFloat4(nil, tc.v)); got != tc.want {
			t.Errorf("appendFloat4(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestExtractKeys(t *testing.T) {
	res, _ := genOnce(t, 0.005, 3, 0)
	var a, b bytes.Buffer
	ra, err := ExtractKeys(res.PatPath, &a, KeysOptions{Sample: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExtractKeys(res.PatPath, &b, KeysOptions{Sample: 500, Seed: 1}); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("same seed, different keys (%v)", err)
	}
	if ra.Kept != 500 || ra.Scanned != res.Patents || ra.Matched != res.Patents {
		t.Fatalf("result %+v", ra)
	}
	r := csvscan.NewReader(bytes.NewReader(a.Bytes()), "keys")
	if err := ExpectHeader(r, Pat); err != nil {
		t.Fatal(err)
	}
	var prev int64
	n := 0
	for r.Next() {
		num, _ := csvscan.ParseInt(r.Fields()[0])
		if num <= prev {
			t.Fatal("keys not in file order")
		}
		prev = num
		n++
	}
	if n != 500 {
		t.Fatalf("%d keys", n)
	}
	// Predicates, and fewer matches than the sample.
	var c bytes.Buffer
	rc, err := ExtractKeys(res.PatPath, &c, KeysOptions{Sample: 1 << 20, Seed: 1, Where: []Predicate{{"GYEAR", "1999"}, {"COUNTRY", "JP"}}})
	if err != nil {
		t.Fatal(err)
	}
	r = csvscan.NewReader(bytes.NewReader(c.Bytes()), "keys")
	ExpectHeader(r, Pat)
	for r.Next() {
		if string(r.Fields()[1]) != "1999" || string(r.Fields()[4]) != "JP" {
			t.Fatalf("predicate not applied: %q", r.Raw())
		}
	}
	if rc.Kept != rc.Matched || rc.Matched == 0 {
		t.Fatalf("predicate result %+v", rc)
	}
	if _, err := ExtractKeys(res.PatPath, &c, KeysOptions{Where: []Predicate{{"NOPE", "1"}}}); err == nil {
		t.Fatal("unknown column accepted")
	}
	// Uniformity: over 200 seeds (40 under the race detector: these reads
	// are on one goroutine), the first and second halves of the file get
	// about half of the keys each.
	seeds := testutil.RaceSize(200, 40)
	var first int
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		var out bytes.Buffer
		ExtractKeys(res.PatPath, &out, KeysOptions{Sample: 10, Seed: seed})
		r := csvscan.NewReader(bytes.NewReader(out.Bytes()), "keys")
		r.ReadHeader()
		for r.Next() {
			if num, _ := csvscan.ParseInt(r.Fields()[0]); num < (FirstPatent+LastPatent)/2 {
				first++
			}
		}
	}
	// 2000 draws, p = 0.5: sd 22.4; 5 sd, 112 (400 draws: sd 10, 50).
	draws := 10 * seeds
	bound := int(math.Ceil(5 * math.Sqrt(float64(draws)/4)))
	if first < draws/2-bound || first > draws/2+bound {
		t.Errorf("%d of %d sampled keys in the first half of the file, want about %d", first, draws, draws/2)
	}
}

// TestPick: the galloping search returns the first index whose cumulative
// weight exceeds the point, as a linear scan does.
func TestPick(t *testing.T) {
	g := &genModel{cw: make([]float64, 5000)}
	r := newRNG(1, 9, 0)
	acc := 0.0
	for i := range g.cw {
		acc += math.Pow(1-r.float(), -1/popAlpha)
		if i%97 == 0 {
			acc += 500 // a few heavy weights
		}
		g.cw[i] = acc
	}
	for trial := 0; trial < 20000; trial++ {
		lo := r.intn(len(g.cw) - 1)
		hi := lo + 1 + r.intn(len(g.cw)-lo)
		u := r.float()
		base := 0.0
		if lo > 0 {
			base = g.cw[lo-1]
		}
		x := base + u*(g.cw[hi-1]-base)
		want := lo
		for want < hi-1 && g.cw[want] <= x {
			want++
		}
		if got := g.pick(lo, hi, u); got != want {
			t.Fatalf("pick(%d, %d, %v) = %d, want %d", lo, hi, u, got, want)
		}
	}
}
