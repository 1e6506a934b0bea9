package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBankCommands: gen, bank build, validate (Markdown and JSON), update
// and a routed join, end to end on generated IMDb ratings, and the
// refusals a user meets.
func TestBankCommands(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	if _, e, err := runCmd("gen", "--dataset", "imdb-ratings", "--rows", "30000", "--seed", "2", "--out", dir); err != nil {
		t.Fatalf("gen: %v %s", err, e)
	}
	keys := p("title.ratings.tsv")
	out, e, err := runCmd("bank", "build", "--keys", keys, "--key-col", "tconst", "--key-type", "string", "--class-col", "averageRating", "--filter", "cbf", "--validate", "--out", p("r.bank"))
	if err != nil {
		t.Fatalf("bank build: %v %s", err, e)
	}
	if !strings.Contains(out, "10 classes of cbf over averageRating (round)") || !strings.Contains(out, "| 7 |") || !strings.Contains(out, "30000 distinct keys") {
		t.Errorf("bank build --validate printed:\n%s", out)
	}
	out, e, err = runCmd("bank", "validate", "--bank", p("r.bank"), "--keys", keys, "--json")
	if err != nil {
		t.Fatalf("bank validate: %v %s", err, e)
	}
	var v struct {
		Classes []struct {
			Class  string  `json:"class"`
			N      int     `json:"n"`
			Trials int64   `json:"trials"`
			FN     int64   `json:"false_negatives"`
			Z      float64 `json:"z"`
		} `json:"classes"`
		Keys int64 `json:"distinct_keys"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("validate --json: %v\n%s", err, out)
	}
	if v.Keys != 30000 || len(v.Classes) != 10 {
		t.Fatalf("validate: %d keys, %d classes", v.Keys, len(v.Classes))
	}
	for _, c := range v.Classes {
		if c.FN != 0 || c.Trials != int64(30000-c.N) {
			t.Errorf("class %s: %d FN, %d trials for n = %d", c.Class, c.FN, c.Trials, c.N)
		}
	}
	// Move a title of class 7 to class 8: the bank then refuses the old
	// file and validates the moved one.
	data, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var moved string
	for i, l := range lines[1:] {
		if f := strings.Split(l, "\t"); len(f) == 3 && f[1] == "7.0" {
			moved = f[0]
			lines[i+1] = f[0] + "\t8.0\t" + f[2]
			break
		}
	}
	if err := os.WriteFile(p("moves.csv"), []byte("key,from,to\n"+moved+",7,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("moved.tsv"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p("r.bank"))
	if out, e, err = runCmd("bank", "update", "--bank", p("r.bank"), "--moves", p("moves.csv")); err != nil || !strings.Contains(out, "1 keys moved") {
		t.Fatalf("bank update: %v %s %s", err, out, e)
	}
	if _, _, err := runCmd("bank", "validate", "--bank", p("r.bank"), "--keys", keys); err == nil || !strings.Contains(err.Error(), "class 7 holds") && !strings.Contains(err.Error(), "class \"7\"") {
		t.Errorf("the updated bank validated against the old file: %v", err)
	}
	if _, e, err := runCmd("bank", "validate", "--bank", p("r.bank"), "--keys", p("moved.tsv")); err != nil {
		t.Errorf("the updated bank against the moved file: %v %s", err, e)
	}
	// A move of a key not in its class changes nothing on disk.
	after, _ := os.ReadFile(p("r.bank"))
	os.WriteFile(p("bad-moves.csv"), []byte(moved+",7,8\n"), 0o644)
	if _, _, err := runCmd("bank", "update", "--bank", p("r.bank"), "--moves", p("bad-moves.csv")); err == nil || !strings.Contains(err.Error(), "bad-moves.csv:1") {
		t.Errorf("a bad move: %v", err)
	}
	if now, _ := os.ReadFile(p("r.bank")); string(now) != string(after) || string(now) == string(before) {
		t.Error("a failed update changed the bank, or the good one did not")
	}
	// A bloom bank cannot move keys.
	if _, _, err := runCmd("bank", "build", "--keys", keys, "--key-col", "tconst", "--key-type", "string", "--class-col", "averageRating", "--quiet", "--out", p("b.bank")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd("bank", "update", "--bank", p("b.bank"), "--moves", p("moves.csv")); err == nil || !strings.Contains(err.Error(), "cannot move keys") {
		t.Errorf("a bloom bank moved: %v", err)
	}
	// IMDb's tconst (tt0000019) needs no --key-type: auto reads it as
	// text, and says why.
	out, _, err = runCmd("bank", "build", "--keys", keys, "--key-col", "tconst", "--class-col", "averageRating", "--out", p("auto.bank"))
	if err != nil || !strings.Contains(out, `key type string: inferred: column "tconst" of `+keys+` holds "tt`) {
		t.Errorf("bank build with --key-type auto: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bank", "build", "--keys", keys, "--key-col", "tconst", "--key-type", "int", "--class-col", "averageRating", "--out", p("x.bank")}, "tconst"},
		{[]string{"bank", "build", "--keys", keys, "--key-col", "tconst", "--key-type", "string", "--class-col", "averageRating", "--classes", "bins", "--out", p("x.bank")}, "--classes"},
		{[]string{"bank", "build", "--keys", keys, "--key-col", "tconst", "--key-type", "string", "--class-col", "averageRating", "--fpp", "0.01", "--bits-per-key", "9", "--out", p("x.bank")}, "give one"},
		{[]string{"bank", "build", "--keys", keys, "--key-col", "tconst", "--key-type", "string", "--class-col", "numVotes", "--classes", "value", "--filter", "exact", "--out", p("x.bank")}, "exact"},
		{[]string{"bank", "build", "--keys", keys, "--key-col", "tconst", "--key-type", "string", "--class-col", "averageRating", "--delim", "ab", "--out", p("x.bank")}, "--delim"},
		{[]string{"bank", "validate", "--bank", keys, "--keys", keys}, "not a filter bank"},
		{[]string{"bank", "nope"}, "unknown subcommand"},
	} {
		if _, _, err := runCmd(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args[:2], err, tc.want)
		}
		if _, err := os.Stat(p("x.bank")); err == nil {
			t.Fatalf("%v left x.bank", tc.args)
		}
	}
}

