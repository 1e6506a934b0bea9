// Package nullcases is the differential test of NULL and empty keys
// (docs/types.md, "NULL and empty"): small sides whose keys are empty
// strings, NULLs and values, each written as CSV, Parquet, an Arrow file
// and an Arrow stream (columnartest's writers), joined by every engine
// (join/local, join/stream, beam) with every join type and compared with
// DuckDB's answer on the same files, kept in testdata/nulls (written by
// bench/nulls-diff.sh, which needs DuckDB; the tests need only the files).
//
// A golden depends on the data, on whether each side is text (CSV) or a
// table (Parquet and both Arrow forms), and on the join type, never on the
// key type given or the filter: the tests run every one against the same
// golden.
package nullcases

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
)

// Side is one side's columns and rows; a nil field is NULL.
type Side struct {
	Names []string
	Types []arrow.DataType
	Rows  [][]*string
}

// Data is one case's two sides, key columns and the key types to try.
type Data struct {
	Name            string
	Keys, Input     Side
	KeyCol, JoinCol string
	KeyTypes        []string
}

func s(v string) *string { return &v }

var null *string

// All are the cases: issue 41's (an empty string key of a table against an
// empty string, NULLs, an empty CSV field quoted or not), for a string
// key, an integer key and a composite key with an empty or NULL component;
// every data set has a key twice on both sides (duplicates: every pair),
// and keys that meet nothing on either side.
var All = []Data{
	{
		Name: "string",
		Keys: Side{[]string{"K", "P"}, []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String}, [][]*string{
			{s(""), s("e")}, {s("a"), s("x")}, {null, s("n")}, {s("b"), s("y")}, {s(""), s("f")}, {s("a"), s("x2")},
		}},
		Input: Side{[]string{"I", "J"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, [][]*string{
			{s("1"), s("")}, {s("2"), s("a")}, {s("3"), null}, {s("4"), s("c")}, {s("5"), s("b")}, {s("6"), s("")}, {s("7"), s("a")},
		}},
		KeyCol: "K", JoinCol: "J", KeyTypes: []string{"auto", "string"},
	},
	{
		Name: "int",
		Keys: Side{[]string{"K", "P"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, [][]*string{
			{null, s("n")}, {s("7"), s("x")}, {s("8"), s("y")}, {null, s("m")}, {s("7"), s("x2")}, {s("10"), s("z")},
		}},
		Input: Side{[]string{"I", "J"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}, [][]*string{
			{s("1"), null}, {s("2"), s("7")}, {s("3"), s("9")}, {s("4"), null}, {s("5"), s("8")}, {s("6"), s("7")},
		}},
		KeyCol: "K", JoinCol: "J", KeyTypes: []string{"auto", "int"},
	},
	{
		Name: "composite",
		Keys: Side{[]string{"A", "B", "P"}, []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, [][]*string{
			{s(""), s("1"), s("p1")}, {s("a"), null, s("p2")}, {s("a"), s("2"), s("p3")}, {null, s("3"), s("p4")}, {s("b"), s("4"), s("p5")}, {s("b"), s("4"), s("p6")},
		}},
		Input: Side{[]string{"X", "Y", "I"}, []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}, [][]*string{
			{s(""), s("1"), s("1")}, {s("a"), s("2"), s("2")}, {s("a"), null, s("3")}, {null, s("3"), s("4")}, {s(""), s("3"), s("5")}, {s("b"), s("4"), s("6")}, {s("b"), s("4"), s("7")},
		}},
		KeyCol: "A,B", JoinCol: "X,Y", KeyTypes: []string{"auto", "string,int"},
	},
}

// Formats are the forms a side is written in; Class says which golden
// applies: "csv" or "table" (JSON lines are a table: null is NULL, "" a
// value).
var Formats = []string{"csv", "parquet", "arrow", "arrows", "jsonl"}

// Class is a format's class: text or table.
func Class(format string) string {
	if format == "csv" {
		return "csv"
	}
	return "table"
}

// JoinTypes are the join types every case runs.
var JoinTypes = []string{"inner", "semi", "anti", "left", "right", "full"}

// Case is one join to run: a data set's sides in two formats, a key type
// and a join type, and the golden it must equal.
type Case struct {
	Data                    string
	KeysFormat, InputFormat string
	Keys, Input             string // paths
	Events                  string // the key side as key events (join/stream): a CSV of "+row"
	KeyCol, JoinCol         string
	KeyType, JoinType       string
	Golden                  string // a file name in testdata/nulls
}

// Name names the case in test output.
func (c Case) Name() string {
	return fmt.Sprintf("%s/%s-%s/%s/%s", c.Data, c.KeysFormat, c.InputFormat, strings.ReplaceAll(c.KeyType, ",", "+"), c.JoinType)
}

