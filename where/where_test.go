package where

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"
)

// row makes a CSV row's fields.
func row(vals ...string) [][]byte {
	f := make([][]byte, len(vals))
	for i, v := range vals {
		f[i] = []byte(v)
	}
	return f
}

// TestMatch: the language on CSV rows (numbers as written, text, NULL),
// each case against its expected verdict.
func TestMatch(t *testing.T) {
	names := []string{"state", "delay", "code", "zip", "Mean Temp", "price"}
	for _, c := range []struct {
		src  string
		vals []string
		want bool
	}{
		{`state == "CA" and delay > 60`, []string{"CA", "75", "7", "04101", "3.5", "7.50"}, true},
		{`state == "CA" and delay > 60`, []string{"CA", "60", "7", "04101", "3.5", "7.50"}, false},
		{`delay > 60`, []string{"CA", "", "7", "", "", ""}, false}, // NULL compares false
		{`delay == nil`, []string{"CA", "", "7", "", "", ""}, true},
		{`delay != nil`, []string{"CA", "", "7", "", "", ""}, false},
		{`not (delay > 60)`, []string{"CA", "", "7", "", "", ""}, true},
		{`delay + 1 > 60`, []string{"CA", "", "7", "", "", ""}, false}, // NULL + 1 is NULL
		{`code == "7"`, []string{"CA", "1", "7", "", "", ""}, true},    // a number and text that is one
		{`code == 7`, []string{"CA", "1", "7", "", "", ""}, true},
		{`code == 7.0`, []string{"CA", "1", "7", "", "", ""}, true},
		{`zip == "04101"`, []string{"CA", "1", "7", "04101", "", ""}, true}, // 04101 is text
		{`zip == 4101`, []string{"CA", "1", "7", "04101", "", ""}, true},    // text that reads as the number
		{`zip == "4101"`, []string{"CA", "1", "7", "04101", "", ""}, false},
		{`price > 7`, []string{"CA", "1", "7", "", "", "7.50"}, true},
		{`price == 7.5`, []string{"CA", "1", "7", "", "", "7.50"}, true},
		{`price < .1`, []string{"CA", "1", "7", "", "", ".097"}, true},
		{`zip startsWith "04" and delay startsWith "7" and price endsWith "50" and len(zip) == 5`, []string{"CA", "75", "7", "04101", "", "7.50"}, true},
		{`lower(code) == "7" and upper(state) contains "C" and trim(state) == "CA"`, []string{"CA", "75", "7", "", "", ""}, true},
		{`state startsWith "C"`, []string{"", "75", "7", "", "", ""}, false}, // NULL
		{`lower(state) == nil`, []string{"", "75", "7", "", "", ""}, true},
		{`state in ["CA", "TX"]`, []string{"TX", "1", "7", "", "", ""}, true},
		{`state not in ["CA", "TX"]`, []string{"OR", "1", "7", "", "", ""}, true},
		{`lower(state) startsWith "c"`, []string{"CA", "1", "7", "", "", ""}, true},
		{`upper(state) endsWith "A" or state contains "x"`, []string{"ca", "1", "7", "", "", ""}, true},
		{`$env["Mean Temp"] >= 3.5`, []string{"CA", "1", "7", "", "3.5", ""}, true},
		{`delay % 2 == 1 and delay * 2 - 1 == 149 and delay / 2 == 37.5`, []string{"CA", "75", "7", "", "", ""}, true},
		{`state > "B" and state < "D"`, []string{"CA", "75", "7", "", "", ""}, true},
		{`delay > 9223372036854775806`, []string{"CA", "9223372036854775807", "7", "", "", ""}, true}, // integers compare exactly
	} {
		p, err := Compile(c.src, "the key side", names, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, err := p.Clone().Match(row(c.vals...), nil)
		if err != nil || got != c.want {
			t.Errorf("%s on %q: %v %v, want %v", c.src, c.vals, got, err, c.want)
		}
	}
}

// TestTyped: a table side's values come typed: an empty string is a
// value, a NULL is nil.
func TestTyped(t *testing.T) {
	names := []string{"n", "f", "s", "b", "d"}
	types := []columnar.Type{{Kind: columnar.Int, Width: 64}, {Kind: columnar.Float, Width: 64}, {Kind: columnar.String}, {Kind: columnar.Bool}, {Kind: columnar.Date}}
	for _, c := range []struct {
		src   string
		vals  []string
		nulls nullSet
		want  bool
	}{
		{`n == 7 and f > 0.5 and s == "" and b and d >= "2020-01-01"`, []string{"7", "0.75", "", "true", "2021-03-04"}, nil, true},
		{`s == nil`, []string{"7", "0.75", "", "true", "2021-03-04"}, nullSet{2: true}, true},
		{`s == ""`, []string{"7", "0.75", "", "true", "2021-03-04"}, nil, true},
		{`n > 1`, []string{"", "0.75", "", "true", "2021-03-04"}, nullSet{0: true}, false},
		{`not b`, []string{"7", "0.75", "", "false", "2021-03-04"}, nil, true},
		// NaN is above every number and equal to itself (DuckDB's,
		// Polars' order), never "equal" to a number.
		{`f == 5`, []string{"7", "NaN", "", "true", "2021-03-04"}, nil, false},
		{`f >= 5 and f > 1e308 and f != 5`, []string{"7", "NaN", "", "true", "2021-03-04"}, nil, true},
		{`f < 5 or f <= -1`, []string{"7", "NaN", "", "true", "2021-03-04"}, nil, false},
		{`f == f and f > n`, []string{"7", "NaN", "", "true", "2021-03-04"}, nil, true},
		{`f > n`, []string{"7", "+Inf", "", "true", "2021-03-04"}, nil, true},
	} {
		p, err := Compile(c.src, "the input", names, types)
		if err != nil {
			t.Fatal(err)
		}
		nulls := c.nulls
		if nulls == nil {
			nulls = nullSet{}
		}
		if got, err := p.Match(row(c.vals...), nulls); err != nil || got != c.want {
			t.Errorf("%s on %q: %v %v, want %v", c.src, c.vals, got, err, c.want)
		}
	}
}

type nullSet map[int]bool

func (n nullSet) Null(j int) bool { return n[j] }

// TestErrors: every refusal names what is wrong and where.
func TestErrors(t *testing.T) {
	names := []string{"state", "delay"}
	for src, want := range map[string]string{
		`state == "CA" and dealy > 60`: `the input has no column "dealy" (at character 19) (its columns: "state", "delay")`,
		`$env["x y"] > 1`:              `no column "x y"`,
		`delay >`:                      `where "delay >": unexpected token EOF (1:7)`,
		``:                             `an empty expression`,
		`nope(delay)`:                  `no function nope (at character 1)`,
	} {
		_, err := Compile(src, "the input", names, nil)
		if err == nil || !errors.Is(err, ErrWhere) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", src, err, want)
		}
	}
	p, err := Compile(`delay > 60`, "the input", names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Match(row("CA", "n/a"), nil); err == nil || !strings.Contains(err.Error(), `cannot order the text "n/a" and the number 60`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("an ordering of text: %v", err)
	}
	p, _ = Compile(`delay + 1`, "the input", names, nil)
	if _, err := p.Match(row("CA", "5"), nil); err == nil || !strings.Contains(err.Error(), `where "delay + 1": gives 6 (int64), not true or false`) {
		t.Errorf("a result that is no boolean: %v", err)
	}
	p, _ = Compile(`delay / 0 > 1`, "the input", names, nil)
	if _, err := p.Match(row("CA", "5"), nil); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("a division by zero: %v", err)
	}
}