// TestRunRouteDir: --route dir writes DIR/CLASSCOL=class/part.csv, refuses
// an existing DIR, and leaves nothing behind on a failure.
func TestRunRouteDir(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(p("k.csv"), []byte("id,grade\n1,a\n2,b/..\n3,a\n"), 0o644)
	os.WriteFile(p("in.csv"), []byte("ref,v\n1,x\n2,y\n3,z\n4,w\n"), 0o644)
	if _, e, err := runCmd("bank", "build", "--keys", p("k.csv"), "--key-col", "id", "--class-col", "grade", "--classes", "value", "--filter", "cbf", "--quiet", "--out", p("g.bank")); err != nil {
		t.Fatalf("%v %s", err, e)
	}
	if _, e, err := runCmd("run", "--bank", p("g.bank"), "--keys", p("k.csv"), "--input", p("in.csv"), "--join-col", "ref", "--route", "dir", "--sort", "--quiet", "--out", p("out")); err != nil {
		t.Fatalf("%v %s", err, e)
	}
	a, _ := os.ReadFile(p("out/grade=a/part.csv"))
	b, _ := os.ReadFile(p("out/grade=b%2F../part.csv"))
	if string(a) != "ref,v,grade\n1,x,a\n3,z,a\n" || string(b) != "ref,v,grade\n2,y,b/..\n" {
		t.Errorf("class a:\n%s\nclass b/..:\n%s", a, b)
	}
	if _, _, err := runCmd("run", "--bank", p("g.bank"), "--keys", p("k.csv"), "--input", p("in.csv"), "--join-col", "ref", "--route", "dir", "--out", p("out")); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("an existing --out: %v", err)
	}
	if _, _, err := runCmd("run", "--bank", p("g.bank"), "--keys", p("k.csv"), "--input", p("in.csv"), "--join-col", "NOPE", "--route", "dir", "--out", p("out2")); err == nil {
		t.Error("a join column that is not there")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "acbfjoin") || e.Name() == "out2" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if _, _, err := runCmd("run", "--keys", p("k.csv"), "--input", p("in.csv"), "--join-col", "ref", "--key-col", "id", "--classes", "a", "--out", p("o.csv")); err == nil || !strings.Contains(err.Error(), "needs a bank (--bank)") {
		t.Errorf("--classes without a bank: %v", err)
	}
	_, e, err := runCmd("run", "--bank", p("g.bank"), "--classes", "a", "--keys", p("k.csv"), "--input", p("in.csv"), "--join-col", "ref", "--route", "column", "--sort", "--quiet", "--out", p("col.csv"))
	if out, _ := os.ReadFile(p("col.csv")); err != nil || string(out) != "ref,v,grade,class\n1,x,a,a\n3,z,a,a\n" {
		t.Errorf("route column:\n%s %v %s", out, err, e)
	}
}

