package nber

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// readAllCSV reads a file with encoding/csv: the reference reader.
func readAllCSV(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv %s: %v", path, err)
	}
	return recs
}

// minimalLine is the reference writer: fields quoted only if they hold a
// comma, quote, CR or LF, quotes doubled, then LF.
func minimalLine(rec []string) string {
	out := make([]string, len(rec))
	for i, f := range rec {
		if strings.ContainsAny(f, ",\"\r\n") {
			f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
		out[i] = f
	}
	return strings.Join(out, ",") + "\n"
}

// refStream computes WriteStream's two files and stats from the inputs read
// with encoding/csv, by stable sorts: the differential reference.
func refStream(t *testing.T, patents, citations string) (patOut, citeOut string, st StreamStats) {
	t.Helper()
	p := readAllCSV(t, patents)
	pc, gc := slices.Index(p[0], "PATENT"), slices.Index(p[0], "GDATE")
	num := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("reference: %q: %v", s, err)
		}
		return v
	}
	rows := p[1:]
	slices.SortStableFunc(rows, func(a, b []string) int {
		return cmp.Or(cmp.Compare(num(a[gc]), num(b[gc])), cmp.Compare(num(a[pc]), num(b[pc])))
	})
	gdate := map[int64]int64{}
	var sb strings.Builder
	sb.WriteString(minimalLine(p[0]))
	for i, r := range rows {
		sb.WriteString(minimalLine(r))
		gdate[num(r[pc])] = num(r[gc])
		if i == 0 {
			st.MinGDATE = num(r[gc])
		}
		st.MaxGDATE = num(r[gc])
	}
	st.Patents = int64(len(rows))
	c := readAllCSV(t, citations)
	cc, dc := slices.Index(c[0], "CITING"), slices.Index(c[0], "CITED")
	type cite struct{ citing, cited, gdate int64 }
	var kept []cite
	for _, r := range c[1:] {
		g, ok := gdate[num(r[cc])]
		if !ok {
			st.Dropped++
			continue
		}
		kept = append(kept, cite{num(r[cc]), num(r[dc]), g})
	}
	slices.SortStableFunc(kept, func(a, b cite) int {
		return cmp.Or(cmp.Compare(a.gdate, b.gdate), cmp.Compare(a.citing, b.citing))
	})
	st.Citations = int64(len(kept))
	var cb strings.Builder
	cb.WriteString(StreamCitationsHeader + "\n")
	for _, k := range kept {
		cb.WriteString(strconv.FormatInt(k.citing, 10) + "," + strconv.FormatInt(k.cited, 10) + "," + strconv.FormatInt(k.gdate, 10) + "\n")
	}
	return sb.String(), cb.String(), st
}

// checkStream runs WriteStream and checks its files against refStream's,
// and the properties directly: GDATE monotone in both files, every
// citation's GDATE its CITING patent's, every patent row kept.
func checkStream(t *testing.T, patents, citations string) StreamStats {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "stream")
	st, err := WriteStream(t.Context(), patents, citations, dir)
	if err != nil {
		t.Fatalf("WriteStream: %v", err)
	}
	wantPat, wantCite, wantSt := refStream(t, patents, citations)
	if st != wantSt {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
	patPath, citePath := filepath.Join(dir, StreamPatentsFile), filepath.Join(dir, StreamCitationsFile)
	for path, want := range map[string]string{patPath: wantPat, citePath: wantCite} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			g, w := strings.Split(string(got), "\n"), strings.Split(want, "\n")
			t.Errorf("%s differs from the reference: %s", path, testutil.FirstDiff(g, w))
		}
	}
	// Direct checks on the files as written, read back with encoding/csv.
	p := readAllCSV(t, patPath)
	pc, gc := slices.Index(p[0], "PATENT"), slices.Index(p[0], "GDATE")
	gdate := map[string]string{}
	prev := int64(-1 << 63)
	for i, r := range p[1:] {
		g, _ := strconv.ParseInt(r[gc], 10, 64)
		if g < prev {
			t.Fatalf("%s record %d: GDATE %d after %d", patPath, i+1, g, prev)
		}
		prev = g
		gdate[r[pc]] = r[gc]
	}
	c := readAllCSV(t, citePath)
	if strings.Join(c[0], ",") != StreamCitationsHeader {
		t.Fatalf("%s: header %q", citePath, c[0])
	}
	prev = int64(-1 << 63)
	for i, r := range c[1:] {
		if gdate[r[0]] != r[2] {
			t.Fatalf("%s record %d: CITING %s with GDATE %s, the patent's is %q", citePath, i+1, r[0], r[2], gdate[r[0]])
		}
		g, _ := strconv.ParseInt(r[2], 10, 64)
		if g < prev {
			t.Fatalf("%s record %d: GDATE %d after %d", citePath, i+1, g, prev)
		}
		prev = g
	}
	if int64(len(p)-1) != st.Patents || int64(len(c)-1) != st.Citations {
		t.Errorf("%d patent and %d citation records, stats %+v", len(p)-1, len(c)-1, st)
	}
	return st
}