// GoldenName is the golden file of a data set, the sides' classes and a
// join type.
func GoldenName(data, keysClass, inputClass, joinType string) string {
	return fmt.Sprintf("%s.%s-%s.%s.csv", data, keysClass, inputClass, joinType)
}

// Write writes every data set's sides into dir in every format (NAME.keys.csv,
// NAME.keys.parquet, ...; NAME.events.csv) and returns every case: each
// pair of formats, key type and join type.
func Write(dir string) ([]Case, error) {
	var cases []Case
	for _, d := range All {
		paths := map[string]map[string]string{}
		for _, side := range []struct {
			name string
			s    Side
		}{{"keys", d.Keys}, {"input", d.Input}} {
			base := d.Name + "." + side.name
			csvPath := filepath.Join(dir, base+".csv")
			if err := os.WriteFile(csvPath, CSV(side.s, ""), 0o644); err != nil {
				return nil, err
			}
			rec, err := columnartest.NewRecord(side.s.Names, side.s.Types, side.s.Rows)
			if err != nil {
				return nil, err
			}
			fs, err := columnartest.WriteFiles(dir, base, rec, 2, false)
			rec.Release()
			if err != nil {
				return nil, err
			}
			jsonlPath := filepath.Join(dir, base+".jsonl")
			if err := os.WriteFile(jsonlPath, JSONL(side.s), 0o644); err != nil {
				return nil, err
			}
			paths[side.name] = map[string]string{"csv": csvPath, "parquet": fs.Parquet, "arrow": fs.ArrowFile, "arrows": fs.ArrowStream, "jsonl": jsonlPath}
		}
		events := filepath.Join(dir, d.Name+".events.csv")
		if err := os.WriteFile(events, CSV(d.Keys, "+"), 0o644); err != nil {
			return nil, err
		}
		for _, kf := range Formats {
			for _, inf := range Formats {
				for _, kt := range d.KeyTypes {
					for _, jt := range JoinTypes {
						cases = append(cases, Case{
							Data: d.Name, KeysFormat: kf, InputFormat: inf,
							Keys: paths["keys"][kf], Input: paths["input"][inf], Events: events,
							KeyCol: d.KeyCol, JoinCol: d.JoinCol, KeyType: kt, JoinType: jt,
							Golden: GoldenName(d.Name, Class(kf), Class(inf), jt),
						})
					}
				}
			}
		}
	}
	return cases, nil
}

// CSV writes a side as CSV with its header, each row after prefix (key
// events: "+"): a value as it is, an empty string quoted (""), a NULL
// empty, but every other NULL of a side quoted too, so that both spellings
// of an empty CSV field are in every case.
func CSV(s Side, prefix string) []byte {
	var b bytes.Buffer
	b.WriteString(strings.Join(s.Names, ",") + "\n")
	nulls := 0
	for _, row := range s.Rows {
		b.WriteString(prefix)
		for j, v := range row {
			if j > 0 {
				b.WriteByte(',')
			}
			switch {
			case v == nil:
				if nulls%2 == 1 {
					b.WriteString(`""`)
				}
				nulls++
			case *v == "":
				b.WriteString(`""`)
			default:
				b.WriteString(*v)
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// JSONL writes a side as JSON lines, an object a row: a value as a JSON
// string or, in an integer column, a number; a NULL as null, but every
// other NULL of a side as a missing key, so that both are in every case.
func JSONL(s Side) []byte {
	var b bytes.Buffer
	nulls := 0
	for _, row := range s.Rows {
		b.WriteByte('{')
		n := 0
		for j, v := range row {
			if v == nil {
				nulls++
				if nulls%2 == 0 {
					continue
				}
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			name, _ := json.Marshal(s.Names[j])
			b.Write(name)
			b.WriteString(": ")
			switch {
			case v == nil:
				b.WriteString("null")
			case s.Types[j].ID() == arrow.STRING:
				text, _ := json.Marshal(*v)
				b.Write(text)
			default:
				b.WriteString(*v)
			}
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// Equal compares an output with its golden as sets of records (both read
// with encoding/csv, headers dropped, sorted): an empty field and "" are
// one (an empty string reaches a CSV output as an empty field:
// docs/types.md, "Limits"). The error lists both.
func Equal(golden, got []byte) error {
	g, err := records(golden)
	if err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	o, err := records(got)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if !slices.Equal(g, o) {
		return fmt.Errorf("rows differ:\n got  %q\n want %q", o, g)
	}
	return nil
}

func records(b []byte) ([]string, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	all, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(all) > 0 {
		all = all[1:]
	}
	out := make([]string, len(all))
	for i, rec := range all {
		out[i] = strings.Join(rec, "\x1f")
	}
	slices.Sort(out)
	return out, nil
}

// Golden reads a golden file of dir (testdata/nulls).
func Golden(dir, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, name))
}
