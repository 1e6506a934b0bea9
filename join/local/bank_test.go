package local

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// miniFiles returns the real NBER sample of the repository (testdata/nber-mini).
func miniFiles(t *testing.T) (pat, cite string) {
	t.Helper()
	dir := testutil.NBERMini(t)
	return filepath.Join(dir, "apat63_99.mini.txt"), filepath.Join(dir, "cite75_99.mini.txt")
}

// buildBank writes a bank of the patents' CAT classes to dir.
func buildBank(t *testing.T, dir, pat string, kind filters.Kind, classing string) string {
	t.Helper()
	cl, err := bank.ParseClassing(classing)
	testutil.Check(t, err)
	res, err := ScanClasses(context.Background(), ClassScan{Keys: pat, KeyCol: "PATENT", ClassCol: "CAT", Classing: cl})
	testutil.Check(t, err)
	b, err := bank.Build(bank.Meta{Kind: kind, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "PATENT", ClassCol: "CAT", KeyType: "int", Classing: cl}, res.Classes)
	testutil.Check(t, err)
	path := filepath.Join(dir, "cat.bank")
	var buf bytes.Buffer
	_, err = b.WriteTo(&buf)
	testutil.Check(t, err)
	testutil.WriteFile(t, path, buf.Bytes(), 0o644)
	return path
}

// restrict writes the rows of the patent file whose CAT is in cats.
func restrict(t *testing.T, dir, pat string, cats ...string) string {
	t.Helper()
	data, err := os.ReadFile(pat)
	testutil.Check(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	hdr := strings.Split(strings.ReplaceAll(strings.TrimSpace(lines[0]), `"`, ""), ",")
	ci := slices.Index(hdr, "CAT")
	var out strings.Builder
	out.WriteString(lines[0])
	for _, l := range lines[1:] {
		if f := strings.Split(strings.TrimRight(l, "\r\n"), ","); len(f) > ci && slices.Contains(cats, f[ci]) {
			out.WriteString(l)
		}
	}
	path := filepath.Join(dir, "restricted-"+strings.Join(cats, "_")+".txt")
	testutil.WriteFile(t, path, []byte(out.String()), 0o644)
	return path
}

func runCSV(t *testing.T, opt join.Options) (string, *join.Report) {
	t.Helper()
	var out bytes.Buffer
	rep, err := Run(context.Background(), opt, NewCSV(&out))
	testutil.Check(t, err)
	return out.String(), rep
}

// TestBankJoinEqualsRestricted: a join by classes 1 and 2 of a bank equals
// the join with a key file of those classes' rows only, byte for byte
// (sorted), on the real sample, for a bloom and a cbf bank.
func TestBankJoinEqualsRestricted(t *testing.T) {
	pat, cite := miniFiles(t)
	dir := t.TempDir()
	for _, kind := range []filters.Kind{filters.Bloom, filters.CBF} {
		bp := buildBank(t, dir, pat, kind, "value")
		got, rep := runCSV(t, join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp, Classes: []string{"2", "1"}}, Output: join.Output{Sort: true}})
		want, _ := runCSV(t, join.Options{Sides: join.Sides{Keys: restrict(t, dir, pat, "1", "2"), Input: cite}, Keying: join.Keying{KeyCol: "PATENT", JoinCol: "CITED"}, FilterChoice: join.FilterChoice{Filter: filters.Exact}, Output: join.Output{Sort: true}})
		if got != want {
			t.Errorf("%s bank, classes 1,2: %d bytes, the restricted join %d", kind, len(got), len(want))
		}
		if rep.JoinRows == 0 || rep.Filter.Kind != kind {
			t.Errorf("%s: %d rows, filter %s", kind, rep.JoinRows, rep.Filter.Kind)
		}
	}
}

