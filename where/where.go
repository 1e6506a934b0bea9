// Package where compiles a row predicate (--where, --keys-where) over a
// side's columns and tests rows with it. The language is expr-lang's
// (github.com/expr-lang/expr: `state == "CA" and delay > 60`, `not`,
// `in [...]`, arithmetic, startsWith/endsWith/contains, lower/upper,
// `x == nil`); a well-kept library, compiled once, rather than a parser of
// our own.
//
// Values. A Parquet, Arrow or JSON lines column gives its type: integers
// int64, floats float64, booleans bool, every other type (text, dates,
// timestamps, decimals) its canonical text (docs/types.md), which for
// dates and timestamps orders as time does. A CSV field is a number when
// it prints back as itself: an integer (7, -3) is int64, a decimal (0.5,
// -3.25) float64; other forms (007, +7, .097, 7.50, 1e3) are text, so
// that a zip code stays one and text functions see what was written; an
// empty field is NULL (nil). Text functions and operators (lower, upper,
// trim, len, startsWith, endsWith, contains) take a number as its text.
//
// Comparisons. Numbers compare as numbers (7 == 7.0); text as text; a
// number and text compare as numbers when the text reads as one (code ==
// "7" holds for a CSV field 7, price > 7 for 7.50), exactly, as the
// decimals they are written as (textNumCmp), else == is false and
// an ordering (<, >) is an error naming both values. A date or
// timestamp orders as time (stamp: years beyond 9999 and before 0, a
// UTC timestamp's final Z); an unsigned integer beyond int64
// compares exactly (bigUint). Integer arithmetic that overflows int64 is
// an error, as a division by zero is. Two text values
// compare as text even when both read as numbers (a CSV column of 7.50
// and 10.5 orders as text; compare it with a number). A comparison with NULL is false, arithmetic on
// NULL is NULL: `delay > 60` drops a row whose delay is empty, and
// `delay == nil` selects it (not SQL's three-valued logic: `not (delay >
// 60)` holds for NULL).
package where

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/key"
)

// ErrWhere marks an expression that does not compile or names a column the
// side has not, and a row it cannot be evaluated on (every error is an
// *Error, which Is it).
var ErrWhere = errors.New("where")

// Error is what is wrong with an expression (Src): Msg says what and,
// where expr-lang knows it, at which line:column.
type Error struct{ Src, Msg string }

func (e *Error) Error() string        { return fmt.Sprintf("where %s: %s", quote(e.Src), e.Msg) }
func (e *Error) Is(target error) bool { return target == ErrWhere }

// fail is an *Error of src.
func fail(src, format string, a ...any) error {
	return &Error{Src: src, Msg: fmt.Sprintf(format, a...)}
}

// Pred is a compiled predicate over one side's columns. Compile it once;
// each goroutine tests rows with its own Clone (Match reuses buffers).
type Pred struct {
	src   string
	prog  *vm.Program
	cols  []int           // the side's columns the expression reads
	names []string        // their names
	types []columnar.Type // their types (Kind Text: a CSV column)
	env   map[string]any
	vm    vm.VM
	// native evaluates the expression without the VM where it can
	// (native.go) on row, the row Match tests.
	native cond
	row    evalRow
}

// Compile compiles src, an expression over the columns names (of types
// types; nil for a CSV side, every column text), for the side called side
// in messages. A syntax error, a name that is no column, or a result that
// is not a boolean is an error wrapping ErrWhere that quotes the
// expression and says where. O(len(src)).
func Compile(src, side string, names []string, types []columnar.Type) (*Pred, error) {
	return compile(src, side, names, types, true)
}

