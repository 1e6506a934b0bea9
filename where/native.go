package where

import (
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
	case *ast.CallNode: // an operator of ops.go, as expr.Operator patched it in
		id, ok := x.Callee.(*ast.IdentifierNode)
		if !ok || len(x.Arguments) != 2 {
			return nil, false
		}
		fn := opFunc(id.Value)
		if fn == nil {
			return nil, false
		}
		l, lok := p.operandOf(x.Arguments[0])
		r, rok := p.operandOf(x.Arguments[1])
		if !lok || !rok {
			return nil, false
		}
		return func(vals []any) (bool, error) {
			a, err := l(vals)
			if err != nil {
				return false, err
			}
			b, err := r(vals)
			if err != nil {
				return false, err
			}
			out, err := fn(a, b)
			if err != nil {
				return false, err
			}
			v, _ := out.(bool)
			return v, nil
		}, true
	}
	return nil, false
}

// opFunc is the package's function of a comparison operator (ops.go) by
// the name the compiler calls it ("__gt"), nil for another.
func opFunc(name string) func(a, b any) (any, error) {
	for _, o := range operators {
		if "__"+o.name == name {
			switch o.op {
			case "==", "!=", "<", "<=", ">", ">=", "in", "startsWith", "endsWith", "contains":
				return o.fn
			}
		}
	}
	return nil
}

// arithFunc is ops.go's function of an arithmetic operator by the name
// the compiler calls it ("__add"), nil for another.
func arithFunc(name string) func(a, b any) (any, error) {
	for _, o := range operators {
		if "__"+o.name == name {
			switch o.op {
			case "+", "-", "*", "/", "%":
				return o.fn
			}
		}
	}
	return nil
}

func (p *Pred) operandOf(n ast.Node) (operand, bool) {
	switch x := n.(type) {
	case *ast.CallNode: // arithmetic of ops.go
		id, ok := x.Callee.(*ast.IdentifierNode)
		if !ok || len(x.Arguments) != 2 {
			return nil, false
		}
		fn := arithFunc(id.Value)
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
