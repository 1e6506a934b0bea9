package where

import (
	"strings"

	"github.com/expr-lang/expr/ast"

	"github.com/acbfjoin/acbfjoin/columnar"
)

// Refuting a chunk: a file's statistics (columnar.Stats: a Parquet row
// group's least and greatest value and NULLs of a column) can show that no
// row of the chunk satisfies the predicate, so that the chunk is skipped
// unread, as DuckDB, DataFusion and Spark prune row groups by a filter.
// The reasoning is over the compiled tree, node by node: a node is known to
// be false on every row (never) or true on every row (always) from the
// bounds of its columns; and, or and not combine the two (a chunk is
// refuted when the whole predicate is never). It must not hide an error:
// a predicate with a node that could fail on some row (an ordering of a
// number and text, arithmetic, a function, a comparison of two columns)
// is never refuted, whatever its other nodes say, because reading the
// chunk would have reported that row.

// Refutes reports whether no row of a chunk can satisfy p, by what stats
// says of the chunk's columns (stats(col) for a column of the side, by
// its index in the side; ok false: nothing is known of it). True means
// that p evaluates to false, without an error, on every row the
// statistics allow. False when unsure. O(expression) and safe for
// concurrent use (it reads the compiled tree only).
func (p *Pred) Refutes(stats func(col int) (columnar.Stats, bool)) bool {
	v, ok := p.judge(p.prog.Node(), stats)
	return ok && v.never
}

// verdict is what a chunk's statistics prove of a boolean node on its
// rows: false on every row (never), true on every row (always), or
// neither.
type verdict struct{ never, always bool }

// judge is the verdict on n; ok false where n could fail on a row or is
// not a node this file knows (the chunk is then not refuted).
func (p *Pred) judge(n ast.Node, stats func(int) (columnar.Stats, bool)) (verdict, bool) {
	switch x := n.(type) {
	case *ast.BoolNode:
		return verdict{never: !x.Value, always: x.Value}, true
	case *ast.UnaryNode:
		if x.Operator != "not" && x.Operator != "!" {
			return verdict{}, false
		}
		v, ok := p.judge(x.Node, stats)
		return verdict{never: v.always, always: v.never}, ok
	case *ast.BinaryNode:
		l, lok := p.judge(x.Left, stats)
		r, rok := p.judge(x.Right, stats)
		if !lok || !rok {
			return verdict{}, false
		}
		switch x.Operator {
		case "and", "&&":
			return verdict{never: l.never || r.never, always: l.always && r.always}, true
		case "or", "||":
			return verdict{never: l.never && r.never, always: l.always || r.always}, true
		}
	case *ast.CallNode:
		return p.judgeCall(x, stats)
	}
	return verdict{}, false
}