// compile is Compile; without columns (Syntax) a name is no error.
func compile(src, side string, names []string, types []columnar.Type, columns bool) (*Pred, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fail(src, "an empty expression")
	}
	tree, err := expr.Compile(src, options()...)
	if err != nil {
		return nil, fail(src, "%s", oneLine(err))
	}
	parsed, err := parser.Parse(src)
	if err != nil {
		return nil, fail(src, "%s", oneLine(err))
	}
	p := &Pred{src: src, prog: tree, env: map[string]any{}}
	// The columns named: identifiers but functions' names, and
	// $env["NAME"] for a name that is no identifier ("Mean Temp").
	skip := map[ast.Node]bool{}
	var badCall []string
	ast.Walk(&parsed.Node, visitor(func(n *ast.Node) {
		switch x := (*n).(type) {
		case *ast.CallNode:
			skip[x.Callee] = true
			if id, ok := x.Callee.(*ast.IdentifierNode); ok && !slices.Contains(builtin.Names, id.Value) {
				badCall = append(badCall, fmt.Sprintf("%s (at character %d)", id.Value, id.Location().From+1))
			}
		case *ast.MemberNode:
			if id, ok := x.Node.(*ast.IdentifierNode); ok && id.Value == "$env" {
				skip[x.Node] = true
			}
		}
	}))
	var badPattern error
	ast.Walk(&parsed.Node, visitor(func(n *ast.Node) {
		if x, ok := (*n).(*ast.BinaryNode); ok && x.Operator == "matches" && badPattern == nil {
			if str, ok := x.Right.(*ast.StringNode); ok {
				if _, err := regexpOf(str.Value); err != nil {
					badPattern = fmt.Errorf("%v (at character %d)", err, x.Location().From+1)
				}
			}
		}
	}))
	if badPattern != nil { // a literal pattern is refused before any row
		return nil, fail(src, "%v", badPattern)
	}
	if len(badCall) > 0 {
		return nil, fail(src, "no function %s (the functions: expr-lang's builtins, such as lower, upper, len, abs)", strings.Join(badCall, ", "))
	}
	var unknown []string
	seen := map[string]bool{}
	ast.Walk(&parsed.Node, visitor(func(n *ast.Node) {
		var name string
		var at int
		switch x := (*n).(type) {
		case *ast.IdentifierNode:
			if skip[x] || x.Value == "$env" {
				return
			}
			name, at = x.Value, x.Location().From
		case *ast.MemberNode:
			id, ok := x.Node.(*ast.IdentifierNode)
			str, isStr := x.Property.(*ast.StringNode)
			if !ok || id.Value != "$env" || !isStr {
				return
			}
			name, at = str.Value, x.Location().From
		default:
			return
		}
		if seen[name] {
			return
		}
		seen[name] = true
		i := slices.Index(names, name)
		if i < 0 {
			unknown = append(unknown, fmt.Sprintf("%q (at character %d)", name, at+1))
			return
		}
		p.cols = append(p.cols, i)
		p.names = append(p.names, name)
		t := columnar.Type{Kind: columnar.Text}
		if types != nil {
			t = types[i]
		}
		p.types = append(p.types, t)
	}))
	if len(unknown) > 0 && columns {
		return nil, fail(src, "%s has no column %s (its columns: %s)", side, strings.Join(unknown, ", "), quoteList(names))
	}
	for j, t := range p.types {
		if t.Kind == columnar.Nested {
			// A column the join never decodes (list, struct, map, a
			// Parquet INTERVAL) would read as NULL in every row.
			return nil, fail(src, "%s's column %q is %s, which a predicate does not read", side, p.names[j], t)
		}
	}
	if !noNative {
		p.native = p.nativeOf(tree.Node())
	}
	p.row = evalRow{p: p, vals: make([]any, len(p.cols)), made: make([]bool, len(p.cols))}
	return p, nil
}

// noNative sends every expression to expr's VM (tests compare the two).
var noNative = false

// Syntax checks src as Compile does but for the names of its columns,
// before the side is open (a command line's flags): a syntax error or an
// unknown function, as Compile says it. O(len(src)).
func Syntax(src string) error {
	_, err := compile(src, "", nil, nil, false)
	return err
}

// CompileOption is Compile of the option name of package pkg (src "":
// none, nil), its refusal said as that option's (an *option.Error whose
// reason is the Error's message, wrapping sentinel, or the Error itself
// when sentinel is nil): every command's --where and --keys-where, as
// the join, the stream, beamjoin and keys refuse them.
func CompileOption(pkg, name, src, side string, names []string, types []columnar.Type, sentinel error) (*Pred, error) {
	if src == "" {
		return nil, nil
	}
	p, err := Compile(src, side, names, types)
	var we *Error
	if errors.As(err, &we) {
		if sentinel == nil {
			sentinel = err
		}
		return nil, &option.Error{Pkg: pkg, Name: name, Value: src, Reason: we.Msg, Err: sentinel}
	}
	return p, err
}

// options are the compiler's: names checked by
// Compile (a column absent from a row is NULL), and the operators of the
// package's comparisons and arithmetic (ops.go).
func options() []expr.Option {
	// Env of a map: the VM fetches the columns from one (1.8x faster than
	// without it, 186 ns against 337 a run of x > 0).
	opts := []expr.Option{expr.Env(map[string]any{}), expr.AllowUndefinedVariables()}
	for _, o := range operators {
		name, fn := "__"+o.name, o.fn
		call := func(p ...any) (any, error) { return fn(p[0], p[1]) }
		opts = append(opts, expr.Function(name, call, new(func(any, any) any)), expr.Operator(o.op, name))
	}
	for _, f := range textFuncs {
		opts = append(opts, expr.Function(f.name, textFunc(f.name, f.fn)))
	}
	// abs and unary minus: NULL for NULL and an error where an integer
	// would wrap (-2^63), not expr's (which fails on NULL and wraps).
	// matches takes a number as its text (as startsWith does) and is
	// false of NULL, not a Go type assertion's failure.
	opts = append(opts, expr.Function("abs", abs), expr.Function("__neg", neg), expr.Function("__matches", matches), expr.Patch(patcher{}))
	return opts
}

