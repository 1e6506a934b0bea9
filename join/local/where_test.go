package local

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/where"
)

// TestWhere (issue 46): Options.Where and KeysWhere select the sides'
// rows before the join, in every join type, from CSV, Parquet and Arrow
// sides, with a one-column and a composite key, and a budget that
// spills: the output is the model's join of the sides filtered by the
// same predicates written in Go (NULL compares false), and the report
// counts the rows each dropped.
func TestWhere(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	// keys: K G P W (int64, int64, string, float64); input: ID K G S.
	num := func(v *string) (float64, bool) {
		if v == nil {
			return 0, false
		}
		f, err := strconv.ParseFloat(*v, 64)
		return f, err == nil
	}
	const keysWhere = `G != 1 and (W > -5 or P startsWith "p")`
	keysModel := func(r []*string) bool {
		g, gok := num(r[1])
		w, wok := num(r[3])
		return gok && g != 1 && (wok && w > -5 || r[2] != nil && strings.HasPrefix(*r[2], "p"))
	}
	const inputWhere = `ID % 3 != 0 and S != nil`
	inputModel := func(r []*string) bool {
		id, _ := num(r[0])
		return int64(id)%3 != 0 && r[3] != nil
	}
	filter := func(d tableData, keep func([]*string) bool) (tableData, int64) {
		out := tableData{names: d.names, types: d.types}
		for _, r := range d.rows {
			if keep(r) {
				out.rows = append(out.rows, r)
			}
		}
		return out, int64(len(d.rows) - len(out.rows))
	}
	fk, keysDropped := filter(keys, keysModel)
	fi, inputDropped := filter(input, inputModel)
	if keysDropped == 0 || inputDropped == 0 || len(fk.rows) == 0 || len(fi.rows) == 0 {
		t.Fatalf("the predicates drop %d key rows and %d input rows", keysDropped, inputDropped)
	}
	for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 2) {
		for _, keying := range []struct {
			kc, jc   []int
			col, jcl string
		}{{[]int{0}, []int{1}, "K", "K"}, {[]int{0, 1}, []int{1, 2}, "K,G", "K,G"}} {
			want := typedJoin(fk, fi, keying.kc, keying.jc, jt)
			slices.Sort(want)
			for _, format := range []string{"csv", "parquet-rg7-dict", "arrow-file"} {
				opt := join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format], Where: inputWhere, KeysWhere: keysWhere},
					Keying: join.Keying{KeyCol: keying.col, JoinCol: keying.jcl}, JoinType: jt}
				if format == "csv" {
					opt.MemBudget = 256 << 10 // the least: spills
				}
				rep, out := runJoin(t, opt)
				if got := parseOutput(t, out); !slices.Equal(got, want) {
					t.Fatalf("%s, key %s, %s: %s", jt, keying.col, format, testutil.FirstDiff(got, want))
				}
				w := rep.Where
				if w == nil || w.Input != inputWhere || w.Keys != keysWhere || w.KeysDropped != keysDropped || w.InputDropped != inputDropped ||
					rep.KeysRecords+rep.Keys.KeysNull+rep.Keys.KeysUnmatchable != int64(len(fk.rows)) || rep.InputRecords != int64(len(fi.rows)) {
					t.Fatalf("%s, %s: report %+v, keys %d, input %d; want dropped %d and %d", jt, format, w, rep.KeysRecords, rep.InputRecords, keysDropped, inputDropped)
				}
			}
		}
	}
}

