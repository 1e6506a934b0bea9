package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// buildCase is a key side and a large side for the build's differential
// test, with the join's key columns and types.
type buildCase struct {
	name               string
	keys, input        string // CSV text
	keyCol, joinCol    string
	keyType            key.Type
	skipBad, wantError bool
	errHas             string // what the error says (its line)
}

// buildCases makes the differential test's sides: integer keys with
// repeats, NULLs, quoted keys and quoted text fields (the NBER patents'
// shape); keys that are text (a non-canonical integer, a separator inside
// quotes) and keys of 8 bytes of text (held as integers are); composite
// keys; rows of the wrong field count, skipped or an error; a key that is
// no integer where the type int was given (an error naming its line).
func buildCases(rng *rand.Rand, rows int) []buildCase {
	pick := func(vals []string) string { return vals[rng.IntN(len(vals))] }
	text := []string{`"BE"`, `""`, `"US"`, ``, `"a,b"`, `x`}
	var cases []buildCase
	gen := func(name, header string, row func(i int) string, inputHeader string, inputRow func(i int) string) (string, string) {
		var k, in strings.Builder
		k.WriteString(header + "\n")
		for i := range rows {
			k.WriteString(row(i) + "\n")
		}
		in.WriteString(inputHeader + "\n")
		for i := range 2 * rows {
			in.WriteString(inputRow(i) + "\n")
		}
		return k.String(), in.String()
	}
	intKey := func() string {
		switch rng.IntN(20) {
		case 0:
			return "" // NULL
		case 1:
			return fmt.Sprintf(`"%d"`, 1+rng.IntN(rows/3)) // quoted, still an integer
		case 2:
			return "0"
		}
		return fmt.Sprint(1 + rng.IntN(rows/3))
	}
	k, in := gen("int", `"PATENT","GYEAR","COUNTRY","POSTATE"`, func(int) string {
		return fmt.Sprintf("%s,%d,%s,%s", intKey(), 1963+rng.IntN(30), pick(text), pick(text))
	}, "CITING,CITED", func(i int) string { return fmt.Sprintf("%d,%s", i, intKey()) })
	cases = append(cases, buildCase{name: "int", keys: k, input: in, keyCol: "PATENT", joinCol: "CITED"})
	strKey := func() string {
		switch rng.IntN(10) {
		case 0:
			return ""
		case 1:
			return fmt.Sprintf(`"k,%d"`, rng.IntN(rows/4))
		case 2:
			return fmt.Sprintf("%03d", rng.IntN(50)) // 007: no canonical integer
		case 3:
			return fmt.Sprintf("abcd%04d", rng.IntN(rows/4)) // 8 bytes
		}
		return fmt.Sprintf("key%d", rng.IntN(rows/4))
	}
	k, in = gen("string", "K,PAY,T", func(i int) string { return fmt.Sprintf("%s,%d,%s", strKey(), i, pick(text)) },
		"ID,K", func(i int) string { return fmt.Sprintf("%d,%s", i, strKey()) })
	cases = append(cases, buildCase{name: "string", keys: k, input: in, keyCol: "K", joinCol: "K"})
	k, in = gen("composite", "A,B,PAY", func(i int) string { return fmt.Sprintf("%s,%s,%s", intKey(), strKey(), pick(text)) },
		"X,Y,ID", func(i int) string { return fmt.Sprintf("%s,%s,%d", intKey(), strKey(), i) })
	cases = append(cases, buildCase{name: "composite", keys: k, input: in, keyCol: "A,B", joinCol: "X,Y"})
	// Bad rows: a row of three fields in the middle of the key side.
	lines := strings.SplitAfter(cases[0].keys, "\n")
	at := 1 + len(lines)/2
	bad := strings.Join(lines[:at], "") + "1,2,3\n" + strings.Join(lines[at:], "")
	cases = append(cases, buildCase{name: "bad-rows-skipped", keys: bad, input: cases[0].input, keyCol: "PATENT", joinCol: "CITED", skipBad: true})
	cases = append(cases, buildCase{name: "bad-rows", keys: bad, input: cases[0].input, keyCol: "PATENT", joinCol: "CITED", wantError: true,
		errHas: fmt.Sprintf("-keys.csv:%d: 3 fields, want 4", at+1)})
	// The type int given and a key that is none, late in the file.
	lines = strings.SplitAfter(cases[0].keys, "\n")
	at = len(lines) * 3 / 4
	notInt := strings.Join(lines[:at], "") + "x12,1970,\"US\",\"\"\n" + strings.Join(lines[at:], "")
	cases = append(cases, buildCase{name: "not-int", keys: notInt, input: cases[0].input, keyCol: "PATENT", joinCol: "CITED", keyType: key.Int, wantError: true,
		errHas: fmt.Sprintf("-keys.csv:%d: ", at+1)})
	return cases
}

