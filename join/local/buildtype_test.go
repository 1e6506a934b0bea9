package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestDeferredKeyType: a join whose build decides its inferred key type
// (deferring) writes the bytes, reports the counts, the type's reason and
// the bad rows, or fails with the message, of one whose type a pass of its
// own inferred: integer keys (NULLs, quoted keys, the key 0); a key that is
// no canonical integer first, in the middle, last; a composite key of an
// integer and a text column, and of a given type and an inferred one; bad
// rows skipped (counted once, though read twice) and not; on 1 to 3
// mappers. The deferral happened where it should.
func TestDeferredKeyType(t *testing.T) {
	off := testutil.RaceSeed(t)
	dir := t.TempDir()
	rows := 3000
	intRows := func(bad map[int]string) string {
		var b strings.Builder
		b.WriteString(`"K","PAY","T"` + "\n")
		for i := range rows {
			if s, ok := bad[i]; ok {
				b.WriteString(s + "\n")
				continue
			}
			k := fmt.Sprint(i % 700)
			switch i % 13 {
			case 0:
				k = ""
			case 1:
				k = `"` + k + `"`
			}
			fmt.Fprintf(&b, "%s,%d,\"US\"\n", k, i)
		}
		return b.String()
	}
	var input strings.Builder
	input.WriteString("ID,K,K2\n")
	for i := range 2 * rows {
		fmt.Fprintf(&input, "%d,%d,%d\n", i, i%900, i%5)
	}
	inputPath := filepath.Join(dir, "input.csv")
	if err := os.WriteFile(inputPath, []byte(input.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for ci, c := range []struct {
		name, keys, keyCol, joinCol string
		keyType                     key.Type
		skipBad, deferred           bool
	}{
		{name: "integers", keys: intRows(nil), keyCol: "K", joinCol: "K", deferred: true},
		{name: "text-first", keys: intRows(map[int]string{0: "007,1,x"}), keyCol: "K", joinCol: "K", deferred: true},
		{name: "text-middle", keys: intRows(map[int]string{rows / 2: "a7,1,x"}), keyCol: "K", joinCol: "K", deferred: true},
		{name: "text-last", keys: intRows(map[int]string{rows - 1: "-5,1,x"}), keyCol: "K", joinCol: "K", deferred: true},
		{name: "composite", keys: intRows(map[int]string{rows / 3: "12,x,y"}), keyCol: "K,PAY", joinCol: "K,K2", deferred: true},
		{name: "composite-given", keys: intRows(nil), keyCol: "K,PAY", joinCol: "K,K2", keyType: "string,auto", deferred: true},
		{name: "given", keys: intRows(nil), keyCol: "K", joinCol: "K", keyType: key.Int},
		{name: "bad-rows-skipped", keys: intRows(map[int]string{100: "1,2", rows / 2: "x9,1,x", rows - 10: `"4,5`}), keyCol: "K", joinCol: "K", skipBad: true, deferred: true},
		{name: "bad-rows", keys: intRows(map[int]string{rows / 2: "x9,1,x", rows - 10: "1,2"}), keyCol: "K", joinCol: "K", deferred: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			keys := filepath.Join(dir, c.name+".csv")
			if err := os.WriteFile(keys, []byte(c.keys), 0o644); err != nil {
				t.Fatal(err)
			}
			mapperCounts := []int{1, 2, 3}
			if testutil.Race { // one count a case, of several mappers: the deferred typing's goroutines meet there
				mapperCounts = testutil.RacePick([]int{2, 3}, 1, off+uint64(ci))
			}
			for _, mappers := range mapperCounts {
				opt := join.Options{Sides: join.Sides{Keys: keys, Input: inputPath, SkipBadRows: c.skipBad},
					Keying:    join.Keying{KeyCol: c.keyCol, JoinCol: c.joinCol, KeyType: c.keyType},
					Resources: join.Resources{Mappers: mappers, Reducers: 2}, Output: join.Output{Sort: true}}
				if d := deferredColumns(t, opt); (d > 0) != c.deferred {
					t.Fatalf("%d mappers: %d columns deferred", mappers, d)
				}
				rep, out, err := runJoinErr(opt)
				old := deferring
				deferring = func(join.Options) bool { return false }
				rep0, out0, err0 := runJoinErr(opt)
				deferring = old
				if fmt.Sprint(err) != fmt.Sprint(err0) || !bytes.Equal(out, out0) {
					t.Fatalf("%d mappers: %d bytes, error %v; inferred by a pass: %d bytes, error %v", mappers, len(out), err, len(out0), err0)
				}
				if err != nil {
					if !strings.Contains(err.Error(), c.name+".csv:") {
						t.Fatalf("%d mappers: error %v names no line", mappers, err)
					}
					continue
				}
				got := joinCounts(rep) + fmt.Sprintf("; why %q; types %v", rep.Keys.Why, rep.Settings.KeyType)
				want := joinCounts(rep0) + fmt.Sprintf("; why %q; types %v", rep0.Keys.Why, rep0.Settings.KeyType)
				if got != want {
					t.Fatalf("%d mappers: report\n%s\ninferred by a pass:\n%s", mappers, got, want)
				}
				if len(out) == 0 {
					t.Fatalf("%d mappers: no rows", mappers)
				}
			}
		})
	}
}

// deferredColumns is how many key columns the join of opt would leave to
// its build to type.
func deferredColumns(t *testing.T, opt join.Options) int {
	t.Helper()
	sink := NewCSV(io.Discard)
	x, err := prepare(context.Background(), opt, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	defer x.close()
	return len(x.pair.Deferred)
}

// TestDeferringWhen: the build decides an inferred key type only where
// nothing reads the type before or during it: an inner join without Skew
// auto, Filter auto (its sample of the large side is read during the
// build, its keys encoded by the type) or a bank.
func TestDeferringWhen(t *testing.T) {
	for _, c := range []struct {
		opt  join.Options
		want bool
	}{
		{join.Options{JoinType: join.JoinInner}, true},
		{join.Options{JoinType: join.JoinLeft}, false},
		{join.Options{JoinType: join.JoinInner, Skew: join.SkewAuto}, false},
		{join.Options{JoinType: join.JoinInner, FilterChoice: join.FilterChoice{Filter: join.FilterAuto}}, false},
		{join.Options{JoinType: join.JoinInner, BankJoin: join.BankJoin{Bank: "b"}}, false},
	} {
		if got := deferring(c.opt); got != c.want {
			t.Errorf("deferring(%+v) = %v, want %v", c.opt, got, c.want)
		}
	}
}