// handmade is an unsorted patents file with needless quotes, fields that
// need them (a comma, a quote, a line break), a patent listed twice, and
// citations out of order, with ties and citing patents not in the file.
const (
	handPatents = "\xef\xbb\xbf\"PATENT\",\"GDATE\",\"COUNTRY\",\"NOTE\"\r\n" +
		"30,200,\"JP\",\"a, b\"\r\n" +
		"10,100,\"US\",\"say \"\"hi\"\"\"\r\n" +
		"20,200,\"US\",\"two\nlines\"\r\n" +
		"40,100,\"DE\",\r\n" +
		"10,100,\"US\",again\r\n" +
		"5,300,,plain\r\n"
	handCitations = "\"CITING\",\"CITED\",\"EXTRA\"\n" +
		"5,1,x\n" +
		"30,2,x\n" +
		"99,3,x\n" + // dropped
		"10,4,x\n" +
		"30,5,x\n" +
		"40,6,x\n" +
		"20,7,x\n" +
		"10,008,x\n" +
		"7,9,x\n" // dropped
	handPatentsOut = "PATENT,GDATE,COUNTRY,NOTE\n" +
		"10,100,US,\"say \"\"hi\"\"\"\n" +
		"10,100,US,again\n" +
		"40,100,DE,\n" +
		"20,200,US,\"two\nlines\"\n" +
		"30,200,JP,\"a, b\"\n" +
		"5,300,,plain\n"
	handCitationsOut = "CITING,CITED,GDATE\n" +
		"10,4,100\n" +
		"10,8,100\n" +
		"40,6,100\n" +
		"20,7,200\n" +
		"30,2,200\n" +
		"30,5,200\n" +
		"5,1,300\n"
)

// TestWriteStreamHandmade: the exact files for unsorted input (order,
// minimal quoting, file order among ties, dropped citations), the same from
// gzip input, and against the reference.
func TestWriteStreamHandmade(t *testing.T) {
	dir := t.TempDir()
	pat, cite := filepath.Join(dir, "p.csv"), filepath.Join(dir, "c.csv")
	testutil.WriteFile(t, pat, []byte(handPatents), 0o644)
	testutil.WriteFile(t, cite, []byte(handCitations), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(handPatents))
	zw.Close()
	patGz := filepath.Join(dir, "p.csv.gz")
	testutil.WriteFile(t, patGz, gz.Bytes(), 0o644)
	want := StreamStats{Patents: 6, Citations: 7, Dropped: 2, MinGDATE: 100, MaxGDATE: 300}
	for _, in := range []string{pat, patGz} {
		out := filepath.Join(t.TempDir(), "out")
		st, err := WriteStream(t.Context(), in, cite, out)
		if err != nil || st != want {
			t.Fatalf("%s: %+v, %v; want %+v", in, st, err, want)
		}
		for name, want := range map[string]string{StreamPatentsFile: handPatentsOut, StreamCitationsFile: handCitationsOut} {
			if got, _ := os.ReadFile(filepath.Join(out, name)); string(got) != want {
				t.Errorf("%s: %s =\n%s\nwant\n%s", in, name, got, want)
			}
		}
	}
	// The reference reads without the BOM and CRLF tolerance it does not
	// need: give it the same data plainly.
	plain := filepath.Join(dir, "plain.csv")
	testutil.WriteFile(t, plain, []byte(strings.ReplaceAll(strings.TrimPrefix(handPatents, "\xef\xbb\xbf"), "\r\n", "\n")), 0o644)
	checkStream(t, plain, cite)
}

