package local

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// typedJoin is the model of every join type over the tables' models (SQL's
// semantics: NULL never matches; duplicates on both sides; semi writes a
// large row once; right and full write the key into the large side's join
// columns of an unmatched key row, as USING does), rows as parseOutput
// gives them.
func typedJoin(keys, input tableData, kc, jc []int, jt join.JoinType) []string {
	keyOf := func(row []*string, cols []int) (string, bool) {
		var parts []string
		for _, c := range cols {
			if row[c] == nil {
				return "", false
			}
			parts = append(parts, *row[c])
		}
		return strings.Join(parts, "\x00"), true
	}
	rest := func(row []*string) []string {
		var out []string
		for i, v := range row {
			if !slices.Contains(kc, i) {
				out = append(out, deref(v))
			}
		}
		return out
	}
	byKey := map[string][]int{}
	for i, row := range keys.rows {
		if k, ok := keyOf(row, kc); ok {
			byKey[k] = append(byKey[k], i)
		}
	}
	matched := make([]bool, len(keys.rows))
	var out []string
	add := func(fields []string) { out = append(out, strings.Join(fields, "\x1f")) }
	for _, row := range input.rows {
		var left []string
		for _, v := range row {
			left = append(left, deref(v))
		}
		var ms []int
		if k, ok := keyOf(row, jc); ok {
			ms = byKey[k]
		}
		switch {
		case jt == join.JoinSemi:
			if len(ms) > 0 {
				add(left)
			}
		case jt == join.JoinAnti:
			if len(ms) == 0 {
				add(left)
			}
		default:
			for _, m := range ms {
				add(append(slices.Clone(left), rest(keys.rows[m])...))
				matched[m] = true
			}
			if len(ms) == 0 && jt.KeepsUnmatchedLarge() {
				add(append(slices.Clone(left), make([]string, len(keys.names)-len(kc))...))
			}
		}
	}
	if jt.KeepsUnmatchedKeys() {
		for i, row := range keys.rows {
			if matched[i] {
				continue
			}
			large := make([]string, len(input.names))
			for j, c := range jc {
				large[c] = deref(row[kc[j]])
			}
			add(append(large, rest(row)...))
		}
	}
	slices.Sort(out)
	return out
}

// raceJoinTypes returns join.JoinTypes, or under the race detector n of
// them (RacePick, turning with off), of the two kinds in turn: those that
// write a large-side row without a match (anti, left, full; a row the
// filter rejects goes straight to the output) and those that do not
// (inner, semi, right). Two are one of each. The goroutines of a join are
// the same whatever its type; the two kinds route the rejected rows
// differently.
func raceJoinTypes(off uint64, n int) []join.JoinType {
	if !testutil.Race {
		return join.JoinTypes
	}
	var keeps, drops []join.JoinType
	for _, jt := range join.JoinTypes {
		if jt.KeepsUnmatchedLarge() {
			keeps = append(keeps, jt)
		} else {
			drops = append(drops, jt)
		}
	}
	var alternate []join.JoinType // inner, anti, semi, left, right, full
	for i := range drops {
		alternate = append(alternate, drops[i], keeps[i])
	}
	return testutil.RacePick(alternate, n, off)
}

// TestJoinTypes: every join type, on sides with duplicate keys and NULL keys
// on both, from CSV and from Parquet, with every filter kind, a composite
// key, and a memory budget small enough to spill: the model's rows; with
// Sort, the same bytes whatever the kind and the format; anti, left and
// full write the rows the filter rejects without the shuffle. Under the
// race detector, 2 filter kinds a join type (every kind in one type).
func TestJoinTypes(t *testing.T) {
	seed := testutil.Seed(t)
	keys, input := genTables(seed)
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	for ji, jt := range join.JoinTypes {
		t.Run(string(jt), func(t *testing.T) {
			want := typedJoin(keys, input, []int{0}, []int{1}, jt)
			var sorted []byte
			// Under -race, 2 of the 12 kinds a join type (the 6 types
			// take each kind once): each kind's filter probed by two
			// mappers at once.
			for _, kind := range testutil.RacePick(kinds(), 2, seed+uint64(ji)) {
				for _, format := range []string{"csv", "parquet-rg7-dict"} {
					opt := join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, FilterChoice: join.FilterChoice{Filter: kind}, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 3, TempDir: t.TempDir()}, JoinType: jt}
					if kind == filters.Fuse {
						opt.Sizing = filters.Sizing{BitsPerKey: 9}
					}
					rep, out := runJoin(t, opt)
					if got := parseOutput(t, out); !slices.Equal(got, want) {
						t.Fatalf("%s, %s: %d rows, the model's %d; %s", kind, format, len(got), len(want), testutil.FirstDiff(got, want))
					}
					if rep.JoinRows != int64(len(want)) {
						t.Errorf("%s, %s: the report says %d rows, %d written", kind, format, rep.JoinRows, len(want))
					}
					if sorted == nil {
						sorted = out
					} else if !bytes.Equal(out, sorted) {
						t.Errorf("%s, %s: sorted output differs from the first kind's", kind, format)
					}
					if jt.KeepsUnmatchedLarge() && kind != filters.None && rep.BypassedRecords < rep.FilteredOutRecords {
						t.Errorf("%s, %s: %d rows bypassed the shuffle, %d filtered out", kind, format, rep.BypassedRecords, rep.FilteredOutRecords)
					}
				}
			}
			// Spilling: the smallest budget, unsorted and sorted.
			for _, sort := range []bool{false, true} {
				opt := join.Options{
					Sides:        join.Sides{Keys: kf["csv"], Input: inf["csv"]},
					Keying:       join.Keying{KeyCol: "K", JoinCol: "K"},
					FilterChoice: join.FilterChoice{Filter: filters.None},
					Output:       join.Output{Sort: sort},
					Resources:    join.Resources{Mappers: 2, Reducers: 2, MemBudget: shuffle.MinBudget(2, 2), TempDir: t.TempDir()},
					JoinType:     jt,
				}
				_, out := runJoin(t, opt)
				if got := parseOutput(t, out); !slices.Equal(got, want) {
					t.Fatalf("spilling, sort %v: %s", sort, testutil.FirstDiff(got, want))
				}
			}
			// A composite key of two columns.
			want2 := typedJoin(keys, input, []int{0, 1}, []int{1, 2}, jt)
			for _, format := range testutil.RacePick([]string{"csv", "parquet-plain"}, 1, seed+uint64(ji)) { // under -race, one a type
				_, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format]}, Keying: join.Keying{KeyCol: "K,G", JoinCol: "K,G"}, FilterChoice: join.FilterChoice{Filter: filters.Bloom}, JoinType: jt})
				if got := parseOutput(t, out); !slices.Equal(got, want2) {
					t.Fatalf("composite, %s: %s", format, testutil.FirstDiff(got, want2))
				}
			}
		})
	}
}