// buildResult is what the differential test compares of a build.
type buildResult struct {
	keys                      []string // distinct, sorted
	records, null, unmatching int64
	distinct                  int
	lo, hi                    string
	plain, actual, bytes      []int64
	err                       string
}

// runBuild runs the build of opt alone (prepare, then build) and returns
// what it made.
func runBuild(t *testing.T, opt join.Options) buildResult {
	t.Helper()
	ctx := context.Background()
	sink := NewCSV(io.Discard)
	x, err := prepare(ctx, opt, sink)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	defer sink.Close()
	defer x.close()
	keys, st, err := x.build(ctx)
	if err != nil {
		return buildResult{err: err.Error()}
	}
	res := buildResult{records: st.records, distinct: st.distinct, null: st.cannot.null, unmatching: st.cannot.unmatchable,
		lo: string(st.lo), hi: string(st.hi), plain: st.parts.plain, actual: st.parts.actual, bytes: st.parts.bytes}
	for _, k := range keys.Slices() {
		res.keys = append(res.keys, string(k))
	}
	slices.Sort(res.keys)
	if st.index != nil {
		if st.index.len() != keys.Len() {
			t.Fatalf("index of %d keys, list of %d", st.index.len(), keys.Len())
		}
		for _, k := range keys.Slices() {
			if !st.index.has(string(k)) {
				t.Fatalf("index lacks %x", k)
			}
		}
	}
	return res
}

