package bank

import (
	"fmt"
	"github.com/acbfjoin/acbfjoin/filters"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/internal/textfmt"
)

// WriteMarkdown writes the validation of bank b as a Markdown table with
// its legend, as join bank validate prints it: the seed's columns (class,
// FP) with what it lacked (n, m, k, the formula, z against it and against
// the fill, false negatives), and the memory against the optimal m_i =
// -n_i ln p / ln^2 2 of a target p.
func (v *Validation) WriteMarkdown(w io.Writer, b *Bank) {
	target := "by bits per key"
	if b.Sizing.FPP > 0 {
		target = fmt.Sprintf("%g", b.Sizing.FPP)
	}
	fmt.Fprintf(w, "bank of %s filters over %s (%s), target p %s\n\n", b.Kind, b.ClassCol, b.Classing, target)
	fmt.Fprintln(w, "| class | n | m (bits) | k | formula FP | measured FP | false positives / trials | z | fill FP | z (fill) | FN |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	// A kind without a rate of its own contents (fuse, blocked, scalable)
	// has "-" there, not 0.
	sp, _ := filters.Lookup(string(b.Kind))
	hasFill := sp != nil && sp.HasFillFPP()
	for _, c := range v.Classes {
		z := fmt.Sprintf("%+.2f", c.Z)
		if !c.Spread {
			z += "*"
		}
		fill, zFill := "-", "-"
		if hasFill {
			fill, zFill = textfmt.Num(c.Fill, "%.5f"), textfmt.Num(c.ZFill, "%+.2f")
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %.5f | %.5f | %d / %d | %s | %s | %s | %d |\n",
			textfmt.MDCell(c.Label), c.N, c.Bits, textfmt.K(c.K), c.Formula, c.Measured, c.Hits, c.Trials, z, fill, zFill, c.FN)
	}
	mem := b.MemoryBytes()
	fmt.Fprintf(w, "\nz: (measured - formula) / sd, sd binomial plus the spread of a filter's fill over random keys")
	if len(v.Classes) > 0 && !v.Classes[0].Spread {
		fmt.Fprintf(w, "; * this kind has no closed form for that spread: binomial sd only")
	}
	fmt.Fprintf(w, ". z (fill): measured against this filter's own rate from its contents, binomial.\n")
	if p := b.Sizing.FPP; p > 0 && len(b.Classes) > 0 {
		var opt float64
		for _, c := range b.Classes {
			opt += -float64(c.Built.N) * math.Log(p) / (math.Ln2 * math.Ln2)
		}
		fmt.Fprintf(w, "filters: %s; the optimal m_i = -n_i ln p / ln^2 2 sum to %s: %.2f%% more\n", textfmt.Bytes(mem), textfmt.Bytes(uint64(opt/8)), 100*(float64(mem)*8/opt-1))
	} else {
		fmt.Fprintf(w, "filters: %s\n", textfmt.Bytes(mem))
	}
}

// MemoryBytes is the memory of the bank's filters (Bytes' first value).
func (b *Bank) MemoryBytes() uint64 {
	m, _ := b.Bytes()
	return m
}

// WriteClasses writes the bank's classes as a Markdown table: each one's
// keys, bits, k and formula false positive rate.
func (b *Bank) WriteClasses(w io.Writer) {
	fmt.Fprintln(w, "| class | n | m (bits) | k | formula FP |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, c := range b.Classes {
		fmt.Fprintf(w, "| %s | %d | %d | %s | %.5g |\n", textfmt.MDCell(c.Label), c.Built.N, c.Built.MemoryBits, textfmt.K(c.Built.K), c.Built.FPP)
	}
}

// DefaultFPP is the target rate of a bank's filters when its sizing names
// none: the seed's p.
const DefaultFPP = 0.01

// Err is the validation's verdict: an error naming the first class whose
// filter misses keys it was built from (nil for a nil Validation, or one
// without false negatives). False positives are measured, not judged.
func (v *Validation) Err() error {
	if v == nil {
		return nil
	}
	for _, c := range v.Classes {
		if c.FN > 0 {
			return fmt.Errorf("%w: class %q: %d false negatives: the filter misses keys it was built from", ErrBank, c.Label, c.FN)
		}
	}
	return nil
}