// TestJoinTypeRefusals: an unknown type, and the combinations that cannot
// hold their promise, are refused by name.
func TestJoinTypeRefusals(t *testing.T) {
	keys, input := genTables(2)
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	for _, c := range []struct {
		opt  join.Options
		want string
	}{
		{join.Options{JoinType: "outer"}, "JoinType outer: want inner, semi, anti, left, right or full"},
		// The option to change is named: Skew (--skew), whose value does
		// not fit the join type.
		{join.Options{JoinType: join.JoinRight, Skew: join.SkewAuto}, "Skew auto: copies a hot key's rows to several partitions, and a right join"},
		{join.Options{JoinType: join.JoinFull, Skew: join.SkewAuto}, "Skew auto: copies a hot key's rows to several partitions, and a full join"},
	} {
		c.opt.Keys, c.opt.Input, c.opt.KeyCol, c.opt.JoinCol = kf["csv"], inf["csv"], "K", "K"
		_, err := Run(t.Context(), c.opt, NewCSV(&bytes.Buffer{}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt.JoinType, err, c.want)
		}
	}
}

// TestColumns: Columns writes the columns asked, in their order, from
// either side, for every join type (semi and anti: the large side's), from
// CSV and Parquet, sorted and not; the header names them; an absent or
// ambiguous name is refused before any work.
func TestColumns(t *testing.T) {
	keys, input := genTables(9)
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	// The model's output columns: ID K G S | G P W; asked: S, then P, then ID.
	type asked struct {
		cols []string
		pick []int
	}
	for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 2) {
		// G is both sides' name: G the large side's, G_keys the key side's
		// (join.KeyOutputNames).
		sets := []asked{{[]string{"S", "P", "ID"}, []int{3, 5, 0}}, {[]string{"W", "K"}, []int{6, 1}},
			{[]string{"W", "P"}, []int{6, 5}}, {[]string{"P"}, []int{5}}, // key-side columns only
			{[]string{"G_keys", "G"}, []int{4, 2}}, {[]string{"G_keys"}, []int{4}}}
		if jt.LargeOnly() {
			sets = []asked{{[]string{"S", "ID"}, []int{3, 0}}, {[]string{"K"}, []int{1}}, {[]string{"G"}, []int{2}}}
		}
		for _, set := range sets {
			testColumns(t, kf, inf, keys, input, jt, set.cols, set.pick)
		}
	}
	for _, c := range []struct {
		cols []string
		want string
	}{{[]string{"Q"}, `no column "Q"`}, {[]string{"ID", "ID"}, "asked twice"}, {[]string{"G_keys_keys"}, `no column "G_keys_keys"`}} {
		_, err := Run(t.Context(), join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf["csv"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Columns: c.cols}}, NewCSV(&bytes.Buffer{}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.cols, err, c.want)
		}
	}
}

// testColumns checks one set of columns asked of one join type against
// the model's rows cut to pick.
func testColumns(t *testing.T, kf, inf map[string]string, keys, input tableData, jt join.JoinType, cols []string, pick []int) {
	t.Helper()
	var want []string
	for _, r := range typedJoin(keys, input, []int{0}, []int{1}, jt) {
		f := strings.Split(r, "\x1f")
		var p []string
		for _, i := range pick {
			p = append(p, f[i])
		}
		want = append(want, strings.Join(p, "\x1f"))
	}
	slices.Sort(want)
	for _, format := range []string{"csv", "parquet-plain"} {
		for _, sort := range []bool{false, true} {
			_, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Columns: cols, Sort: sort}, JoinType: jt})
			if !bytes.HasPrefix(out, []byte(strings.Join(cols, ",")+"\n")) {
				t.Fatalf("%s: header %q", jt, out[:min(len(out), 40)])
			}
			if got := parseOutput(t, out); !slices.Equal(got, want) {
				t.Fatalf("%s, %s, sort %v: %s", jt, format, sort, testutil.FirstDiff(got, want))
			}
		}
	}
}