// TestCompareModel: `x OP literal` on random CSV values and literals of
// every kind, against a model of the rules written from the package
// comment with math/big: NULL compares false (and unequal); a field is a
// number when it is an integer or a decimal that prints back; numbers
// compare exactly; a number and text compare as numbers when the text
// reads as one, else == is false and an ordering an error.
func TestCompareModel(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	vals := []string{"", "7", "-7", "007", "+7", "7.0", "7.5", ".5", "-.5", "1e3", "1000", "abc", "ABC", "9223372036854775807", "9223372036854775808", "0", "-0", "0.1", " 7", "NaN", "x7",
		"09007199254740993", "9007199254740993", "9007199254740992", "0.10", "0.1000000000000000055511151231257827", "12345678901234567.50"}
	lits := []string{"7", "7.0", "7.5", "0.5", "1000", "0", "-1", `"7"`, `"abc"`, `"7.50"`, `"007"`, `""`, "9223372036854775807",
		"9007199254740992", "9007199254740993", "0.1", `"0.10"`, "12345678901234568", "12345678901234567.6"}
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	for range 3000 {
		v, lit, op := vals[rng.IntN(len(vals))], lits[rng.IntN(len(lits))], ops[rng.IntN(len(ops))]
		src := "x " + op + " " + lit
		p, err := Compile(src, "t", []string{"x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, gerr := p.Match(row(v), nil)
		want, werr := model(v, op, lit)
		if (gerr != nil) != werr || gerr == nil && got != want {
			t.Fatalf("%s with x = %q: %v %v, model %v (error %v)", src, v, got, gerr, want, werr)
		}
	}
}

// model is TestCompareModel's verdict of field v OP literal lit.
func model(v, op, lit string) (bool, bool) {
	if v == "" {
		return op == "!=", false
	}
	// Every number as the exact decimal it is written as (big.Rat): an
	// integer as itself, a float as its shortest decimal, text as written.
	dec := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			panic(s)
		}
		return r
	}
	// The field: a number or text.
	var fv *big.Rat
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && strconv.FormatInt(n, 10) == v {
		fv = new(big.Rat).SetInt64(n)
	} else if f, err := strconv.ParseFloat(v, 64); err == nil && strings.Contains(v, ".") && strconv.FormatFloat(f, 'f', -1, 64) == v {
		fv = dec(v) // a decimal that prints back as itself
	}
	// The literal: a number or text.
	var fl *big.Rat
	text, isText := strings.CutPrefix(lit, `"`)
	if isText {
		text = strings.TrimSuffix(text, `"`)
	} else if n, err := strconv.ParseInt(lit, 10, 64); err == nil && !strings.Contains(lit, ".") {
		fl = new(big.Rat).SetInt64(n)
	} else {
		f, _ := strconv.ParseFloat(lit, 64)
		fl = dec(strconv.FormatFloat(f, 'g', -1, 64))
	}
	// asNumber reads text as a number, as a comparison with a number does.
	asNumber := func(s string) *big.Rat {
		if s == "" || strings.ContainsAny(s, "xXnN_") {
			return nil
		}
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return nil
		}
		return dec(strings.TrimSpace(s))
	}
	var c int
	switch {
	case fv != nil && fl != nil:
		c = fv.Cmp(fl)
	case fv == nil && fl == nil: // text and text
		c = strings.Compare(v, text)
	case fv != nil: // a number and text
		n := asNumber(text)
		if n == nil {
			if op == "==" || op == "!=" {
				return op == "!=", false
			}
			return false, true
		}
		c = fv.Cmp(n)
	default: // text and a number
		n := asNumber(v)
		if n == nil {
			if op == "==" || op == "!=" {
				return op == "!=", false
			}
			return false, true
		}
		c = n.Cmp(fl)
	}
	return map[string]bool{"==": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op], false
}

