package textfmt

import (
	"bytes"
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	for got, want := range map[string]string{
		Num(math.NaN(), "%.2f"): "-", Num(1.234, "%.2f"): "1.23", OrDash(""): "-", OrDash("a"): "a", K(0): "-", K(3): "3",
		MDCell("a|b\nc"): `a\|b c`, Bytes(12): "12 bytes", Bytes(1536): "1.50 KiB", Bytes(3 << 30): "3.00 GiB",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
	var b bytes.Buffer
	tb := Table{Markdown: true}
	tb.Header("a", "b")
	tb.Row("x|y", "1")
	tb.Flush(&b)
	if b.String() != "| a | b |\n|---|---:|\n| x\\|y | 1 |\n" {
		t.Errorf("markdown:\n%s", b.String())
	}
	b.Reset()
	tb.Markdown = false
	tb.Header("a", "bb")
	tb.Row("xxx", "1")
	tb.Flush(&b)
	if b.String() != "a    bb  \nxxx  1   \n" {
		t.Errorf("text: %q", b.String())
	}
	tb.Flush(&b) // emptied: nothing more
	if b.Len() != len("a    bb  \nxxx  1   \n") {
		t.Error("Flush did not empty the table")
	}
}
