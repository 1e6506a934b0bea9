package key

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/option"
)

// TestParseJoin: the rules every executor reads its key options by, and
// the option each refusal names.
func TestParseJoin(t *testing.T) {
	for _, c := range []struct {
		keyCol, joinCol string
		kt              Type
		want            Join
		err             string // the option.Error's text
	}{
		{"PATENT", "CITED", "", Join{[]string{"PATENT"}, []string{"CITED"}, []Type{Auto}}, ""},
		{"PATENT", "CITED", "int", Join{[]string{"PATENT"}, []string{"CITED"}, []Type{Int}}, ""},
		{"A,B", "", "auto,string", Join{[]string{"A", "B"}, []string{"A", "B"}, []Type{Auto, String}}, ""},
		{"A,B", "", "string", Join{[]string{"A", "B"}, []string{"A", "B"}, []Type{String, String}}, ""},
		{`"x,1",y`, "p,q", "int,string", Join{[]string{"x,1", "y"}, []string{"p", "q"}, []Type{Int, String}}, ""},
		{"", "", "", Join{}, `key: KeyCol : column list "": empty`},
		{"A,A", "", "", Join{}, `key: KeyCol A,A: column list "A,A": A twice`},
		{"A,B", "C", "", Join{}, "key: JoinCol C: 1 columns for the 2 key columns A,B (the same count, matched in order)"},
		{"A", "\"C", "", Join{}, "key: JoinCol \"C: column list \"\\\"C\": "},
		{"A,B,C", "", "int,string", Join{}, `key: KeyType "int,string": 2 types for 3 key columns (one type applies to all)`},
		{"A", "", "float", Join{}, `key: KeyType "float": want auto, int or string`},
	} {
		got, err := ParseJoin(c.keyCol, c.joinCol, c.kt)
		var oe *option.Error
		switch {
		case c.err == "" && err != nil:
			t.Errorf("ParseJoin(%q, %q, %q): %v", c.keyCol, c.joinCol, c.kt, err)
		case c.err != "" && (err == nil || !errors.As(err, &oe) || !errors.Is(err, ErrKey) || len(err.Error()) < len(c.err) || err.Error()[:len(c.err)] != c.err):
			t.Errorf("ParseJoin(%q, %q, %q) = %v, want %q", c.keyCol, c.joinCol, c.kt, err, c.err)
		case c.err == "" && fmt.Sprint(got) != fmt.Sprint(c.want):
			t.Errorf("ParseJoin(%q, %q, %q) = %v, want %v", c.keyCol, c.joinCol, c.kt, got, c.want)
		}
		if c.err != "" {
			continue
		}
		// The canonical spelling reads back the same.
		again, err := ParseJoin(got.KeyCol(), got.JoinCol(), got.Type())
		if err != nil || fmt.Sprint(again) != fmt.Sprint(got) {
			t.Errorf("%v spelled %q %q %q reads back as %v, %v", got, got.KeyCol(), got.JoinCol(), got.Type(), again, err)
		}
	}
}