// TestRouteEqualsPerClassJoins: --route dir writes, per class, exactly the
// join of that class run alone; --route column writes the union with the
// class in a last column.
func TestRouteEqualsPerClassJoins(t *testing.T) {
	pat, cite := miniFiles(t)
	dir := t.TempDir()
	bp := buildBank(t, dir, pat, filters.Bloom, "value")
	b, err := ReadBank(context.Background(), bp)
	testutil.Check(t, err)
	labels, err := Labels(b, nil)
	testutil.Check(t, err)
	outs := make([]*bytes.Buffer, len(labels))
	sinks := make([]Sink, len(labels))
	for i := range labels {
		outs[i] = &bytes.Buffer{}
		sinks[i] = NewCSV(outs[i])
	}
	_, err = Run(context.Background(), join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp, Route: join.RouteDir}, Output: join.Output{Sort: true}}, NewRouted(labels, sinks))
	testutil.Check(t, err)
	col, _ := runCSV(t, join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp, Route: join.RouteColumn}, Output: join.Output{Sort: true}})
	colRows, err := csv.NewReader(strings.NewReader(col)).ReadAll()
	testutil.Check(t, err)
	if colRows[0][len(colRows[0])-1] != "class" {
		t.Fatalf("route column header %v", colRows[0])
	}
	perClass := map[string]int{}
	for _, r := range colRows[1:] {
		perClass[r[len(r)-1]]++
	}
	total := 0
	classes := make([]int, len(labels))
	for i := range classes {
		classes[i] = i
	}
	// Under the race detector, 2 of the classes joined alone (each such
	// join has the same goroutines), and so no sum of them all.
	classes = testutil.RacePick(classes, 2, testutil.RaceSeed(t))
	for _, i := range classes {
		l := labels[i]
		alone, _ := runCSV(t, join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp, Classes: []string{l}}, Output: join.Output{Sort: true}})
		if outs[i].String() != alone {
			t.Errorf("class %s: routed %d bytes, joined alone %d", l, outs[i].Len(), len(alone))
		}
		n := strings.Count(alone, "\n") - 1
		if perClass[l] != n {
			t.Errorf("class %s: %d rows in the class column, %d joined alone", l, perClass[l], n)
		}
		total += n
	}
	if len(classes) < len(labels) {
		return
	}
	all, _ := runCSV(t, join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{KeyCol: "PATENT", JoinCol: "CITED"}, FilterChoice: join.FilterChoice{Filter: filters.Exact}})
	if want := strings.Count(all, "\n") - 1; total != want || total == 0 {
		t.Errorf("the classes' joins have %d rows, the whole join %d", total, want)
	}
}

// TestBankJoinRefusals: a bank of another key file, a class it has not, and
// settings that contradict it are errors.
func TestBankJoinRefusals(t *testing.T) {
	pat, cite := miniFiles(t)
	dir := t.TempDir()
	bp := buildBank(t, dir, pat, filters.Bloom, "value")
	for _, tc := range []struct {
		opt  join.Options
		want string
	}{
		{join.Options{Sides: join.Sides{Keys: restrict(t, dir, pat, "1", "2", "3", "4", "5"), Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp, Classes: []string{"1"}}, Output: join.Output{Sort: true}}, ""}, // class 1 unchanged: fine
		{join.Options{Sides: join.Sides{Keys: restrict(t, dir, pat, "1", "2", "3", "4", "5"), Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp}}, `class "6" holds`},
		{join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp, Classes: []string{"9"}}}, `no class "9"`},
		{join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, FilterChoice: join.FilterChoice{Filter: filters.ACBF}, BankJoin: join.BankJoin{Bank: bp}}, "built with bloom"},
		{join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{KeyCol: "ASSIGNEE", JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp}}, "built with PATENT"},
		{join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, FilterChoice: join.FilterChoice{Sizing: filters.Sizing{FPP: 0.1}}, BankJoin: join.BankJoin{Bank: bp}}, "cannot change the filters of the bank"},
		{join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Classes: []string{"1"}}}, "needs a bank"},
		{join.Options{Sides: join.Sides{Keys: pat, Input: cite}, Keying: join.Keying{JoinCol: "CITED"}, BankJoin: join.BankJoin{Bank: bp, Route: join.RouteDir}}, "NewRouted"},
	} {
		var out bytes.Buffer
		_, err := Run(context.Background(), tc.opt, NewCSV(&out))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.opt.Classes, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v", tc.want, err)
		}
	}
}