// referenceKeys reads the key side of opt on one goroutine, row by row, as
// the build did before its keys were collected in parts: a key set
// (keySet) of the keys MapKeyRow makes, and the counts of rows, NULL keys
// and unmatchable ones. The key's types are the ones the build decided.
func referenceKeys(t *testing.T, opt join.Options) buildResult {
	t.Helper()
	ctx := context.Background()
	sink := NewCSV(io.Discard)
	x, err := prepare(ctx, opt, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	defer x.close()
	if _, _, err := x.build(ctx); err != nil {
		t.Fatal(err)
	}
	rc, name, err := csvscan.Open(opt.Keys)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	r := csvscan.NewReader(rc, name)
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	if opt.SkipBadRows {
		r.SkipBad(func(*csvscan.ParseError) {})
	}
	var set keySet
	var res buildResult
	for r.Next() {
		if nullKey(r, x.keySpec) {
			res.null++
			continue
		}
		rec, _, err := join.MapKeyRow(&x.keySpec, r.Fields(), r.Offset(), nil)
		if err != nil {
			if key.Unmatchable(err, x.typing.Lenient) {
				res.unmatching++
				continue
			}
			t.Fatalf("line %d: %v", r.Line(), err)
		}
		res.records++
		set.add(rec.Key)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	for _, k := range set.list() {
		res.keys = append(res.keys, string(k))
	}
	slices.Sort(res.keys)
	res.distinct = len(res.keys)
	return res
}

// TestBuildParallelMatchesSerial: the build on 2, 3 and 4 workers makes
// what it makes on one (the distinct keys, the counts of rows, NULL and
// unmatchable keys, the integer keys' bounds, each partition's records
// and bytes, the error) and the keys a row-by-row read into one key set
// makes; and a whole join (inner and full, sorted) writes the same bytes
// and reports the same counts and bad rows, or fails with the same
// message, on every number of workers. Integer, text, 8-byte text and
// composite keys, with repeats, NULLs, quoted fields and bad rows; with
// the index kept (Filter auto) and not.
//
// Under the race detector each case runs one of the four filters and join
// types and one of the worker counts, a different one from case to case
// and from seed to seed: the goroutines (the parallel build, its merge, the
// join's mappers and reducers) are the same in each.
func TestBuildParallelMatchesSerial(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	rows := 3000
	if testing.Short() {
		rows = 800
	}
	type kindJoin struct {
		kind filters.Kind
		jt   join.JoinType
	}
	var combos []kindJoin
	for _, kind := range []filters.Kind{filters.ACBF, join.FilterAuto} {
		for _, jt := range []join.JoinType{join.JoinInner, join.JoinFull} {
			combos = append(combos, kindJoin{kind, jt})
		}
	}
	dir := t.TempDir()
	for ci, c := range buildCases(rng, rows) {
		t.Run(c.name, func(t *testing.T) {
			keys, input := filepath.Join(dir, c.name+"-keys.csv"), filepath.Join(dir, c.name+"-input.csv")
			if err := os.WriteFile(keys, []byte(c.keys), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(input, []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, kj := range testutil.RacePick(combos, 1, seed+uint64(ci)) {
				kind, jt := kj.kind, kj.jt
				opts := func(mappers int) join.Options {
					return join.Options{Sides: join.Sides{Keys: keys, Input: input, SkipBadRows: c.skipBad},
						Keying:       join.Keying{KeyCol: c.keyCol, JoinCol: c.joinCol, KeyType: c.keyType},
						FilterChoice: join.FilterChoice{Filter: kind},
						Resources:    join.Resources{Mappers: mappers, Reducers: 2},
						Output:       join.Output{Sort: true},
						JoinType:     jt}
				}
				serial := runBuild(t, opts(1))
				if (serial.err != "") != c.wantError || !strings.Contains(serial.err, c.errHas) {
					t.Fatalf("%s %s: error %q", kind, jt, serial.err)
				}
				if !c.wantError {
					ref := referenceKeys(t, opts(1))
					if !slices.Equal(serial.keys, ref.keys) || serial.records != ref.records || serial.null != ref.null || serial.unmatching != ref.unmatching || serial.distinct != ref.distinct {
						t.Fatalf("%s %s: build %d keys (%d rows, %d NULL, %d unmatchable), reference %d keys (%d, %d, %d)",
							kind, jt, serial.distinct, serial.records, serial.null, serial.unmatching, ref.distinct, ref.records, ref.null, ref.unmatching)
					}
					if serial.distinct == 0 || serial.null == 0 {
						t.Fatalf("%s %s: %d keys, %d NULL: the case tests little", kind, jt, serial.distinct, serial.null)
					}
				}
				rep1, out1, err1 := runJoinErr(opts(1))
				for _, m := range testutil.RacePick([]int{2, 3, 4}, 1, seed+uint64(ci)) {
					par := runBuild(t, opts(m))
					if fmt.Sprint(par) != fmt.Sprint(serial) {
						t.Fatalf("%s %s, %d workers: build\n%+v\none worker's\n%+v", kind, jt, m, par, serial)
					}
					rep, out, err := runJoinErr(opts(m))
					if fmt.Sprint(err) != fmt.Sprint(err1) || !bytes.Equal(out, out1) {
						t.Fatalf("%s %s, %d workers: %d bytes, error %v; one worker: %d bytes, error %v", kind, jt, m, len(out), err, len(out1), err1)
					}
					if err != nil {
						continue
					}
					if kind == join.FilterAuto { // its choice weighs the mappers: the filter, and what it let through, may differ
						rep.Filter, rep1.Filter = join.FilterReport{}, join.FilterReport{}
						rep.ShuffleRecords, rep1.ShuffleRecords = 0, 0
						rep.FalsePositiveRecords, rep1.FalsePositiveRecords = 0, 0
					}
					if got, want := joinCounts(rep), joinCounts(rep1); got != want {
						t.Fatalf("%s %s, %d workers: report %s, one worker's %s", kind, jt, m, got, want)
					}
				}
			}
		})
	}
}

// runJoinErr runs a join into memory.
func runJoinErr(opt join.Options) (*join.Report, []byte, error) {
	var buf bytes.Buffer
	rep, err := Run(context.Background(), opt, NewCSV(&buf))
	return rep, buf.Bytes(), err
}

// joinCounts is what a join's report counted of its rows.
func joinCounts(rep *join.Report) string {
	return fmt.Sprintf("keys %d distinct %d null %d unmatchable %d; input %d null %d unmatchable %d; shuffled %d; join %d; false positives %d; bad %d %q; filter %s %s",
		rep.KeysRecords, rep.KeysDistinct, rep.Keys.KeysNull, rep.Keys.KeysUnmatchable, rep.InputRecords, rep.Keys.InputNull, rep.Keys.InputUnmatchable,
		rep.ShuffleRecords, rep.JoinRows, rep.FalsePositiveRecords, rep.BadRows, rep.BadRowExamples, rep.Filter.Kind, rep.Filter.Params)
}
