package where

import (
	"strings"

	"github.com/expr-lang/expr/ast"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/key"
)

// A native predicate evaluates the common expressions (and, or, not;
// comparisons, in, startsWith, endsWith and contains between columns and
// literals) as Go closures over the row's values, without expr's VM, whose
// run of `x > 0` took 185-337 ns (a whole join's map phase 7x longer at
// full scale, bench/results/where.md). It calls the same operators as the
// VM (ops.go), so the verdicts are the VM's (TestNativeMatchesVM,
// FuzzCompile); an expression with anything else is left to the VM.

// cond is a boolean node: its verdict on the row r.
type cond func(r *evalRow) (bool, error)

// operand is a value node: a column's value, a literal, or arithmetic
// of operands (an error: a division by zero, text that is no number).
type operand func(r *evalRow) (any, error)

// row is the row Match tests: its fields and NULLs, and the values of the
// predicate's columns (p.cols[j]'s in vals[j]), each made (value: parsed,
// boxed) on first use, so that a comparison of a column with a number
// literal that reads the field's bytes itself (fastCompare), or an and
// that ends early, makes none.
type evalRow struct {
	p      *Pred
	fields [][]byte
	nulls  key.Nulls
	vals   []any
	made   []bool
}

// reset makes r the row of fields and nulls.
func (r *evalRow) reset(fields [][]byte, nulls key.Nulls) {
	r.fields, r.nulls = fields, nulls
	clear(r.made)
}

// field is column p.cols[j]'s field and whether it is NULL (absent from
// the row; NULL where the side knows its NULLs; empty in a CSV row).
func (r *evalRow) field(j int) ([]byte, bool) {
	c := r.p.cols[j]
	if c >= len(r.fields) || r.nulls != nil && r.nulls.Null(c) {
		return nil, true
	}
	f := r.fields[c]
	return f, r.nulls == nil && len(f) == 0
}

// val is column p.cols[j]'s value (value's; nil for NULL).
func (r *evalRow) val(j int) any {
	if !r.made[j] {
		var v any
		if f, null := r.field(j); !null {
			v = value(f, r.p.types[j], r.nulls != nil)
		}
		r.vals[j], r.made[j] = v, true
	}
	return r.vals[j]
}

// nativeOf compiles tree (the compiled program's: optimised, the
// operators patched in as calls of ops.go's functions) over the columns of p
// (p.names, in the order Compile found them), or returns nil when it holds
// a node this file does not evaluate.
func (p *Pred) nativeOf(tree ast.Node) cond {
	c, ok := p.condOf(tree)
	if !ok {
		return nil
	}
	return c
}

func (p *Pred) condOf(n ast.Node) (cond, bool) {
	switch x := n.(type) {
	case *ast.BoolNode:
		v := x.Value
		return func(*evalRow) (bool, error) { return v, nil }, true
	case *ast.UnaryNode:
		if x.Operator != "not" && x.Operator != "!" {
			return nil, false
		}
		c, ok := p.condOf(x.Node)
		if !ok {
			return nil, false
		}
		return func(r *evalRow) (bool, error) {
			v, err := c(r)
			return !v, err
		}, true
	case *ast.BinaryNode:
		switch x.Operator {
		case "and", "&&", "or", "||":
			l, lok := p.condOf(x.Left)
			r, rok := p.condOf(x.Right)
			if !lok || !rok {
				return nil, false
			}
			if x.Operator == "and" || x.Operator == "&&" {
				return func(rw *evalRow) (bool, error) {
					if v, err := l(rw); err != nil || !v {
						return false, err
					}
					return r(rw)
				}, true
			}
			return func(rw *evalRow) (bool, error) {
				if v, err := l(rw); err != nil || v {
					return v, err
				}
				return r(rw)
			}, true
		}
	case *ast.CallNode: // a comparison of ops.go, as expr.Operator patched it in
		if c, ok := p.fastCompare(x); ok {
			return c, true
		}
		o, ok := p.call(x, true)
		if !ok {
			return nil, false
		}
		return func(r *evalRow) (bool, error) {
			out, err := o(r)
			v, _ := out.(bool) // a comparison's result is a bool
			return v, err
		}, true
	}
	return nil, false
}