// flipped is a comparison's operator with its sides swapped (5 < x is x > 5).
var flipped = map[string]string{"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}

// judgeCall is the verdict on a call of one of ops.go's operators between
// a column and a literal (or a list of them, for in).
func (p *Pred) judgeCall(x *ast.CallNode, stats func(int) (columnar.Stats, bool)) (verdict, bool) {
	id, ok := x.Callee.(*ast.IdentifierNode)
	if !ok || len(x.Arguments) != 2 || !strings.HasPrefix(id.Value, "__") {
		return verdict{}, false
	}
	op := id.Value[2:]
	j, lit, left := p.columnAndLiteral(x.Arguments[0], x.Arguments[1])
	if j < 0 {
		return verdict{}, false
	}
	if !left {
		if op, ok = flipped[op]; !ok {
			return verdict{}, false // a literal in a list, a literal's prefix
		}
	}
	b := p.boundsOf(j, stats)
	switch op {
	case "eq", "ne", "lt", "le", "gt", "ge":
		if !p.cannotFail(j, op, lit) {
			return verdict{}, false
		}
		return b.compare(op, lit), true
	case "in":
		list, ok := lit.([]any)
		if !ok {
			return verdict{}, false
		}
		v := verdict{never: true}
		for _, e := range list { // equal never fails
			ev := b.compare("eq", e)
			v.never = v.never && ev.never
			v.always = v.always || ev.always
		}
		return v, true
	case "startsWith", "endsWith", "contains":
		if !p.cannotFail(j, op, lit) {
			return verdict{}, false
		}
		return b.text(op, lit), true
	}
	return verdict{}, false
}

// columnAndLiteral returns the column (its index in p.cols) and the
// literal of a call's two arguments, and whether the column is the left
// one; j -1 for any other pair.
func (p *Pred) columnAndLiteral(a, b ast.Node) (j int, lit any, left bool) {
	if j := p.columnNode(a); j >= 0 {
		if v, ok := literalValue(b); ok {
			return j, v, true
		}
	}
	if j := p.columnNode(b); j >= 0 {
		if v, ok := literalValue(a); ok {
			return j, v, false
		}
	}
	return -1, nil, false
}

// columnNode is the index in p.cols of the column n names, -1 if n is
// no column.
func (p *Pred) columnNode(n ast.Node) int {
	name := ""
	switch x := n.(type) {
	case *ast.IdentifierNode:
		name = x.Value
	case *ast.MemberNode:
		id, ok := x.Node.(*ast.IdentifierNode)
		str, isStr := x.Property.(*ast.StringNode)
		if !ok || id.Value != "$env" || !isStr || x.Optional {
			return -1
		}
		name = str.Value
	default:
		return -1
	}
	for j, n := range p.names {
		if n == name {
			return j
		}
	}
	return -1
}

// literalValue is a literal node's value (literal), or a list of
// literals' ([]any).
func literalValue(n ast.Node) (any, bool) {
	switch x := n.(type) {
	case *ast.ArrayNode:
		list := make([]any, 0, len(x.Nodes))
		for _, e := range x.Nodes {
			v, ok := literal(e)
			if !ok {
				return nil, false
			}
			list = append(list, v)
		}
		return list, true
	case *ast.ConstantNode:
		if list, ok := x.Value.([]any); ok {
			return list, true
		}
		return nil, false
	}
	return literal(n)
}

// valueClass is what a column's values are to the operators (value):
// numbers, booleans or text.
type valueClass int

const (
	classText valueClass = iota
	classNumber
	classBool
)

func classOf(t columnar.Type) valueClass {
	switch t.Kind {
	case columnar.Int, columnar.Uint, columnar.Float:
		return classNumber
	case columnar.Bool:
		return classBool
	}
	return classText
}

// cannotFail reports whether op between column j and lit fails on no row
// (ops.go): == and != never fail; an ordering fails between a number and
// text that is no number, and on a boolean; a text operator on a boolean.
// A CSV column (Text) may hold numbers and text alike, so only NULL is
// safe against anything but text.
func (p *Pred) cannotFail(j int, op string, lit any) bool {
	if op == "eq" || op == "ne" || lit == nil {
		return true
	}
	_, _, _, litNum := number(lit)
	_, litText := lit.(string)
	t := p.types[j]
	switch op {
	case "startsWith", "endsWith", "contains":
		return classOf(t) != classBool && (litNum || litText)
	}
	switch {
	case t.Kind == columnar.Text:
		return false // a CSV field is a number or text row by row
	case classOf(t) == classNumber:
		return litNum
	case classOf(t) == classText:
		return litText
	}
	return false
}

// bounds are what the statistics say of a column of a chunk: its rows
// and NULLs, and the least and greatest of its other values as the
// operators see them (lo, hi; ordered false where the values' order is
// not the order of those values, or unknown).
type bounds struct {
	known       bool // rows and nulls
	rows, nulls int64
	ordered     bool
	lo, hi      any
	nan         bool // a float column: NaNs are not in the bounds (Parquet leaves them out)
}

// boundsOf is the bounds of column j (p.cols[j]) from stats. Its values are
// made from the bounds' text as a row's are (value), so that they compare
// as the rows do; a column is ordered when the operators order its values
// as the file does: numbers (signed integers, floats), UTF-8 text, and
// dates of years 0 to 9999 (2006-01-02: text order is date order).
func (p *Pred) boundsOf(j int, stats func(int) (columnar.Stats, bool)) bounds {
	s, ok := stats(p.cols[j])
	if !ok || s.Rows < 0 || s.Nulls < 0 || s.Nulls > s.Rows {
		return bounds{}
	}
	t := p.types[j]
	b := bounds{known: true, rows: s.Rows, nulls: s.Nulls, nan: t.Kind == columnar.Float}
	if s.Range == nil || s.Range.Len() != 2 || s.Range.Null(0) || s.Range.Null(1) || s.Range.Type != t {
		return b
	}
	lo, hi := s.Range.AppendText(nil, 0), s.Range.AppendText(nil, 1)
	switch t.Kind {
	case columnar.Int, columnar.Float, columnar.String:
	case columnar.Date:
		if len(lo) != 10 || len(hi) != 10 || lo[0] < '0' || lo[0] > '9' || hi[0] < '0' || hi[0] > '9' {
			return b
		}
	default:
		return b
	}
	b.lo, b.hi = value(lo, t, true), value(hi, t, true)
	if f, ok := b.lo.(float64); ok && f != f {
		// A NaN least value: an old writer's (PARQUET-1246: a chunk whose
		// first value was NaN kept NaN for both), not a bound. A NaN
		// greatest is one (NaN is above every number: DuckDB writes it so).
		return b
	}
	if c, err := compare(b.lo, b.hi); err != nil || c > 0 {
		return b // bounds the wrong way round: not trusted
	}
	b.ordered = true
	return b
}

// compare is the verdict on `column op v` (== != < <= > >=) for a column of
// bounds b, where op cannot fail (cannotFail; == may meet any v). A NULL
// makes every comparison false but !=, which it makes true (equal); a NaN,
// which a float column's bounds leave out, is above every number and
// equal to none.
func (b bounds) compare(op string, v any) verdict {
	if !b.known {
		return verdict{}
	}
	nonNull := b.rows - b.nulls
	if v == nil { // == nil, != nil; an ordering with NULL is false
		switch op {
		case "eq":
			return verdict{never: b.nulls == 0, always: nonNull == 0}
		case "ne":
			return verdict{never: nonNull == 0, always: b.nulls == 0}
		}
		return verdict{never: true}
	}
	if nonNull == 0 { // every value NULL: == and orderings false, != true
		return verdict{never: op != "ne", always: op == "ne"}
	}
	if !b.ordered {
		return verdict{}
	}
	// v must compare with the bounds as with every value between them:
	// a number with numbers, text with text.
	_, _, _, vNum := number(v)
	_, vText := v.(string)
	_, loNum := b.lo.(float64)
	if _, isInt := b.lo.(int64); isInt {
		loNum = true
	}
	if loNum != vNum || !loNum && !vText {
		return verdict{}
	}
	l, err1 := compare(b.lo, v)
	h, err2 := compare(b.hi, v)
	if err1 != nil || err2 != nil {
		return verdict{}
	}
	full := b.nulls == 0 && !b.nan // every row a value within the bounds
	switch op {
	case "eq":
		return verdict{never: l > 0 || h < 0, always: full && l == 0 && h == 0}
	case "ne":
		return verdict{never: full && l == 0 && h == 0, always: l > 0 || h < 0}
	case "lt": // a NaN is not below v
		return verdict{never: l >= 0, always: full && h < 0}
	case "le":
		return verdict{never: l > 0, always: full && h <= 0}
	case "gt": // a NaN is above v
		return verdict{never: h <= 0 && !b.nan, always: full && l > 0}
	case "ge":
		return verdict{never: h < 0 && !b.nan, always: full && l >= 0}
	}
	return verdict{}
}

// text is the verdict on `column op v` for startsWith, endsWith and
// contains (false on a NULL): of a prefix, from the bounds of a text
// column (the values with prefix v are those from v up to the first text
// above every one of them).
func (b bounds) text(op string, v any) verdict {
	if !b.known {
		return verdict{}
	}
	if b.rows == b.nulls || v == nil {
		return verdict{never: true}
	}
	s, vText := v.(string)
	lo, loText := textOrStamp(b.lo) // a date's bounds are stamps
	hi, _ := textOrStamp(b.hi)
	if op != "startsWith" || !b.ordered || !vText || !loText {
		return verdict{}
	}
	return verdict{
		never:  hi < s || lo > s && !strings.HasPrefix(lo, s),
		always: b.nulls == 0 && strings.HasPrefix(lo, s) && strings.HasPrefix(hi, s),
	}
}