// TestBankUpdateSharedKey: the case. A key in classes a and b moved
// from a to b: the bank it writes validates against the key file with the
// move made, and joins with it; before, it said "1 keys moved" and then
// refused that file ("built from another file").
func TestBankUpdateSharedKey(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "K,C\n1,a\n2,a\n3,b\n1,b\n")
	moved := mk("k2.csv", "K,C\n1,b\n2,a\n3,b\n1,b\n")
	moves := mk("m.csv", "key,from,to\n1,a,b\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n11,2\n12,3\n")
	b1, b2 := filepath.Join(dir, "k.bank"), filepath.Join(dir, "k2.bank")
	for _, args := range [][]string{
		{"bank", "build", "--keys", keys, "--key-col", "K", "--class-col", "C", "--classes", "value", "--filter", "cbf", "--out", b1, "--quiet"},
		{"bank", "update", "--bank", b1, "--moves", moves, "--out", b2},
		{"bank", "validate", "--bank", b2, "--keys", moved},
		{"run", "--bank", b2, "--keys", moved, "--input", input, "--classes", "b", "--out", filepath.Join(dir, "j.csv"), "--sort", "--quiet"},
	} {
		out, stderr, err := runCmd(args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s%s", strings.Join(args[:2], " "), err, out, stderr)
		}
		if args[1] == "update" && !strings.Contains(out, "1 keys moved (1 into a class that held them already)") {
			t.Errorf("bank update: %q", out)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, "j.csv"))
	if want := "CITING,CITED,C\n10,1,b\n10,1,b\n12,3,b\n"; string(got) != want {
		t.Errorf("join by class b: %q, want %q", got, want)
	}
}

// TestClassesQuoted: --classes is a CSV record, as --key-col is: a label
// holding a comma is given quoted (it looked for `"a`).
func TestClassesQuoted(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "K,C\n1,\"a,b\"\n2,c\n3,\"say \"\"hi\"\"\"\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n11,2\n12,3\n")
	b := filepath.Join(dir, "k.bank")
	if _, stderr, err := runCmd("bank", "build", "--keys", keys, "--key-col", "K", "--class-col", "C", "--classes", "value", "--filter", "cbf", "--out", b, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for classes, want := range map[string]string{
		`"a,b"`:                "CITING,CITED,C\n10,1,\"a,b\"\n",
		`"a,b",c`:              "CITING,CITED,C\n10,1,\"a,b\"\n11,2,c\n",
		`"say ""hi"""`:         "CITING,CITED,C\n12,3,\"say \"\"hi\"\"\"\n",
		`c,"say ""hi""","a,b"`: "CITING,CITED,C\n10,1,\"a,b\"\n11,2,c\n12,3,\"say \"\"hi\"\"\"\n",
	} {
		out := filepath.Join(dir, "j.csv")
		if _, stderr, err := runCmd("run", "--bank", b, "--keys", keys, "--input", input, "--classes", classes, "--out", out, "--sort", "--quiet"); err != nil {
			t.Errorf("--classes %s: %v\n%s", classes, err, stderr)
			continue
		}
		if got, _ := os.ReadFile(out); string(got) != want {
			t.Errorf("--classes %s: %q, want %q", classes, got, want)
		}
	}
	if _, _, err := runCmd("run", "--bank", b, "--keys", keys, "--input", input, "--classes", `"a,b`, "--quiet"); err == nil || !strings.Contains(err.Error(), "--classes") {
		t.Errorf("an unclosed quote: %v", err)
	}
}