// TestWhereRefused: an expression that does not compile, or names a
// column the side has not, is an option error naming the option, before
// any work; a row it cannot be evaluated on fails the run naming the file
// and line, or with SkipBadRows is a bad row.
func TestWhereRefused(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	base := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf["csv"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}
	for _, c := range []struct {
		where, keysWhere, want string
	}{
		{`Q > 1`, "", `Where Q > 1: ` + inf["csv"] + ` has no column "Q" (at character 1)`},
		{"", `K >`, `KeysWhere K >: unexpected token EOF (1:3)`},
	} {
		opt := base
		opt.Where, opt.KeysWhere = c.where, c.keysWhere
		_, _, err := runJoinErr(opt)
		if err == nil || !errors.Is(err, join.ErrOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: %v, want %q", c.where, c.keysWhere, err, c.want)
		}
	}
	// S is text: ordering it against a number is a row error.
	opt := base
	opt.Where = `S > 3`
	_, _, err := runJoinErr(opt)
	if err == nil || !errors.Is(err, where.ErrWhere) || !strings.Contains(err.Error(), "input.csv:") || !strings.Contains(err.Error(), "cannot order the text") {
		t.Errorf("S > 3: %v", err)
	}
	opt.SkipBadRows = true
	rep, _, err := runJoinErr(opt)
	if err != nil || rep.BadRows == 0 {
		t.Errorf("S > 3, skipping bad rows: %v, %d bad rows", err, rep.BadRows)
	}
	// The same from a Parquet side, whose rows the map phase tests a chunk
	// at a time (whereChunk): the row is named by its number.
	opt = base
	opt.Input, opt.Where = inf["parquet-rg7-dict"], `S > 3`
	_, _, err = runJoinErr(opt)
	if err == nil || !errors.Is(err, where.ErrWhere) || !strings.Contains(err.Error(), inf["parquet-rg7-dict"]+": row ") || !strings.Contains(err.Error(), "cannot order the text") {
		t.Errorf("S > 3 on Parquet: %v", err)
	}
	opt.SkipBadRows = true
	if rep, _, err := runJoinErr(opt); err != nil || rep.BadRows == 0 || rep.Where.InputDropped != int64(len(input.rows)) { // every S is text or NULL: a bad row, or false
		t.Errorf("S > 3 on Parquet, skipping bad rows: %v, %d bad rows, %+v", err, rep.BadRows, rep.Where)
	}
}

// TestWherePrunesRowGroups (issue 46): with a Parquet side, the row groups
// whose statistics rule the predicate out are skipped unread (the input's
// ID is 0 to 599 in row groups of 7: `ID < 100 or ID >= 500` rules out
// groups 15 to 70, 392 rows; the key side's by chance), in every join
// type, and the join is the model's, the same as with every group read
// (source.NoPrune); the report counts the groups and their rows among the drops.
func TestWherePrunesRowGroups(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	const inputWhere, keysWhere = `ID < 100 or ID >= 500`, `K < 15 or K == nil and G > 5`
	var fk, fi tableData
	fk.names, fk.types, fi.names, fi.types = keys.names, keys.types, input.names, input.types
	for _, r := range keys.rows {
		if k, err := strconv.Atoi(deref(r[0])); err == nil && k < 15 {
			fk.rows = append(fk.rows, r)
		}
	}
	for i, r := range input.rows {
		if i < 100 || i >= 500 {
			fi.rows = append(fi.rows, r)
		}
	}
	// The key side's row groups of 7 that the statistics rule out: those
	// whose least K is 15 or more (a NULL K, G <= 2: false either way).
	var keysGroups, keysRows int64
	for g := 0; g*7 < len(keys.rows); g++ {
		least := int64(1 << 62)
		rows := keys.rows[g*7 : min(g*7+7, len(keys.rows))]
		for _, r := range rows {
			if r[0] != nil {
				k, _ := strconv.ParseInt(*r[0], 10, 64)
				least = min(least, k)
			}
		}
		if least >= 15 {
			keysGroups++
			keysRows += int64(len(rows))
		}
	}
	if keysGroups == 0 || len(fk.rows) == 0 {
		t.Fatalf("the key side: %d row groups to skip, %d keys kept", keysGroups, len(fk.rows))
	}
	for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 3) {
		want := typedJoin(fk, fi, []int{0}, []int{1}, jt)
		slices.Sort(want)
		for _, off := range []bool{false, true} {
			source.NoPrune = off
			opt := join.Options{Sides: join.Sides{Keys: kf["parquet-rg7-dict"], Input: inf["parquet-rg7-dict"], Where: inputWhere, KeysWhere: keysWhere},
				Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt}
			rep, out := runJoin(t, opt)
			source.NoPrune = false
			if got := parseOutput(t, out); !slices.Equal(got, want) {
				t.Fatalf("%s, pruning off %v: %s", jt, off, testutil.FirstDiff(got, want))
			}
			w := *rep.Where
			wantW := join.WhereReport{Input: inputWhere, InputDropped: 400, InputChunksSkipped: 56, InputRowsSkipped: 392,
				Keys: keysWhere, KeysDropped: int64(len(keys.rows) - len(fk.rows)), KeysChunksSkipped: keysGroups, KeysRowsSkipped: keysRows}
			if off {
				wantW.InputChunksSkipped, wantW.InputRowsSkipped, wantW.KeysChunksSkipped, wantW.KeysRowsSkipped = 0, 0, 0, 0
			}
			if w != wantW {
				t.Fatalf("%s, pruning off %v: report %+v, want %+v", jt, off, w, wantW)
			}
		}
	}
}