// TestCanonicalInt: the one spelling of each integer from 0 to int64's
// greatest, and every other spelling refused.
func TestCanonicalInt(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"0", true}, {"7", true}, {"4000000", true}, {"9223372036854775807", true},
		{"", false}, {"007", false}, {"00", false}, {"-1", false}, {"+1", false}, {" 1", false}, {"1 ", false},
		{"9223372036854775808", false}, {"10000000000000000000", false}, {"1e3", false}, {"tt0000019", false}, {"1.0", false},
	} {
		if got := CanonicalInt([]byte(c.s)); got != c.want {
			t.Errorf("CanonicalInt(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	// Property: canonical exactly when strconv's spelling of the parsed
	// value is the text itself (and it is not negative).
	for _, s := range []string{"1", "12", "012", "99999999999999999999", "123456789012345678", "0x1F"} {
		v, err := strconv.ParseInt(s, 10, 64)
		want := err == nil && v >= 0 && strconv.FormatInt(v, 10) == s
		if got := CanonicalInt([]byte(s)); got != want {
			t.Errorf("CanonicalInt(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzCanonicalInt: canonical exactly when the text is strconv's spelling
// of a non-negative int64.
func FuzzCanonicalInt(f *testing.F) {
	for _, s := range []string{"0", "00", "42", "-1", "9223372036854775807", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := strconv.ParseInt(s, 10, 64)
		want := err == nil && v >= 0 && strconv.FormatInt(v, 10) == s
		if got := CanonicalInt([]byte(s)); got != want {
			t.Errorf("CanonicalInt(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestSpecs: the columns found in both headers, and a missing one named
// with its option, its file and the file's columns; option.Within makes
// the error a package's own and keeps ErrKey.
func TestSpecs(t *testing.T) {
	j, err := ParseJoin("B,A", "y,x", "int,string")
	if err != nil {
		t.Fatal(err)
	}
	ks, js, err := j.Specs("k.csv", []string{"A", "B"}, "i.csv", []string{"x", "z", "y"})
	if err != nil || fmt.Sprint(ks.Cols, js.Cols) != "[1 0] [2 0]" || !ks.Composite() {
		t.Fatalf("Specs = %v %v, %v", ks, js, err)
	}
	_, _, err = j.Specs("k.csv", []string{"A", "B"}, "i.csv", []string{"x", "z"})
	want := `key: JoinCol y: i.csv has no column "y" (columns: "x", "z")`
	if err == nil || err.Error() != want {
		t.Fatalf("a missing column: %v, want %q", err, want)
	}
	sentinel := errors.New("pkg: options")
	w := option.Within(err, "pkg", sentinel)
	if !errors.Is(w, sentinel) || !errors.Is(w, ErrKey) || w.Error() != `pkg: JoinCol y: i.csv has no column "y" (columns: "x", "z")` {
		t.Fatalf("Within: %v", w)
	}
	if option.Within(nil, "pkg", sentinel) != nil {
		t.Fatal("Within(nil) is not nil")
	}
	if _, err := Column("ClassCol", "a.csv", []string{"\x00\n"}, "C"); err == nil || err.Error() != `key: ClassCol C: a.csv has no column "C" (columns: "\x00\n")` {
		t.Fatalf("a header with control bytes: %v", err)
	}
}

// TestIntKey: integer keys equal as numbers have the same bytes, and byte
// order is numeric order; what is no integer is an error.
func TestIntKey(t *testing.T) {
	var prev []byte
	for _, v := range []int64{-1 << 63, -1000, -1, 0, 1, 42, 1000, 1<<63 - 1} {
		b, err := Of(Int, make([]byte, 8), []byte(strconv.FormatInt(v, 10)))
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil && bytes.Compare(prev, b) >= 0 {
			t.Fatalf("%d sorts before the key before it", v)
		}
		prev = bytes.Clone(b)
	}
	a, _ := Of(Int, make([]byte, 8), []byte("0042"))
	b, _ := Of(Int, make([]byte, 8), []byte("42"))
	if !bytes.Equal(a, b) {
		t.Fatal(`"0042" and "42" differ`)
	}
	for _, bad := range []string{"", "4 2", "x", "9223372036854775808", "1.5"} {
		if _, err := Of(Int, make([]byte, 8), []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if s, _ := Of(String, nil, []byte("0042")); string(s) != "0042" {
		t.Fatal("a string key is not its bytes")
	}
}

// TestAppendFormat: a composite key's bytes read back (Format) as its
// fields; an empty component is refused naming its column.
func TestAppendFormat(t *testing.T) {
	j, _ := ParseJoin("n,s", "", "int,string")
	ks, _, err := j.Specs("k", []string{"s", "n"}, "i", []string{"n", "s"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := ks.Append(nil, [][]byte{[]byte("a,\"b"), []byte("007")})
	if err != nil || ks.Format(k) != `7,"a,""b"` {
		t.Fatalf("Append: %q, %v; Format %s", k, err, ks.Format(k))
	}
	if _, err := ks.Append(nil, [][]byte{nil, []byte("1")}); !errors.Is(err, ErrEmptyComponent) || err.Error()[:2] != "s:" {
		t.Fatalf("an empty component: %v", err)
	}
}

// FuzzParseJoin: any options give a Join whose canonical spelling reads
// back the same, or an option.Error wrapping ErrKey; never a panic.
func FuzzParseJoin(f *testing.F) {
	for _, s := range []string{"A", "A,B", `"a,b",c`, "", `"`, "a\nb"} {
		f.Add(s, s, "int")
	}
	f.Fuzz(func(t *testing.T, keyCol, joinCol, kt string) {
		j, err := ParseJoin(keyCol, joinCol, Type(kt))
		if err != nil {
			var oe *option.Error
			if !errors.As(err, &oe) || !errors.Is(err, ErrKey) {
				t.Fatalf("%v is not an option.Error wrapping ErrKey", err)
			}
			return
		}
		again, err := ParseJoin(j.KeyCol(), j.JoinCol(), j.Type())
		if err != nil || fmt.Sprint(again) != fmt.Sprint(j) {
			t.Fatalf("%v reads back as %v, %v", j, again, err)
		}
	})
}

// FuzzOf: an integer key never panics, and any int64 written in decimal
// (with leading zeros or a sign) gives the bytes of its value.
func FuzzOf(f *testing.F) {
	f.Add([]byte("123"), int64(5))
	f.Add([]byte("-0"), int64(-1<<63))
	f.Fuzz(func(t *testing.T, field []byte, v int64) {
		Of(Int, make([]byte, 8), field)
		a, err := Of(Int, make([]byte, 8), []byte(strconv.FormatInt(v, 10)))
		if err != nil {
			t.Fatal(err)
		}
		s := strconv.FormatInt(v, 10)
		padded := "000" + s
		if v < 0 {
			padded = "-000" + s[1:]
		}
		b, err := Of(Int, make([]byte, 8), []byte(padded))
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("%d and %q: %x, %x (%v)", v, padded, a, b, err)
		}
	})
}
