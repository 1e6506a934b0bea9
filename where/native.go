package where

import (
	"strings"

	"github.com/expr-lang/expr/ast"
)

// A native predicate evaluates the common expressions (and, or, not;
// comparisons, in, startsWith, endsWith and contains between columns and
// literals) as Go closures over the row's values, without expr's VM, whose
// run of `x > 0` took 185-337 ns (a whole join's map phase 7x longer at
// full scale, bench/results/where.md). It calls the same operators as the
// VM (ops.go), so the verdicts are the VM's (TestNativeMatchesVM,
// FuzzCompile); an expression with anything else is left to the VM.

// cond is a boolean node: its verdict on the row's values (vals[j] is the
// value of column p.cols[j]).
type cond func(vals []any) (bool, error)

// operand is a value node: a column's value, a literal, or arithmetic
// of operands (an error: a division by zero, text that is no number).
type operand func(vals []any) (any, error)

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
		return func([]any) (bool, error) { return v, nil }, true
	case *ast.UnaryNode:
		if x.Operator != "not" && x.Operator != "!" {
			return nil, false
		}
		c, ok := p.condOf(x.Node)
		if !ok {
			return nil, false
		}
		return func(vals []any) (bool, error) {
			v, err := c(vals)
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
				return func(vals []any) (bool, error) {
					if v, err := l(vals); err != nil || !v {
						return false, err
					}
					return r(vals)
				}, true
			}
			return func(vals []any) (bool, error) {
				if v, err := l(vals); err != nil || v {
					return v, err
				}
				return r(vals)
			}, true
		}
	case *ast.CallNode: // a comparison of ops.go, as expr.Operator patched it in
		o, ok := p.call(x, true)
		if !ok {
			return nil, false
		}
		return func(vals []any) (bool, error) {
			out, err := o(vals)
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
	return func(vals []any) (any, error) {
		a, err := l(vals)
		if err != nil {
			return nil, err
		}
		b, err := r(vals)
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
			return func([]any) (any, error) { return consts, nil }, true
		}
		return func(vals []any) (any, error) {
			out := make([]any, len(items))
			for i, o := range items {
				v, err := o(vals)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}, true
	case *ast.ConstantNode: // a list of literals, folded
		if list, ok := x.Value.([]any); ok {
			return func([]any) (any, error) { return list, nil }, true
		}
		return nil, false
	}
	if v, ok := literal(n); ok {
		return func([]any) (any, error) { return v, nil }, true
	}
	return nil, false
}

// column is the operand of the column named name.
func (p *Pred) column(name string) (operand, bool) {
	for j, n := range p.names {
		if n == name {
			return func(vals []any) (any, error) { return vals[j], nil }, true
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