// FuzzCompile: any expression over any names compiles or is refused with
// ErrWhere; a compiled one tests any row without panicking, true, false or
// an ErrWhere.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{`a == "x" and b > 1`, `a in [1, 2]`, `lower(a) startsWith "q"`, `$env["a"] / 0 > 1`, `(`, `a[`, `a.b.c`, `len(a) > 2`, `a ?? 1`, `let x = a; x > 1`, `filter([1,2], # > a)`} {
		f.Add(s, "1", "x")
	}
	f.Fuzz(func(t *testing.T, src, a, b string) {
		p, err := Compile(src, "t", []string{"a", "b"}, nil)
		if err != nil {
			if !errors.Is(err, ErrWhere) {
				t.Fatalf("%q: %v", src, err)
			}
			return
		}
		if _, err := p.Match(row(a, b), nil); err != nil && !errors.Is(err, ErrWhere) {
			t.Fatalf("%q on %q %q: %v", src, a, b, err)
		}
		_ = fmt.Sprint(p)
	})
}

// FuzzTextValue: a CSV field's value is an int64 exactly when strconv
// prints the integer back as the field, a float64 when the field is a
// decimal that prints back, else the text (NULL when empty).
func FuzzTextValue(f *testing.F) {
	for _, s := range []string{"", "7", "-7", "007", "-0", "+7", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "0.5", ".5", "7.50", "1e3", "abc", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := textValue([]byte(s))
		n, err := strconv.ParseInt(s, 10, 64)
		switch v := got.(type) {
		case nil:
			if s != "" {
				t.Fatalf("%q: NULL", s)
			}
		case int64:
			if err != nil || v != n || strconv.FormatInt(n, 10) != s {
				t.Fatalf("%q: int64 %d", s, v)
			}
		case float64:
			if x, ferr := strconv.ParseFloat(s, 64); ferr != nil || x != v || !strings.Contains(s, ".") && !strings.ContainsAny(s, "eE") {
				t.Fatalf("%q: float64 %v", s, v)
			}
		case string:
			if v != s || s == "" || err == nil && strconv.FormatInt(n, 10) == s {
				t.Fatalf("%q: text %q", s, v)
			}
		default:
			t.Fatalf("%q: %T", s, got)
		}
	})
}

