package where

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/columnar"
	"math"
	"strconv"
	"strings"
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
	}
	return 0, 0, false, false
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

// equal is ==: NULL equals NULL only; numbers as numbers (integers
// exactly); a number and text as numbers when the text is one, else
// unequal; other values as Go compares them.
func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ai, af, aInt, aNum := number(a)
	bi, bf, bInt, bNum := number(b)
	switch {
	case aNum && bNum:
		return numCmp(ai, af, aInt, bi, bf, bInt) == 0
	case aNum:
		s, ok := b.(string)
		f, isNum := textNumber(s)
		return ok && isNum && numCmp(ai, af, aInt, 0, f, false) == 0
	case bNum:
		s, ok := a.(string)
		f, isNum := textNumber(s)
		return ok && isNum && numCmp(0, f, false, bi, bf, bInt) == 0
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
	ai, af, aInt, aNum := number(a)
	bi, bf, bInt, bNum := number(b)
	if !aNum {
		if s, ok := a.(string); ok && bNum {
			if af, aNum = textNumber(s); !aNum {
				return 0, fmt.Errorf("cannot order the text %q and the number %v", s, b)
			}
		}
	}
	if !bNum {
		if s, ok := b.(string); ok && aNum {
			if bf, bNum = textNumber(s); !bNum {
				return 0, fmt.Errorf("cannot order the number %v and the text %q", a, s)
			}
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
			as, aStr := a.(string)
			bs, bStr := b.(string)
			if op == '+' && aStr && bStr {
				return as + bs, nil
			}
			return nil, fmt.Errorf("cannot compute %v %c %v: not numbers", a, op, b)
		}
		if aInt && bInt && op != '/' {
			switch op {
			case '+':
				return ai + bi, nil
			case '-':
				return ai - bi, nil
			case '*':
				return ai * bi, nil
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
