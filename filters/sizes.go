package filters

import (
	"fmt"
	"io"
)

// SizeRow is one kind sized for a key count (join filter size): its
// parameters, memory and formula rate, or why it cannot be so sized.
type SizeRow struct {
	Kind       Kind    `json:"kind"`
	Params     string  `json:"params"` // spelled (Params.String)
	Shape      string  `json:"shape"`
	BitsPerKey float64 `json:"bits_per_key"`
	Bytes      uint64  `json:"bytes"`
	FPP        float64 `json:"fpp_formula"`
	Deletes    bool    `json:"deletes"`
	Grows      bool    `json:"grows"`
	Err        string  `json:"error,omitempty"`
}

// SizeAll sizes each of kinds for n keys by s (Spec.Size; nothing is
// built): a row each, a refusal's error spelled by errText (its reader's
// words: a command line's flags). O(kinds) sizings.
func SizeAll(n uint64, s Sizing, kinds []Kind, errText func(error) string) []SizeRow {
	var rows []SizeRow
	for _, k := range kinds {
		sp, err := Lookup(string(k))
		if err != nil {
			rows = append(rows, SizeRow{Kind: k, Err: errText(err)})
			continue
		}
		row := SizeRow{Kind: k, Deletes: sp.Deletes, Grows: sp.Grows}
		if p, err := sp.Size(n, s); err != nil {
			row.Err = errText(err)
		} else {
			mem := p.Summary().MemoryBits
			row.Params, row.Shape = sp.Spell(p), sp.Describe(p)
			row.BitsPerKey, row.Bytes, row.FPP = float64(mem)/float64(n), (mem+7)/8, sp.FPP(p, n)
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteSizes writes rows (SizeAll's for n keys by s) as a Markdown table
// under a line saying the sizing, each kind's Note beside it.
func WriteSizes(w io.Writer, n uint64, s Sizing, rows []SizeRow) {
	how := fmt.Sprintf("%g bits per key", s.BitsPerKey)
	switch {
	case s.Budget != 0:
		how = fmt.Sprintf("the most memory within %d bytes", s.Budget)
	case s.FPP != 0:
		how = fmt.Sprintf("a formula FP of at most %g", s.FPP)
	case s.BitsPerKey == 0:
		how = fmt.Sprintf("%d bits per key (the default)", DefaultBitsPerKey)
	}
	yesNo := map[bool]string{true: "yes", false: "no"}
	fmt.Fprintf(w, "Filters for %d keys, sized for %s:\n\n", n, how)
	fmt.Fprintln(w, "| kind | bits per key | parameters | bytes | formula FP | deletes | note |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---|---|")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(w, "| %s | | | | | %s | cannot: %s |\n", r.Kind, yesNo[r.Deletes], r.Err)
			continue
		}
		note := ""
		if sp, err := Lookup(string(r.Kind)); err == nil {
			note = sp.Note
		}
		fmt.Fprintf(w, "| %s | %.1f | %s | %d | %.3g | %s | %s |\n", r.Kind, r.BitsPerKey, r.Shape, r.Bytes, r.FPP, yesNo[r.Deletes], note)
	}
}