// TestNativeMatchesVM: on random expressions of and, or, not,
// comparisons, in, startsWith, endsWith, contains over three columns and
// literals of every kind, and random CSV and typed rows, the native
// evaluation (native.go) gives the VM's verdict, and an error where the
// VM gives one; most of the expressions go native.
func TestNativeMatchesVM(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	lits := []string{"7", "-7", "0", "7.5", "-0.5", `"7"`, `"abc"`, `"a"`, `""`, "nil", "true", "9223372036854775807", `"7.50"`, `"7.0"`, `"07"`, `" 7"`, "0.5", `"0.5"`}
	cols := []string{"a", "b", `$env["c"]`}
	vals := []string{"", "7", "-7", "7.5", "7.50", "abc", "a", "007", "1e3", "true", "0", "9223372036854775807", "0.5", ".5", "-0", "7.0", " 7", "07"}
	var opd func() string
	opd = func() string {
		switch rng.IntN(5) {
		case 0, 1:
			return cols[rng.IntN(len(cols))]
		case 2: // arithmetic
			return "(" + opd() + " " + []string{"+", "-", "*", "/", "%"}[rng.IntN(5)] + " " + opd() + ")"
		}
		return lits[rng.IntN(len(lits))]
	}
	var cond func(depth int) string
	cond = func(depth int) string {
		switch k := rng.IntN(10); {
		case depth > 2 || k < 4:
			ops := []string{"==", "!=", "<", "<=", ">", ">=", "startsWith", "endsWith", "contains"}
			return opd() + " " + ops[rng.IntN(len(ops))] + " " + opd()
		case k == 4:
			return opd() + " in [" + opd() + ", " + opd() + "]"
		case k == 5:
			return "not (" + cond(depth+1) + ")"
		case k == 6:
			return []string{"true", "false"}[rng.IntN(2)]
		case k < 8:
			return "(" + cond(depth+1) + ") and (" + cond(depth+1) + ")"
		}
		return "(" + cond(depth+1) + ") or (" + cond(depth+1) + ")"
	}
	native := 0
	for i := range 4000 {
		src := cond(0)
		names := []string{"a", "b", "c"}
		var types []columnar.Type
		if i%3 == 0 {
			types = []columnar.Type{{Kind: columnar.Int, Width: 64}, {Kind: columnar.String}, {Kind: columnar.Float, Width: 64}}
		}
		fast, err := Compile(src, "t", names, types)
		if err != nil {
			continue // the VM refuses it too (an unknown column cannot occur)
		}
		noNative = true
		slow, err := Compile(src, "t", names, types)
		noNative = false
		if err != nil {
			t.Fatalf("%q: the VM's compile failed: %v", src, err)
		}
		if fast.native != nil {
			native++
		}
		for range 4 {
			r := row(vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))])
			var nulls key.Nulls
			if types != nil {
				r = row(fmt.Sprint(rng.IntN(20)-10), vals[rng.IntN(len(vals))], fmt.Sprint(float64(rng.IntN(40))/4))
				ns := nullSet{}
				for j := range 3 {
					ns[j] = rng.IntN(5) == 0
				}
				nulls = ns
			}
			got, gerr := fast.Match(r, nulls)
			want, werr := slow.Match(r, nulls)
			if (gerr != nil) != (werr != nil) || gerr == nil && got != want {
				t.Fatalf("%q on %q (types %v): native %v %v, VM %v %v", src, r, types != nil, got, gerr, want, werr)
			}
		}
	}
	if native < 3000 {
		t.Errorf("%d of 4000 expressions went native", native)
	}
}