// TestTSVSides: a tab-separated key file and large side give the same
// output as their CSV forms (the output is CSV: the large side's rows
// re-encoded, a field holding a comma quoted).
func TestTSVSides(t *testing.T) {
	dir := t.TempDir()
	keysCSV := "id,name\n1,\"a,b\"\n2,plain\n3,\"say \"\"hi\"\"\"\n"
	keysTSV := "id\tname\n1\ta,b\n2\tplain\n3\t\"say \"\"hi\"\"\"\n"
	inCSV := "ref,note\n1,x\n2,\"tab\there\"\n9,\"comma,here\"\n3,z\n"
	inTSV := "ref\tnote\n1\tx\n2\t\"tab\there\"\n9\tcomma,here\n3\tz\n"
	for name, data := range map[string]string{"k.csv": keysCSV, "k.tsv": keysTSV, "i.csv": inCSV, "i.tsv": inTSV} {
		testutil.WriteFile(t, filepath.Join(dir, name), []byte(data), 0o644)
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	want, _ := runCSV(t, join.Options{Sides: join.Sides{Keys: p("k.csv"), Input: p("i.csv")}, Keying: join.Keying{KeyCol: "id", JoinCol: "ref"}, FilterChoice: join.FilterChoice{Filter: filters.Exact}, Output: join.Output{Sort: true}})
	for _, pair := range [][2]string{{"k.tsv", "i.csv"}, {"k.csv", "i.tsv"}, {"k.tsv", "i.tsv"}} {
		got, _ := runCSV(t, join.Options{Sides: join.Sides{Keys: p(pair[0]), Input: p(pair[1])}, Keying: join.Keying{KeyCol: "id", JoinCol: "ref"}, FilterChoice: join.FilterChoice{Filter: filters.Exact}, Output: join.Output{Sort: true}})
		// The same records (a field may be quoted where the CSV file
		// quoted it and not where the re-encoding need not).
		g, err := csv.NewReader(strings.NewReader(got)).ReadAll()
		testutil.Check(t, err)
		w, err := csv.NewReader(strings.NewReader(want)).ReadAll()
		testutil.Check(t, err)
		if !slices.EqualFunc(g, w, slices.Equal) {
			t.Errorf("%v:\n%s\nwant\n%s", pair, got, want)
		}
	}
	if !strings.Contains(want, `"a,b"`) || strings.Count(want, "\n") != 4 {
		t.Errorf("the CSV join:\n%s", want)
	}
}

// TestScanClassesDuplicatesAndBadRows: a key repeated in a class counts
// once, a key in two classes is in both, and a bad class is an error
// naming its line (or a counted bad row).
func TestScanClassesDuplicatesAndBadRows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.tsv")
	testutil.WriteFile(t, path, []byte("tconst\taverageRating\tnumVotes\ntt1\t6.5\t5\ntt1\t7.4\t5\ntt2\t6.5\t9\ntt3\t1.4\t5\ntt-very-long-key-0001\t1.0\t5\ntt-very-long-key-0001\t1.2\t5\n"), 0o644)
	cl, _ := bank.ParseClassing("round")
	res, err := ScanClasses(context.Background(), ClassScan{Keys: path, KeyCol: "tconst", ClassCol: "averageRating", KeyType: key.String, Classing: cl})
	testutil.Check(t, err)
	got := map[string]int{}
	for _, c := range res.Classes {
		got[c.Label] = c.Keys.Len()
		if c.Label == "7" && (!c.Keys.Has([]byte("tt1")) || !c.Keys.Has([]byte("tt2"))) {
			t.Error("class 7 lacks tt1 or tt2")
		}
	}
	if got["7"] != 2 || got["1"] != 2 || len(got) != 2 || res.Records != 6 {
		t.Errorf("classes %v, %d rows", got, res.Records)
	}
	testutil.WriteFile(t, path, []byte("tconst\taverageRating\tnumVotes\ntt1\t6.5\t5\ntt2\tnone\t5\n"), 0o644)
	_, err = ScanClasses(context.Background(), ClassScan{Keys: path, KeyCol: "tconst", ClassCol: "averageRating", KeyType: key.String, Classing: cl})
	if err == nil || !strings.Contains(err.Error(), "r.tsv:3: averageRating") {
		t.Errorf("a bad class: %v", err)
	}
	res, err = ScanClasses(context.Background(), ClassScan{Keys: path, KeyCol: "tconst", ClassCol: "averageRating", KeyType: key.String, Classing: cl, SkipBadRows: true})
	testutil.Check(t, err)
	if res.BadRows != 1 || len(res.Classes) != 1 {
		t.Errorf("skip: %d bad rows, %d classes", res.BadRows, len(res.Classes))
	}
}

