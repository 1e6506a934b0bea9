package where

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/acbfjoin/acbfjoin/columnar"
)

// operators are the package's comparisons and arithmetic, in place of
// expr's (expr.Operator): they take NULL (nil) and mixed numbers and text
// as the package comment says.
var operators = []struct {
	op, name string
	fn       func(a, b any) (any, error)
}{
	{"==", "eq", func(a, b any) (any, error) { return equal(a, b), nil }},
	{"!=", "ne", func(a, b any) (any, error) { return !equal(a, b), nil }},
	{"<", "lt", ordered(func(c int) bool { return c < 0 })},
	{"<=", "le", ordered(func(c int) bool { return c <= 0 })},
	{">", "gt", ordered(func(c int) bool { return c > 0 })},
	{">=", "ge", ordered(func(c int) bool { return c >= 0 })},
	{"+", "add", arith('+')},
	{"-", "sub", arith('-')},
	{"*", "mul", arith('*')},
	{"/", "div", arith('/')},
	{"%", "mod", arith('%')},
	{"in", "in", func(a, b any) (any, error) {
		list, ok := b.([]any)
		if !ok {
			return nil, fmt.Errorf("in takes a list, not %v (%T)", b, b)
		}
		for _, e := range list {
			if equal(a, e) {
				return true, nil
			}
		}
		return false, nil
	}},
	{"startsWith", "startsWith", textOp(strings.HasPrefix)},
	{"endsWith", "endsWith", textOp(strings.HasSuffix)},
	{"contains", "contains", textOp(strings.Contains)},
}

// textFuncs replace expr's builtins of one text argument: a number is
// taken as the text it was written as (a CSV number is one that prints
// back as itself, so nothing is lost), NULL gives NULL.
var textFuncs = []struct {
	name string
	fn   func(string) any
}{
	{"lower", func(s string) any { return strings.ToLower(s) }},
	{"upper", func(s string) any { return strings.ToUpper(s) }},
	{"trim", func(s string) any { return strings.TrimSpace(s) }},
	{"len", func(s string) any { return int64(len([]rune(s))) }},
}

// text returns v as text: text itself, a number as it prints (the text a
// CSV field that became the number was), false for anything else.
func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case stamp:
		return string(x), true
	case bigUint:
		return strconv.FormatUint(uint64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return string(columnar.AppendFloat(nil, x, 64)), true
	}
	return "", false
}

// textOp is a text operator (startsWith, endsWith, contains): false when
// either side is NULL, numbers as their text.
func textOp(f func(s, t string) bool) func(a, b any) (any, error) {
	return func(a, b any) (any, error) {
		if a == nil || b == nil {
			return false, nil
		}
		as, aok := text(a)
		bs, bok := text(b)
		if !aok || !bok {
			return nil, fmt.Errorf("cannot test %v and %v as text", a, b)
		}
		return f(as, bs), nil
	}
}

// textFunc is a text function of one argument (textFuncs).
func textFunc(name string, f func(string) any) func(...any) (any, error) {
	return func(p ...any) (any, error) {
		if len(p) != 1 {
			return nil, fmt.Errorf("%s takes one argument, not %d", name, len(p))
		}
		if p[0] == nil {
			return nil, nil
		}
		s, ok := text(p[0])
		if !ok {
			return nil, fmt.Errorf("%s of %v (%T): not text", name, p[0], p[0])
		}
		return f(s), nil
	}
}

// number returns v as a number: an int64 (isInt) or a float64; ok false
// for anything else.
func number(v any) (i int64, f float64, isInt, ok bool) {
	switch x := v.(type) {
	case int64:
		return x, float64(x), true, true
	case int:
		return int64(x), float64(x), true, true
	case float64:
		return 0, x, false, true
	case float32:
		return 0, float64(x), false, true
	case bigUint:
		return 0, float64(x), false, true // arithmetic: a double (compare and equal order it exactly)
	}
	return 0, 0, false, false
}

// bigUint is an unsigned integer column's value beyond int64 (value):
// arithmetic takes it as a double, comparisons exactly (exactCmp).
type bigUint uint64

// stamp is a date's or a timestamp's value (value): its canonical text,
// which text functions see and which orders as time does but in two
// places: a year beyond 9999 or before 0 (10000-01-01 sorts before
// 2020-01-01 as text, -0100 before 0001 only by luck) and a UTC
// timestamp's final Z (10:00:00.5Z sorts before 10:00:00Z: '.' is
// below 'Z'). timeCmp orders them as time.
type stamp string