// TestExactTyped: the review's finds (issue 43's eleventh session):
// integer arithmetic that leaves int64 fails the row rather than wrap
// (DuckDB's "Overflow in addition of INT64"), in the native path and the
// VM's alike; unary minus and abs of NULL are NULL; an unsigned column
// beyond int64 compares exactly; a UTC timestamp's fraction orders after
// its whole second (10:00:00.5Z > 10:00:00Z, though '.' < 'Z').
func TestExactTyped(t *testing.T) {
	names := []string{"i", "u", "ts", "d"}
	types := []columnar.Type{{Kind: columnar.Int, Width: 64}, {Kind: columnar.Uint, Width: 64}, {Kind: columnar.Timestamp, Unit: columnar.Micro, UTC: true}, {Kind: columnar.Decimal, Precision: 20, Scale: 2}}
	const maxI, minI = "9223372036854775807", "-9223372036854775808"
	for _, c := range []struct {
		src   string
		vals  []string
		nulls nullSet
		want  bool
		err   string // a part of the error, "" for none
	}{
		{`i + 1 > i`, []string{maxI, "1", "", ""}, nil, false, "integer overflow"},
		{`i * 2 == 0`, []string{minI, "1", "", ""}, nil, false, "integer overflow"},
		{`i - 1 < 0`, []string{minI, "1", "", ""}, nil, false, "integer overflow"},
		{`i * 3 - 1 == 8`, []string{"3", "1", "", ""}, nil, true, ""},
		{`-i > 0`, []string{minI, "1", "", ""}, nil, false, "integer overflow"},
		{`abs(i) > 0`, []string{minI, "1", "", ""}, nil, false, "integer overflow"},
		{`abs(i) == 5 and -i == 5`, []string{"-5", "1", "", ""}, nil, true, ""},
		{`-i == nil and abs(i) == nil`, []string{"", "1", "", ""}, nullSet{0: true}, true, ""},
		{`-i < 0`, []string{"", "1", "", ""}, nullSet{0: true}, false, ""},
		{`u == "18446744073709551614"`, []string{"1", "18446744073709551615", "", ""}, nil, false, ""},
		{`u > "18446744073709551614" and u > 5 and u != 18446744073709551614.0`, []string{"1", "18446744073709551615", "", ""}, nil, true, ""},
		{`u == "18446744073709551614" and u < "18446744073709551615"`, []string{"1", "18446744073709551614", "", ""}, nil, true, ""},
		{`u > i`, []string{maxI, "9223372036854775808", "", ""}, nil, true, ""},
		{`ts > "2020-01-01T10:00:00Z" and ts < "2020-01-01T10:00:01Z"`, []string{"1", "1", "2020-01-01T10:00:00.5Z", ""}, nil, true, ""},
		{`ts < "2020-01-01T10:00:00.1Z"`, []string{"1", "1", "2020-01-01T10:00:00.5Z", ""}, nil, false, ""},
		{`ts == "2020-01-01T10:00:00.5Z" and ts startsWith "2020" and len(ts) == 22`, []string{"1", "1", "2020-01-01T10:00:00.5Z", ""}, nil, true, ""},
		{`i matches "^-5$" and u matches "5$" and ts matches "Z$"`, []string{"-5", "15", "2020-01-01T10:00:00Z", ""}, nil, true, ""},
		{`i matches ".*"`, []string{"", "1", "", ""}, nullSet{0: true}, false, ""}, // NULL matches nothing
		{`d == 12345678901234568`, []string{"1", "1", "", "12345678901234567.50"}, nil, false, ""},
		{`d < 12345678901234568 and d > 12345678901234567 and d != 12345678901234567.5`, []string{"1", "1", "", "12345678901234567.50"}, nil, true, ""},
	} {
		for _, native := range []bool{true, false} {
			p := compileAs(t, native, c.src, names, types)
			nulls := c.nulls
			if nulls == nil {
				nulls = nullSet{}
			}
			got, err := p.Match(row(c.vals...), nulls)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("native %v: %s on %q: %v %v, want an error of %q", native, c.src, c.vals, got, err, c.err)
				}
				continue
			}
			if err != nil || got != c.want {
				t.Errorf("native %v: %s on %q: %v %v, want %v", native, c.src, c.vals, got, err, c.want)
			}
		}
	}
	// A literal pattern that is no regular expression is refused at once.
	if _, err := Compile(`i > 0 or i matches "("`, "the input", names, types); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("a bad pattern: %v", err)
	}
}