// TestWriteStreamGenerated: a generated data set (already in order: the
// path that skips both sorts) and the same with its rows shuffled.
func TestWriteStreamGenerated(t *testing.T) {
	dir := t.TempDir()
	res, err := Generate(t.Context(), dir, GenOptions{Scale: 0.002, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	st := checkStream(t, res.PatPath, res.CitePath)
	t.Logf("generated: %+v", st)
	if st.Patents != res.Patents || st.Citations+st.Dropped != res.Citations {
		t.Errorf("stats %+v for %d patents, %d citations", st, res.Patents, res.Citations)
	}
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	for _, path := range []string{res.PatPath, res.CitePath} {
		data, err := os.ReadFile(path)
		testutil.Check(t, err)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		rest := lines[1:]
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		testutil.WriteFile(t, path+".shuffled", []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	if st2 := checkStream(t, res.PatPath+".shuffled", res.CitePath+".shuffled"); st2 != st {
		t.Errorf("shuffled input: %+v, in order %+v", st2, st)
	}
}

// TestWriteStreamMini: the real NBER sample (its patents are not in GDATE
// order, and most of its citations' citing patents are not in its patents
// file).
func TestWriteStreamMini(t *testing.T) {
	testutil.SkipUnderRace(t)
	mini := testutil.NBERMini(t)
	pat, cite := filepath.Join(mini, "apat63_99.mini.txt"), filepath.Join(mini, "cite75_99.mini.txt")
	st := checkStream(t, pat, cite)
	t.Logf("nber-mini: %+v", st)
	if st.Patents != 17732 || st.Citations+st.Dropped != 8274 {
		t.Errorf("stats %+v: want 17,732 patents and 8,274 citations read", st)
	}
}

// TestWriteStreamErrors: a missing column, a non-integer value and a patent
// with two GDATEs are errors naming the file, the line and the column;
// nothing is left behind; a cancelled context stops it.
func TestWriteStreamErrors(t *testing.T) {
	dir := t.TempDir()
	mk := func(name, content string) string {
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, []byte(content), 0o644)
		return p
	}
	goodPat := mk("p.csv", "PATENT,GDATE\n1,10\n2,5\n")
	goodCite := mk("c.csv", "CITING,CITED\n1,2\n")
	for _, tc := range []struct {
		name, pat, cite string
		want            []string
	}{
		{"no GDATE", mk("p1.csv", "PATENT,GYEAR\n1,1990\n"), goodCite, []string{"p1.csv:1:", `"GDATE"`}},
		{"no CITED", goodPat, mk("c1.csv", "CITING,X\n1,2\n"), []string{"c1.csv:1:", `"CITED"`}},
		{"bad GDATE", mk("p2.csv", "PATENT,GDATE\n1,10\n2,x5\n"), goodCite, []string{"p2.csv:3:", "GDATE", `"x5"`}},
		{"empty PATENT", mk("p3.csv", "PATENT,GDATE\n,10\n"), goodCite, []string{"p3.csv:2:", "PATENT"}},
		{"bad CITED", goodPat, mk("c2.csv", "CITING,CITED\n1,2\n\n1,2.5\n"), []string{"c2.csv:4:", "CITED", `"2.5"`}},
		{"two GDATEs", mk("p4.csv", "PATENT,GDATE\n1,10\n1,11\n"), goodCite, []string{"p4.csv:3:", "PATENT 1", "GDATE 11", "GDATE 10"}},
		{"absent", filepath.Join(dir, "none.csv"), goodCite, []string{"none.csv"}},
	} {
		out := filepath.Join(t.TempDir(), "new")
		_, err := WriteStream(t.Context(), tc.pat, tc.cite, out)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to name %s", tc.name, err, w)
			}
		}
		if strings.Contains(tc.name, "GDATE") || strings.Contains(tc.name, "CITED") {
			if !errors.Is(err, csvscan.ErrSyntax) {
				t.Errorf("%s: %v does not wrap csvscan.ErrSyntax", tc.name, err)
			}
		}
		if _, serr := os.Stat(out); !os.IsNotExist(serr) {
			t.Errorf("%s: the failed run left %s", tc.name, out)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "new")
	if _, err := WriteStream(ctx, goodPat, goodCite, out); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("a cancelled run left %s", out)
	}
	// An existing folder keeps its files when a run fails.
	keep := t.TempDir()
	testutil.WriteFile(t, filepath.Join(keep, StreamPatentsFile), []byte("old\n"), 0o644)
	if _, err := WriteStream(t.Context(), filepath.Join(dir, "p2.csv"), goodCite, keep); err == nil {
		t.Fatal("bad input accepted")
	}
	if got, _ := os.ReadFile(filepath.Join(keep, StreamPatentsFile)); string(got) != "old\n" {
		t.Errorf("a failed run replaced %s: %q", StreamPatentsFile, got)
	}
	if ents, _ := os.ReadDir(keep); len(ents) != 1 {
		t.Errorf("a failed run left %d entries in %s", len(ents), keep)
	}
}

// TestCountingOrder: the counting sort equals a stable sort by rank.
func TestCountingOrder(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	rows := make([]citation, 5000)
	for i := range rows {
		rows[i] = citation{citing: int64(i), rank: rng.Int64N(50)}
	}
	order := countingOrder(rows, 50)
	want := slices.Clone(rows)
	slices.SortStableFunc(want, func(a, b citation) int { return cmp.Compare(a.rank, b.rank) })
	for i, j := range order {
		if rows[j] != want[i] {
			t.Fatalf("position %d: %+v, want %+v", i, rows[j], want[i])
		}
	}
}
