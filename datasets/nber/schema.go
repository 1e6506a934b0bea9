package nber

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// Type is the type of a column's values.
type Type int

const (
	Int    Type = iota // decimal integer
	Float              // decimal number
	String             // text, quoted in the files
)

func (t Type) String() string {
	switch t {
	case Int:
		return "int"
	case Float:
		return "float"
	case String:
		return "string"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Column describes one column of an NBER file.
type Column struct {
	Name string
	Type Type
	// Nullable is true when the real file leaves the field empty for some rows.
	Nullable bool
	// Doc is the NBER description.
	Doc string
}

// Schema is the header and column types of one NBER file.
type Schema struct {
	Name    string // file name without extension, as NBER ships it
	Columns []Column
}

// Index returns the position of the column called name, or -1.
func (s Schema) Index(name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Names returns the column names in order.
func (s Schema) Names() []string {
	out := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = c.Name
	}
	return out
}

// Cite is the schema of cite75_99.txt: one row per citation made by a patent
// granted 1975-1999 (16,522,438 rows), ascending by CITING.
var Cite = Schema{Name: "cite75_99", Columns: []Column{
	{Name: "CITING", Type: Int, Doc: "citing patent number"},
	{Name: "CITED", Type: Int, Doc: "cited patent number (may predate 1963, then absent from the patent file)"},
}}

// Pat is the schema of apat63_99.txt, the ASCII CSV of pat63_99: one row per
// utility patent granted 1963-1999 (2,923,922 rows). Descriptions follow the
// NBER file documentation (Hall, Jaffe and Trajtenberg 2001, NBER WP 8498).
var Pat = Schema{Name: "apat63_99", Columns: []Column{
	{Name: "PATENT", Type: Int, Doc: "patent number"},
	{Name: "GYEAR", Type: Int, Doc: "grant year"},
	{Name: "GDATE", Type: Int, Doc: "grant date, days since 1960-01-01"},
	{Name: "APPYEAR", Type: Int, Nullable: true, Doc: "application year"},
	{Name: "COUNTRY", Type: String, Doc: "country of the first inventor"},
	{Name: "POSTATE", Type: String, Nullable: true, Doc: "state of the first inventor (US only)"},
	{Name: "ASSIGNEE", Type: Int, Nullable: true, Doc: "assignee identifier"},
	{Name: "ASSCODE", Type: Int, Doc: "assignee type (1 unassigned, 2 US corp., 3 foreign corp., 4 US individual, 5 foreign individual, 6 US government, 7 foreign government)"},
	{Name: "CLAIMS", Type: Int, Nullable: true, Doc: "number of claims (1975 on)"},
	{Name: "NCLASS", Type: Int, Doc: "main US patent class"},
	{Name: "CAT", Type: Int, Doc: "technological category (1-6)"},
	{Name: "SUBCAT", Type: Int, Doc: "technological sub-category"},
	{Name: "CMADE", Type: Int, Nullable: true, Doc: "citations made (1975 on)"},
	{Name: "CRECEIVE", Type: Int, Doc: "citations received (from patents granted 1975-1999)"},
	{Name: "RATIOCIT", Type: Float, Nullable: true, Doc: "share of citations made to patents granted since 1963"},
	{Name: "GENERAL", Type: Float, Nullable: true, Doc: "generality: 1 - sum of squared class shares of citing patents"},
	{Name: "ORIGINAL", Type: Float, Nullable: true, Doc: "originality: 1 - sum of squared class shares of cited patents"},
	{Name: "FWDAPLAG", Type: Float, Nullable: true, Doc: "mean forward citation lag"},
	{Name: "BCKGTLAG", Type: Float, Nullable: true, Doc: "mean backward citation lag"},
	{Name: "SELFCTUB", Type: Float, Nullable: true, Doc: "share of self-citations made, upper bound"},
	{Name: "SELFCTLB", Type: Float, Nullable: true, Doc: "share of self-citations made, lower bound"},
	{Name: "SECDUPBD", Type: Float, Nullable: true, Doc: "share of self-citations received, upper bound"},
	{Name: "SECDLWBD", Type: Float, Nullable: true, Doc: "share of self-citations received, lower bound"},
}}

// Real file facts, from the NBER distribution (see shared/docs/acbf-paper-notes.md).
const (
	CiteRows       = 16_522_438
	PatRows        = 2_923_922
	FirstPatent    = 3_070_801 // first utility patent granted in 1963
	LastPatent     = 6_009_554 // last utility patent granted in 1999
	PatFileBytes   = 236_903_179
	PatFileSHA256  = "021a4a445368162093dd79b46088c78daf3e6f87837d106b58c542651dd9bb63"
	PaperKeySample = 65_771 // records the paper extracts from the patent file
)

// ExpectHeader reads the header of r and checks it names exactly the schema's
// columns.
func ExpectHeader(r *csvscan.Reader, s Schema) error {
	names, err := r.ReadHeader()
	if err != nil {
		return err
	}
	want := s.Names()
	if len(names) != len(want) {
		return &csvscan.ParseError{File: r.Name(), Line: 1, Msg: fmt.Sprintf("header has %d columns, want the %d of %s", len(names), len(want), s.Name)}
	}
	for i := range want {
		if names[i] != want[i] {
			return &csvscan.ParseError{File: r.Name(), Line: 1, Msg: fmt.Sprintf("header column %d is %q, want %q (%s)", i+1, names[i], want[i], s.Name)}
		}
	}
	return nil
}