// TestTimeOrder: dates and timestamps order as time, not as their text,
// where the two differ: years beyond 9999 and before 0 (DuckDB's range),
// and a UTC timestamp's fraction against its whole second; in the native
// path and the VM's, and in a row group's bounds (Refutes) alike.
func TestTimeOrder(t *testing.T) {
	names := []string{"dt", "ts"}
	types := []columnar.Type{{Kind: columnar.Date}, {Kind: columnar.Timestamp, Unit: columnar.Micro}}
	for _, c := range []struct {
		src  string
		vals []string
		want bool
	}{
		{`dt > "2020-01-01" and dt > "9999-12-31"`, []string{"10000-01-01", "2020-01-01T00:00:00"}, true},
		{`dt < "0001-01-01" and dt > "-0101-12-31" and dt < "-0099-01-01"`, []string{"-0100-01-01", "2020-01-01T00:00:00"}, true},
		{`dt == "10000-01-01" and dt != "1000-01-01"`, []string{"10000-01-01", "2020-01-01T00:00:00"}, true},
		{`ts > "2020-01-01T00:00:00" and ts < "10001-01-01T00:00:00"`, []string{"2020-01-01", "10000-01-01T00:00:00"}, true},
		{`ts < "0001-01-01T00:00:00"`, []string{"2020-01-01", "-0001-12-31T23:59:59"}, true},
		{`dt startsWith "1000" and len(dt) == 11`, []string{"10000-01-01", "2020-01-01T00:00:00"}, true},
		{`dt < "abc"`, []string{"2020-01-01", "2020-01-01T00:00:00"}, true}, // text not of a date's shape: as text
	} {
		for _, native := range []bool{true, false} {
			p := compileAs(t, native, c.src, names, types)
			if got, err := p.Match(row(c.vals...), nullSet{}); err != nil || got != c.want {
				t.Errorf("native %v: %s on %q: %v %v, want %v", native, c.src, c.vals, got, err, c.want)
			}
		}
	}
}

// compileAs compiles src for the input side with the native path on
// (native) or off (the VM's alone), failing t on an error.
func compileAs(t *testing.T, native bool, src string, names []string, types []columnar.Type) *Pred {
	t.Helper()
	noNative = !native
	defer func() { noNative = false }()
	p, err := Compile(src, "the input", names, types)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
