// Package textfmt holds the small formatting rules the reports share: a
// number or "-", a Markdown cell, a byte count, and a table printed as
// Markdown or aligned text.
package textfmt

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Num formats v with format, or "-" for NaN (a measure a kind does not
// have).
func Num(v float64, format string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

// OrDash is s, or "-" for "".
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// K prints a count of hash functions, "-" for none (0).
func K(k int) string {
	if k == 0 {
		return "-"
	}
	return fmt.Sprint(k)
}

// MDCell escapes text for a Markdown table cell: a bar, and line breaks
// (which end a row).
func MDCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// Bytes prints a byte count in binary units ("1.50 MiB", "12 bytes").
func Bytes(b uint64) string {
	v := float64(b)
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d bytes", b)
	}
	return fmt.Sprintf("%.2f %s", v, units[i])
}

// Table collects rows and prints them as a Markdown table (the first row
// the header, numbers right-aligned but in the first column) or as text
// aligned in columns.
type Table struct {
	Markdown bool
	rows     [][]string
}

// Header starts a table with its header row.
func (t *Table) Header(cells ...string) { t.rows = [][]string{cells} }

// Row adds a row.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// Flush writes the table to w and empties it.
func (t *Table) Flush(w io.Writer) {
	defer func() { t.rows = nil }()
	if len(t.rows) == 0 {
		return
	}
	if t.Markdown {
		for i, r := range t.rows {
			cells := make([]string, len(r))
			for j, c := range r {
				cells[j] = MDCell(c)
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			if i == 0 {
				seps := make([]string, len(r))
				for j := range seps {
					seps[j] = "---:"
				}
				seps[0] = "---"
				fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
			}
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}
