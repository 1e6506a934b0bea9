package local

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestGoMemLimit(t *testing.T) {
	dir := t.TempDir()
	csv, gz, long := filepath.Join(dir, "k.csv"), filepath.Join(dir, "k.csv.gz"), filepath.Join(dir, "long.csv")
	// 100 rows of 10 bytes: the lesser of 3 times the bytes and keyRowBytes a row.
	os.WriteFile(csv, []byte(strings.Repeat("123456789\n", 100)), 0o644)
	os.WriteFile(gz, make([]byte, 1000), 0o644)
	// 2 MiB of rows of 1000 bytes: the rows from the first MiB's, each
	// under 3 times its bytes.
	os.WriteFile(long, []byte(strings.Repeat(strings.Repeat("x", 999)+"\n", 2<<10)), 0o644)
	// A file with no line end in its first MiB: 3 times its bytes.
	nolines := filepath.Join(dir, "nolines.csv")
	os.WriteFile(nolines, make([]byte, 2<<20), 0o644)
	parts := filepath.Join(dir, "parts")
	os.MkdirAll(parts, 0o755)
	for _, n := range []string{"a.csv", "b.csv"} {
		os.WriteFile(filepath.Join(parts, n), []byte(strings.Repeat("123456789\n", 100)), 0o644)
	}
	const mem = 1 << 20
	for _, c := range []struct {
		keys string
		want int64
	}{
		{csv, mem + min(3000, 101*keyRowBytes) + limitHeadroom},
		{gz, mem + 12000 + limitHeadroom},
		{nolines, max(mem+3*2<<20/2, 3*2<<20) + limitHeadroom}, // more than half the budget: not added
		{filepath.Join(dir, "none"), mem + limitHeadroom},
		{"-", mem + limitHeadroom},
		{parts, mem + 2*min(3000, 101*keyRowBytes) + limitHeadroom}, // a side of many files: their sum
	} {
		if got := GoMemLimit(mem, c.keys); got != c.want {
			t.Errorf("%s: %d, want %d", filepath.Base(c.keys), got, c.want)
		}
	}
	// The rows estimated from the head's: 2,048 rows, within 3% (the head
	// ends inside a row).
	got := GoMemLimit(mem, long) - mem - limitHeadroom
	if want := int64(2<<10) * keyRowBytes; got < want*97/100 || got > want*103/100 {
		t.Errorf("long.csv: %d, want about %d", got, want)
	}
	// A key side whose memory passes half the budget: the larger of the
	// budget with half the key side's memory and the key side's memory,
	// not their sum.
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte(strings.Repeat("123456789\n", 1<<20/10)), 0o644) // 104,857 rows, all in the head
	keyMem := int64(1<<20/10+1) * keyRowBytes
	for _, m := range []int64{keyMem / 4, keyMem / 3, keyMem, 2*keyMem - 1} {
		if got, want := GoMemLimit(m, big), max(m+keyMem/2, keyMem)+limitHeadroom; got != want {
			t.Errorf("big.csv, budget %d: %d, want %d", m, got, want)
		}
	}
	if got, want := GoMemLimit(2*keyMem, big), 2*keyMem+keyMem+limitHeadroom; got != want {
		t.Errorf("big.csv, budget %d: %d, want %d (a key side of half the budget adds up)", 2*keyMem, got, want)
	}
}

// TestSideBytes: text and packed bytes of a side's files (one, a glob, a
// folder), and not ok for a stream, a FIFO, a missing file or an object
// store's URL.
func TestSideBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.csv", 100)
	write("b.csv", 30)
	write("c.parquet", 50)
	write("d.PARQUET", 7)
	write("e.pq", 5)
	write("f.csv.gz", 9)
	write("-", 11)
	t.Chdir(dir) // "-" names standard input, not the file ./-
	fifo := filepath.Join(t.TempDir(), "f.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path         string
		text, packed int64
		ok           bool
	}{
		{a, 100, 0, true},
		{filepath.Join(dir, "*.csv"), 130, 0, true},
		{filepath.Join(dir, "*.[pP]*"), 0, 62, true},
		{filepath.Join(dir, "f.csv.gz"), 0, 9, true},
		{"-", 0, 0, false}, // standard input, even beside a file named -
		{"", 0, 0, false},
		{fifo, 0, 0, false},
		{filepath.Join(dir, "missing.csv"), 0, 0, false},
		{"s3://bucket/cite.csv", 0, 0, false},
	} {
		text, packed, ok := SideBytes(c.path, "")
		if ok != c.ok || (ok && (text != c.text || packed != c.packed)) {
			t.Errorf("SideBytes(%q) = %d, %d, %v; want %d, %d, %v", c.path, text, packed, ok, c.text, c.packed, c.ok)
		}
	}
	if SmallKeySide(1<<30, "-") {
		t.Error("SmallKeySide takes standard input for the file ./-")
	}
	// A format given by the options: a .dat file read as Parquet is packed.
	if text, packed, ok := SideBytes(filepath.Join(dir, "a.csv"), "parquet"); !ok || text != 0 || packed != 100 {
		t.Errorf("a.csv given as parquet: %d, %d, %v", text, packed, ok)
	}

}