// patcher makes unary minus a call of neg (__neg) and matches one of
// matches (__matches).
type patcher struct{}

func (patcher) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.UnaryNode:
		if x.Operator == "-" {
			ast.Patch(n, &ast.CallNode{Callee: &ast.IdentifierNode{Value: "__neg"}, Arguments: []ast.Node{x.Node}})
		}
	case *ast.BinaryNode:
		if x.Operator == "matches" {
			ast.Patch(n, &ast.CallNode{Callee: &ast.IdentifierNode{Value: "__matches"}, Arguments: []ast.Node{x.Left, x.Right}})
		}
	}
}

// visitor is an ast.Visitor of a function.
type visitor func(n *ast.Node)

func (v visitor) Visit(n *ast.Node) { v(n) }

// Clone returns a Pred of the same expression with its own buffers, for
// another goroutine. O(columns).
func (p *Pred) Clone() *Pred {
	c := *p
	c.env = map[string]any{}
	c.vm = vm.VM{}
	c.row = evalRow{p: &c, vals: make([]any, len(p.cols)), made: make([]bool, len(p.cols))}
	return &c
}

// String is the expression.
func (p *Pred) String() string { return p.src }

// Columns are the side's columns the expression reads, in the order it
// names them first.
func (p *Pred) Columns() []int { return slices.Clone(p.cols) }

// Match reports whether the row whose fields are fields (text, as the
// side's readers give them) and whose NULLs nulls says (nil: a CSV side,
// where an empty field is NULL) satisfies the predicate. An error (an
// ordering of text that is no number against a number, a division by zero)
// wraps ErrWhere and names the values; the caller names the row.
// O(expression) and no allocation but the values' boxes.
func (p *Pred) Match(fields [][]byte, nulls key.Nulls) (bool, error) {
	r := &p.row
	r.reset(fields, nulls)
	if p.native != nil {
		ok, err := p.native(r)
		if err != nil {
			return false, fail(p.src, "%s", err)
		}
		return ok, nil
	}
	for j, name := range p.names {
		p.env[name] = r.val(j)
	}
	out, err := p.vm.Run(p.prog, p.env)
	if err != nil {
		return false, fail(p.src, "%s", oneLine(err))
	}
	b, ok := out.(bool)
	if !ok {
		return false, fail(p.src, "gives %v (%T), not true or false", out, out)
	}
	return b, nil
}

// value is the value of field f of type t: a table's (typed: an empty
// string is a value) or a CSV side's text (empty: NULL).
func value(f []byte, t columnar.Type, typed bool) any {
	switch t.Kind {
	case columnar.Int, columnar.Uint:
		if v, err := strconv.ParseInt(string(f), 10, 64); err == nil {
			return v
		}
		if v, err := strconv.ParseUint(string(f), 10, 64); err == nil {
			return bigUint(v) // beyond int64: compared exactly
		}
	case columnar.Timestamp, columnar.Date:
		if typed || len(f) > 0 {
			return stamp(f) // its text, ordered as time (timeCmp)
		}
	case columnar.Float:
		if v, err := strconv.ParseFloat(string(f), 64); err == nil {
			return v
		}
	case columnar.Bool:
		return string(f) == "true"
	case columnar.Text:
		return textValue(f)
	}
	if !typed && len(f) == 0 {
		return nil
	}
	return string(f)
}

// textValue is a CSV field's value: NULL when empty, int64 when an integer
// that prints back as itself (columnar.CanonicalInt), float64 when a
// decimal that does (columnar.ParseDecimal, then printed back), else
// text. Without an allocation but the value's box (and the text's string).
func textValue(f []byte) any {
	if len(f) == 0 {
		return nil
	}
	if c := f[0]; c == '-' || c == '.' || c >= '0' && c <= '9' {
		if v, ok := columnar.CanonicalInt(f); ok {
			return v
		}
		// A decimal that prints back as itself (0.5, not .5 or 7.50,
		// which stay text and compare with numbers as numbers).
		var buf [32]byte
		if v, ok := columnar.ParseDecimal(f); ok && string(columnar.AppendFloat(buf[:0], v, 64)) == string(f) {
			return v
		}
	}
	return string(f)
}

// oneLine is an expr error's message without its source excerpt (expr
// prints the expression and a caret under the position on the lines
// after the first).
func oneLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

func quote(s string) string { return strconv.Quote(s) }

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