// TestScanClassesShared: the keys held by several classes that the scan
// finds by merging its sorted sets equal those bank.Build finds by hashing
// (and a model's), on random keys short and long, integer and string, over
// several mappers; the bank built from either is the same.
func TestScanClassesShared(t *testing.T) {
	seed := testutil.Seed(t)
	r := testutil.Rand(seed)
	for _, kt := range []key.Type{key.Int, key.String} {
		var b strings.Builder
		b.WriteString("K,C\n")
		model := map[string]map[string]bool{} // key -> classes
		for range 20000 {
			k := fmt.Sprint(r.IntN(5000))
			if kt == key.String && r.IntN(4) == 0 {
				k = "a-key-longer-than-fifteen-bytes-" + k
			}
			c := fmt.Sprint(r.IntN(12))
			fmt.Fprintf(&b, "%s,%s\n", k, c)
			if model[k] == nil {
				model[k] = map[string]bool{}
			}
			model[k][c] = true
		}
		path := filepath.Join(t.TempDir(), "k.csv")
		testutil.WriteFile(t, path, []byte(b.String()), 0o644)
		cl, _ := bank.ParseClassing("value")
		res, err := ScanClasses(context.Background(), ClassScan{Keys: path, KeyCol: "K", ClassCol: "C", KeyType: kt, Classing: cl, Mappers: 3})
		testutil.Check(t, err)
		shared := res.Shared()
		want := 0
		for k, cs := range model {
			if len(cs) < 2 {
				continue
			}
			want++
			ks := key.Spec{Cols: []int{0}, Names: []string{"K"}, Types: []key.Type{kt}}
			key, _ := ks.Append(nil, [][]byte{[]byte(k)})
			labels := slices.Sorted(maps.Keys(cs))
			if got := shared[string(key)]; !slices.Equal(got, labels) {
				t.Fatalf("%s: key %s in %v, the scan says %v", kt, k, labels, got)
			}
		}
		if len(shared) != want {
			t.Fatalf("%s: %d shared keys, want %d", kt, len(shared), want)
		}
		meta := bank.Meta{Kind: filters.CBF, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "K", ClassCol: "C", KeyType: string(kt), Classing: cl}
		fromScan, err := bank.BuildShared(meta, res.Classes, res.Shared)
		testutil.Check(t, err)
		found, err := bank.Build(meta, res.Classes)
		testutil.Check(t, err)
		if !maps.EqualFunc(fromScan.Shared, found.Shared, slices.Equal) || len(found.Shared) != want {
			t.Fatalf("%s: the scan's shared keys and Build's differ (%d, %d)", kt, len(fromScan.Shared), len(found.Shared))
		}
	}
}