// call is the operand of x, a call of one of ops.go's operators by the
// name the compiler gives it ("__gt"): a comparison (compare) or
// arithmetic (!compare); false for any other call.
func (p *Pred) call(x *ast.CallNode, compare bool) (operand, bool) {
	id, ok := x.Callee.(*ast.IdentifierNode)
	if !ok || len(x.Arguments) != 2 {
		return nil, false
	}
	var fn func(a, b any) (any, error)
	for _, o := range operators {
		if "__"+o.name == id.Value && strings.Contains("+-*/%", o.op) != compare {
			fn = o.fn
		}
	}
	if fn == nil {
		return nil, false
	}
	l, lok := p.operandOf(x.Arguments[0])
	r, rok := p.operandOf(x.Arguments[1])
	if !lok || !rok {
		return nil, false
	}
	return func(rw *evalRow) (any, error) {
		a, err := l(rw)
		if err != nil {
			return nil, err
		}
		b, err := r(rw)
		if err != nil {
			return nil, err
		}
		return fn(a, b)
	}, true
}

func (p *Pred) operandOf(n ast.Node) (operand, bool) {
	switch x := n.(type) {
	case *ast.CallNode: // arithmetic of ops.go
		return p.call(x, false)
	case *ast.IdentifierNode:
		return p.column(x.Value)
	case *ast.MemberNode:
		id, ok := x.Node.(*ast.IdentifierNode)
		str, isStr := x.Property.(*ast.StringNode)
		if !ok || id.Value != "$env" || !isStr || x.Optional {
			return nil, false
		}
		return p.column(str.Value)
	case *ast.ArrayNode:
		var items []operand
		consts := make([]any, 0, len(x.Nodes)) // the list, when it is all literals
		for _, e := range x.Nodes {
			o, ok := p.operandOf(e)
			if !ok {
				return nil, false
			}
			items = append(items, o)
			if v, ok := literal(e); ok && consts != nil {
				consts = append(consts, v)
			} else {
				consts = nil
			}
		}
		if consts != nil {
			return func(*evalRow) (any, error) { return consts, nil }, true
		}
		return func(r *evalRow) (any, error) {
			out := make([]any, len(items))
			for i, o := range items {
				v, err := o(r)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}, true
	case *ast.ConstantNode: // a list of literals, folded
		if list, ok := x.Value.([]any); ok {
			return func(*evalRow) (any, error) { return list, nil }, true
		}
		return nil, false
	}
	if v, ok := literal(n); ok {
		return func(*evalRow) (any, error) { return v, nil }, true
	}
	return nil, false
}

// column is the operand of the column named name.
func (p *Pred) column(name string) (operand, bool) {
	for j, n := range p.names {
		if n == name {
			return func(r *evalRow) (any, error) { return r.val(j), nil }, true
		}
	}
	return nil, false
}

// literal is the value of a literal node as expr's VM has it.
func literal(n ast.Node) (any, bool) {
	switch x := n.(type) {
	case *ast.IntegerNode:
		return x.Value, true // int, as the VM's
	case *ast.FloatNode:
		return x.Value, true
	case *ast.StringNode:
		return x.Value, true
	case *ast.NilNode:
		return nil, true
	case *ast.BoolNode:
		return x.Value, true
	}
	return nil, false
}

// fastCompare is a comparison (== != < <= > >=) of a column with a literal
// that reads the column's field itself where it can, without making its
// value (value parses and boxes it: an allocation a row): a field that is
// a canonical integer (columnar.CanonicalInt: what value makes an int64
// of, in a CSV and an integer column alike) against a number, and a text
// field against a text literal under == and != (equal bytes are equal
// values; unequal bytes are unequal values unless the field and the
// literal read as the same number, left to the operator). Any other row
// goes to the operator with the value, so the verdicts are the
// operator's (TestNativeMatchesVM). False for any other call.
func (p *Pred) fastCompare(x *ast.CallNode) (cond, bool) {
	id, ok := x.Callee.(*ast.IdentifierNode)
	if !ok || len(x.Arguments) != 2 || !strings.HasPrefix(id.Value, "__") {
		return nil, false
	}
	name := id.Value[2:]
	if _, ok := flipped[name]; !ok {
		return nil, false
	}
	gen, ok := p.call(x, true)
	if !ok {
		return nil, false
	}
	generic := func(r *evalRow) (bool, error) {
		out, err := gen(r)
		v, _ := out.(bool)
		return v, err
	}
	// A number literal against a column, or integer arithmetic of columns
	// and integer literals (`ID % 2 == 0`): integers where the fields are
	// canonical ones (intOf).
	for side := range 2 {
		lit, ok := literal(x.Arguments[1-side])
		li, lf, lInt, isNum := number(lit)
		if !ok || !isNum {
			continue
		}
		iv := p.intOf(x.Arguments[side])
		if iv == nil {
			continue
		}
		op := name
		if side == 1 { // lit op x is x op' lit
			op = flipped[name]
		}
		holds := holdsOf(op)
		return func(r *evalRow) (bool, error) {
			if v, ok := iv(r); ok {
				return holds(numCmp(v, 0, true, li, lf, lInt)), nil
			}
			return generic(r)
		}, true
	}
	j, lit, left := p.columnAndLiteral(x.Arguments[0], x.Arguments[1])
	if j < 0 {
		return nil, false
	}
	op := name
	if !left {
		op = flipped[name]
	}
	kind := p.types[j].Kind
	if s, isText := lit.(string); isText && (op == "eq" || op == "ne") && (kind == columnar.Text || kind == columnar.String) {
		want := op == "eq"
		_, litNum := textNumber(s)
		return func(r *evalRow) (bool, error) {
			f, null := r.field(j)
			switch {
			case null:
				return !want, nil // NULL equals no text
			case string(f) == s:
				return want, nil
			case !litNum || kind == columnar.String: // text unequal: no number can make them equal
				return !want, nil
			}
			return generic(r)
		}, true
	}
	return nil, false
}

// holdsOf is whether a comparison op (eq, ne, lt, le, gt, ge) holds of
// compare's result.
func holdsOf(op string) func(c int) bool {
	switch op {
	case "eq":
		return func(c int) bool { return c == 0 }
	case "ne":
		return func(c int) bool { return c != 0 }
	case "lt":
		return func(c int) bool { return c < 0 }
	case "le":
		return func(c int) bool { return c <= 0 }
	case "gt":
		return func(c int) bool { return c > 0 }
	}
	return func(c int) bool { return c >= 0 }
}

// intOf is n's value as an int64 where it can be had without making a
// value: a column (CSV text, or an integer column) whose field is a
// canonical integer (what value makes an int64 of), an integer literal,
// or +, -, * and % of those (% by 0 and an overflow left to the operator,
// which fails),
// computed as ops.go's arith computes integers; ok false sends the row to
// the operator. nil for any other node.
func (p *Pred) intOf(n ast.Node) func(r *evalRow) (int64, bool) {
	if j := p.columnNode(n); j >= 0 {
		if k := p.types[j].Kind; k != columnar.Text && k != columnar.Int {
			return nil
		}
		return func(r *evalRow) (int64, bool) {
			if r.made[j] {
				return 0, false
			}
			f, null := r.field(j)
			if null {
				return 0, false
			}
			return columnar.CanonicalInt(f)
		}
	}
	if v, ok := literal(n); ok {
		if i, isInt := v.(int); isInt {
			c := int64(i)
			return func(*evalRow) (int64, bool) { return c, true }
		}
		return nil
	}
	x, ok := n.(*ast.CallNode)
	if !ok || len(x.Arguments) != 2 {
		return nil
	}
	id, ok := x.Callee.(*ast.IdentifierNode)
	if !ok {
		return nil
	}
	l, rr := p.intOf(x.Arguments[0]), p.intOf(x.Arguments[1])
	if l == nil || rr == nil {
		return nil
	}
	switch id.Value {
	case "__add":
		return func(r *evalRow) (int64, bool) {
			a, ok := l(r)
			b, ok2 := rr(r)
			c, fits := addInt(a, b) // an overflow to the operator, which fails
			return c, ok && ok2 && fits
		}
	case "__sub":
		return func(r *evalRow) (int64, bool) {
			a, ok := l(r)
			b, ok2 := rr(r)
			c, fits := subInt(a, b) // an overflow to the operator, which fails
			return c, ok && ok2 && fits
		}
	case "__mul":
		return func(r *evalRow) (int64, bool) {
			a, ok := l(r)
			b, ok2 := rr(r)
			c, fits := mulInt(a, b) // an overflow to the operator, which fails
			return c, ok && ok2 && fits
		}
	case "__mod":
		return func(r *evalRow) (int64, bool) {
			a, ok := l(r)
			b, ok2 := rr(r)
			if !ok || !ok2 || b == 0 {
				return 0, false
			}
			return a % b, true
		}
	}
	return nil
}
