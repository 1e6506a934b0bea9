package local

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/join"
)

// numJoin is the naive reference of a join on integer keys by value: every
// pair of rows whose keys (column kc of keys, jc of input) are integers of
// the same value, whatever their spelling or width; a NULL, an empty
// field or text that is no integer meets nothing. Rows as parseOutput
// gives them (the input's fields, then the key side's but its key), sorted.
func numJoin(keys, input tableData, kc, jc int) []string {
	num := func(v *string) (string, bool) {
		if v == nil {
			return "", false
		}
		n, ok := new(big.Int).SetString(*v, 10)
		if !ok {
			return "", false
		}
		return n.String(), true
	}
	var out []string
	for _, in := range input.rows {
		a, ok := num(in[jc])
		if !ok {
			continue
		}
		for _, k := range keys.rows {
			if b, ok := num(k[kc]); !ok || a != b {
				continue
			}
			var fs []string
			for _, v := range in {
				fs = append(fs, deref(v))
			}
			for i, v := range k {
				if i != kc {
					fs = append(fs, deref(v))
				}
			}
			out = append(out, strings.Join(fs, "\x1f"))
		}
	}
	slices.Sort(out)
	return out
}

// TestUint64Widths: a uint64 key column compares by value with every
// integer width (issue 41). Against a signed column its values beyond
// int64, which the other side cannot hold, are unmatchable keys (counted,
// left out); two uint64 columns compare as decimal text, beyond int64
// too; against CSV text, which could hold such a value, meeting one is an
// error naming the file, the column, the row and --key-type string, never
// a silent miss. Each against numJoin, from Parquet and Arrow.
func TestUint64Widths(t *testing.T) {
	u64 := arrow.PrimitiveTypes.Uint64
	side := func(typ arrow.DataType, vals ...string) tableData {
		d := tableData{names: []string{"K", "V"}, types: []arrow.DataType{typ, arrow.BinaryTypes.String}}
		for i, v := range vals {
			k := sp(v)
			if v == "NULL" {
				k = nil
			}
			d.rows = append(d.rows, []*string{k, sp(fmt.Sprint("v", i))})
		}
		return d
	}
	wide := side(u64, "0", "7", "9223372036854775807", "9223372036854775808", "18446744073709551615", "NULL", "7")
	narrowU := side(u64, "0", "7", "42", "9223372036854775807", "NULL")
	i64 := side(arrow.PrimitiveTypes.Int64, "-1", "7", "9223372036854775807", "-9223372036854775808", "0", "NULL", "-7")
	i32 := side(arrow.PrimitiveTypes.Int32, "-1", "7", "2147483647", "0", "-2147483648")
	wide2 := side(u64, "18446744073709551615", "9223372036854775808", "9223372036854775809", "7", "NULL")
	text := side(arrow.BinaryTypes.String, "7", "-3", "007", "18446744073709551615", "9223372036854775808", "", "abc", "42")
	dir := t.TempDir()
	files := map[string]map[string]string{}
	for name, d := range map[string]tableData{"wide": wide, "narrowU": narrowU, "i64": i64, "i32": i32, "wide2": wide2, "text": text} {
		files[name] = sideFiles(t, dir, name, d)
	}
	data := map[string]tableData{"wide": wide, "narrowU": narrowU, "i64": i64, "i32": i32, "wide2": wide2, "text": text}
	for _, c := range []struct {
		keys, input   string
		unmatchable   [2]int64 // the key side's, the input's
		refused       string   // the file whose row is refused, if any
		typeAtRefusal string
	}{
		{keys: "wide", input: "i64", unmatchable: [2]int64{2, 0}},
		{keys: "i64", input: "wide", unmatchable: [2]int64{0, 2}},
		{keys: "wide", input: "i32", unmatchable: [2]int64{2, 0}},
		{keys: "i32", input: "wide", unmatchable: [2]int64{0, 2}},
		{keys: "wide", input: "wide2"},
		{keys: "wide2", input: "wide"},
		{keys: "narrowU", input: "text", unmatchable: [2]int64{0, 3}}, // abc and the two beyond int64
		{keys: "text", input: "narrowU", unmatchable: [2]int64{3, 0}},
		{keys: "wide", input: "text", refused: "wide"},
		{keys: "text", input: "wide", refused: "wide"},
	} {
		for _, format := range []string{"parquet-rg7-dict", "arrow-file"} {
			kf, inf := files[c.keys][format], files[c.input][format]
			if c.keys == "text" {
				kf = files["text"]["csv"]
			}
			if c.input == "text" {
				inf = files["text"]["csv"]
			}
			name := fmt.Sprintf("%s x %s (%s)", c.keys, c.input, format)
			opt := join.Options{Sides: join.Sides{Keys: kf, Input: inf}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}
			want := numJoin(data[c.keys], data[c.input], 0, 0)
			if c.refused != "" {
				_, err := Run(t.Context(), opt, NewCSV(&bytes.Buffer{}))
				if err == nil || !strings.Contains(err.Error(), files[c.refused][format]+": row ") || !strings.Contains(err.Error(), "K: 9223372036854775808 is beyond int64") || !strings.Contains(err.Error(), "--key-type string") || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "K: K:") {
					t.Errorf("%s: %v", name, err)
				}
				// The way out: the keys as decimal text; the text side's
				// canonical spellings match.
				opt.KeyType = "string"
				_, out := runJoin(t, opt)
				got := parseOutput(t, out)
				slices.Sort(got)
				// The reference without the one spelling text compares
				// apart: 007.
				strict := func(d tableData) tableData {
					e := d
					e.rows = nil
					for _, r := range d.rows {
						if r[0] != nil && *r[0] == "007" {
							r = []*string{nil, r[1]}
						}
						e.rows = append(e.rows, r)
					}
					return e
				}
				canon := numJoin(strict(data[c.keys]), strict(data[c.input]), 0, 0)
				if !slices.Equal(got, canon) {
					t.Errorf("%s as strings: %q, want %q", name, got, canon)
				}
				continue
			}
			rep, out := runJoin(t, opt)
			got := parseOutput(t, out)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s (%s): %q, want %q", name, rep.Keys.Why, got, want)
			}
			if u := [2]int64{rep.Keys.KeysUnmatchable, rep.Keys.InputUnmatchable}; u != c.unmatchable {
				t.Errorf("%s: unmatchable %v, want %v", name, u, c.unmatchable)
			}
		}
	}
}