// timeCmp orders a and b, the texts of a date or timestamp and what it
// is compared with, as time: a final Z left out, then by a leading year
// (an optional '-' and digits before the next '-') as a number and the
// rest as text; texts not of that shape as text. O(len).
func timeCmp(a, b string) int {
	a, b = strings.TrimSuffix(a, "Z"), strings.TrimSuffix(b, "Z")
	ya, ra, oka := splitYear(a)
	yb, rb, okb := splitYear(b)
	if oka && okb {
		if ya != yb {
			return cmp3(ya < yb, ya > yb)
		}
		return strings.Compare(ra, rb)
	}
	return strings.Compare(a, b)
}

// splitYear is s's leading year (an optional '-' and 1-18 digits
// followed by '-') and the text from that '-' on.
func splitYear(s string) (int64, string, bool) {
	i := 0
	if strings.HasPrefix(s, "-") {
		i = 1
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || j-i > 18 || j >= len(s) || s[j] != '-' {
		return 0, "", false
	}
	y, err := strconv.ParseInt(s[i:j], 10, 64)
	if err != nil {
		return 0, "", false
	}
	if i == 1 {
		y = -y
	}
	return y, s[j:], true
}

// asStamps returns a and b as texts when either is a stamp and the
// other a stamp or text (timeCmp orders them); ok false otherwise.
func asStamps(a, b any) (string, string, bool) {
	as, aStamp := a.(stamp)
	bs, bStamp := b.(stamp)
	if !aStamp && !bStamp {
		return "", "", false
	}
	if !aStamp {
		t, ok := a.(string)
		if !ok {
			return "", "", false
		}
		as = stamp(t)
	}
	if !bStamp {
		t, ok := b.(string)
		if !ok {
			return "", "", false
		}
		bs = stamp(t)
	}
	return string(as), string(bs), true
}

// textNumber is text read as a number (ParseFloat's forms but NaN, Inf
// and hex), for comparing text with a number.
func textNumber(s string) (float64, bool) {
	if s == "" || strings.ContainsAny(s, "xXnN_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsInf(f, 0)
}

// textNumCmp orders the text s, when it reads as a number (textNumber),
// against the number (i, f, isInt as number returns it), exactly: as the
// decimal s is written as against the integer, or the float's shortest
// decimal (what reads back as it: 0.1 for the double nearest 0.1, as
// written). Where the doubles the two round to differ, they order as
// those doubles do (rounding to the nearest double never reverses an
// order); only where they are one double are the decimals compared
// (big.Rat), so 09007199254740993 > 9007199254740992, which both round
// to. ok false when s is no number. A NaN number is above any text.
func textNumCmp(s string, i int64, f float64, isInt bool) (int, bool) {
	tf, ok := textNumber(s)
	if !ok {
		return 0, false
	}
	if !isInt && f != f {
		return -1, true
	}
	nf := f
	if isInt {
		nf = float64(i)
	}
	if tf != nf {
		return cmp3(tf < nf, tf > nf), true
	}
	var num any = f
	if isInt {
		num = i
	}
	if c, ok := exactCmp(s, num); ok { // one double: the decimals, exactly
		return c, true
	}
	return 0, true
}

// exactCmp orders a and b, one of them a bigUint, exactly: the other an
// integer, a float (as its shortest decimal, as textNumCmp takes it; a NaN
// above) or text that reads as a number; ok false for anything else.
func exactCmp(a, b any) (int, bool) {
	ra, aNaN, ok := exactOf(a)
	if !ok {
		return 0, false
	}
	rb, bNaN, ok := exactOf(b)
	if !ok {
		return 0, false
	}
	if aNaN || bNaN {
		return cmp3(bNaN && !aNaN, aNaN && !bNaN), true
	}
	return ra.Cmp(rb), true
}

// exactOf is v as an exact rational for exactCmp, or whether it is NaN.
func exactOf(v any) (r *big.Rat, nan, ok bool) {
	r = new(big.Rat)
	switch x := v.(type) {
	case bigUint:
		r.SetInt(new(big.Int).SetUint64(uint64(x)))
	case int64:
		r.SetInt64(x)
	case int:
		r.SetInt64(int64(x))
	case float64:
		if x != x {
			return nil, true, true
		}
		if math.IsInf(x, 0) {
			// ±2^1100: beyond every finite double (below 2^1024) and
			// every text that reads as a number (textNumber refuses one
			// that overflows a double), so it orders as the infinity.
			r.SetInt(new(big.Int).Lsh(big.NewInt(int64(math.Copysign(1, x))), 1100))
			return r, false, true
		}
		r.SetString(strconv.FormatFloat(x, 'g', -1, 64))
	case string:
		if _, isNum := textNumber(x); !isNum {
			return nil, false, false
		}
		if _, ok := r.SetString(strings.TrimSpace(x)); !ok {
			return nil, false, false
		}
	default:
		return nil, false, false
	}
	return r, false, true
}

// isBigUint reports whether a or b is a bigUint.
func isBigUint(a, b any) bool {
	_, x := a.(bigUint)
	_, y := b.(bigUint)
	return x || y
}

// equal is ==: NULL equals NULL only; numbers as numbers (integers
// exactly); a number and text as numbers when the text is one, else
// unequal; other values as Go compares them.
func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if ka, kb, ok := asStamps(a, b); ok {
		return timeCmp(ka, kb) == 0
	}
	if isBigUint(a, b) {
		c, ok := exactCmp(a, b)
		return ok && c == 0
	}
	ai, af, aInt, aNum := number(a)
	bi, bf, bInt, bNum := number(b)
	switch {
	case aNum && bNum:
		return numCmp(ai, af, aInt, bi, bf, bInt) == 0
	case aNum:
		s, ok := b.(string)
		c, isNum := textNumCmp(s, ai, af, aInt)
		return ok && isNum && c == 0
	case bNum:
		s, ok := a.(string)
		c, isNum := textNumCmp(s, bi, bf, bInt)
		return ok && isNum && c == 0
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

// ordered is an ordering comparison: false when either side is NULL;
// numbers as numbers, text as text, a number and text as numbers when the
// text is one, else an error naming both.
func ordered(holds func(c int) bool) func(a, b any) (any, error) {
	return func(a, b any) (any, error) {
		if a == nil || b == nil {
			return false, nil
		}
		c, err := compare(a, b)
		if err != nil {
			return nil, err
		}
		return holds(c), nil
	}
}

// compare orders a and b (neither NULL): -1, 0 or 1.
func compare(a, b any) (int, error) {
	if ka, kb, ok := asStamps(a, b); ok {
		return timeCmp(ka, kb), nil
	}
	ai, af, aInt, aNum := number(a)
	bi, bf, bInt, bNum := number(b)
	if isBigUint(a, b) && (aNum || bNum) {
		if c, ok := exactCmp(a, b); ok {
			return c, nil
		}
	}
	if !aNum {
		if s, ok := a.(string); ok && bNum {
			c, isNum := textNumCmp(s, bi, bf, bInt)
			if !isNum {
				return 0, fmt.Errorf("cannot order the text %q and the number %v", s, b)
			}
			return c, nil
		}
	}
	if !bNum {
		if s, ok := b.(string); ok && aNum {
			c, isNum := textNumCmp(s, ai, af, aInt)
			if !isNum {
				return 0, fmt.Errorf("cannot order the number %v and the text %q", a, s)
			}
			return -c, nil
		}
	}
	if aNum && bNum {
		return numCmp(ai, af, aInt, bi, bf, bInt), nil
	}
	as, aStr := a.(string)
	bs, bStr := b.(string)
	if aStr && bStr {
		return strings.Compare(as, bs), nil
	}
	return 0, fmt.Errorf("cannot order %v (%T) and %v (%T)", a, a, b, b)
}

// numCmp orders two numbers exactly: integers as integers, an integer
// and a float without rounding the integer to a float (2^63-1 is below
// the float 2^63). NaN is above every other number and equal to itself,
// as DuckDB and Polars order floats (not IEEE 754's comparisons, under
// which a NaN would be "equal" to anything by cmp3).
func numCmp(ai int64, af float64, aInt bool, bi int64, bf float64, bInt bool) int {
	if aNaN, bNaN := !aInt && af != af, !bInt && bf != bf; aNaN || bNaN {
		return cmp3(bNaN && !aNaN, aNaN && !bNaN)
	}
	switch {
	case aInt && bInt:
		return cmp3(ai < bi, ai > bi)
	case aInt:
		return -intFloatCmp(bf, ai)
	case bInt:
		return intFloatCmp(af, bi)
	}
	return cmp3(af < bf, af > bf)
}

// intFloatCmp orders the float f and the integer i exactly.
func intFloatCmp(f float64, i int64) int {
	switch {
	case f >= 1<<63:
		return 1
	case f < -(1 << 63):
		return -1
	}
	t := int64(f) // exact: |f| < 2^63
	if t != i {
		return cmp3(t < i, t > i)
	}
	frac := f - float64(t)
	return cmp3(frac < 0, frac > 0)
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// arith is an arithmetic operator: NULL when either side is NULL;
// integers stay integers (but for /, a float, as expr's); text + text
// joins them; anything else is an error naming both.
func arith(op byte) func(a, b any) (any, error) {
	return func(a, b any) (any, error) {
		if a == nil || b == nil {
			return nil, nil
		}
		ai, af, aInt, aNum := number(a)
		bi, bf, bInt, bNum := number(b)
		if !aNum || !bNum {
			as, aStr := textOrStamp(a)
			bs, bStr := textOrStamp(b)
			if op == '+' && aStr && bStr {
				return as + bs, nil
			}
			return nil, fmt.Errorf("cannot compute %v %c %v: not numbers", a, op, b)
		}
		if aInt && bInt && op != '/' {
			var c int64
			fits := true
			switch op {
			case '+':
				c, fits = addInt(ai, bi)
			case '-':
				c, fits = subInt(ai, bi)
			case '*':
				c, fits = mulInt(ai, bi)
			}
			if op != '%' {
				if !fits {
					return nil, fmt.Errorf("%v %c %v: beyond the integers of 64 bits (integer overflow)", ai, op, bi)
				}
				return c, nil
			}
			switch op {
			case '%':
				if bi == 0 {
					return nil, fmt.Errorf("%v %% 0: division by zero", ai)
				}
				return ai % bi, nil
			}
		}
		switch op {
		case '+':
			return af + bf, nil
		case '-':
			return af - bf, nil
		case '*':
			return af * bf, nil
		case '/':
			if bf == 0 {
				return nil, fmt.Errorf("%v / 0: division by zero", a)
			}
			return af / bf, nil
		}
		return nil, fmt.Errorf("%v %% %v: %% takes integers", a, b)
	}
}

// addInt, subInt and mulInt are a+b, a-b and a*b and whether the result
// fits in an int64 (else arith fails, as DuckDB's "Overflow in addition
// of INT64" does, rather than wrap around). O(1).
func addInt(a, b int64) (int64, bool) {
	c := a + b
	return c, (a^c)&(b^c) >= 0
}

func subInt(a, b int64) (int64, bool) {
	c := a - b
	return c, (a^b)&(a^c) >= 0
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 || c/b != a {
		return c, false
	}
	return c, true
}

// neg is unary minus (the compiler's - x, patched to it: negate): NULL
// for NULL, an integer's negation unless it overflows (-2^63), a float's.
func neg(p ...any) (any, error) {
	if len(p) != 1 {
		return nil, fmt.Errorf("- takes one operand, not %d", len(p))
	}
	switch x := p[0].(type) {
	case nil:
		return nil, nil
	case int64:
		if x == math.MinInt64 {
			return nil, fmt.Errorf("-(%d): beyond the integers of 64 bits (integer overflow)", x)
		}
		return -x, nil
	case int:
		return neg(int64(x))
	case float64:
		return -x, nil
	case bigUint:
		return -float64(x), nil
	}
	return nil, fmt.Errorf("cannot negate %v: not a number", p[0])
}

// abs is abs(): NULL for NULL, an integer's absolute value unless it
// overflows (-2^63), a float's.
func abs(p ...any) (any, error) {
	if len(p) != 1 {
		return nil, fmt.Errorf("abs takes one argument, not %d", len(p))
	}
	switch x := p[0].(type) {
	case nil:
		return nil, nil
	case int64:
		if x < 0 {
			return neg(x)
		}
		return x, nil
	case int:
		return abs(int64(x))
	case float64:
		return math.Abs(x), nil
	case bigUint:
		return float64(x), nil
	}
	return nil, fmt.Errorf("abs of %v: not a number", p[0])
}

// matches is `a matches b`: whether the text a (a number or a
// timestamp as its text) holds a match of the regular expression b
// (Go's syntax, as expr's); false when either is NULL, as startsWith.
// The expressions compiled are kept (regexps, for any goroutine): a
// literal pattern is compiled once.
func matches(p ...any) (any, error) {
	if len(p) != 2 {
		return nil, fmt.Errorf("matches takes two operands, not %d", len(p))
	}
	if p[0] == nil || p[1] == nil {
		return false, nil
	}
	s, ok := text(p[0])
	pat, pok := p[1].(string)
	if !ok || !pok {
		return nil, fmt.Errorf("cannot match %v against %v: not text", p[0], p[1])
	}
	re, err := regexpOf(pat)
	if err != nil {
		return nil, err
	}
	return re.MatchString(s), nil
}

// regexps are matches' compiled expressions, by pattern.
var regexps sync.Map

// regexpOf is pat compiled (kept in regexps). O(len(pat)) the first time.
func regexpOf(pat string) (*regexp.Regexp, error) {
	if re, ok := regexps.Load(pat); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, fmt.Errorf("matches %q: %v", pat, err)
	}
	regexps.Store(pat, re)
	return re, nil
}

// textOrStamp is v's text when v is text or a date or timestamp (stamp).
func textOrStamp(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case stamp:
		return string(x), true
	}
	return "", false
}
