package bank

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Classing says how a class column's value becomes a class label.
//
//   - round: the value is a decimal number, rounded half away from zero to
//     an integer on its text, with no floating point error ("6.5" is class
//     7, "6.49" class 6, "-2.5" class -3): the seed's rule (Java's
//     Math.round and Python's ROUND_HALF_UP agree on its positive ratings).
//   - value: the value itself, as text ("1999", "JP").
//   - cut: numeric edges E1 < E2 < ... < En cut the line into n+1 classes,
//     [E(i), E(i+1)), labelled "..E1", "E1..E2", ..., "En.." with the edges
//     as written.
type Classing struct {
	Mode  string    // "round", "value" or "cut"
	Edges []float64 // cut: the edges, increasing
	texts []string  // cut: the edges as written, for the labels
}

// ErrClassing is wrapped by errors about a Classing or a value it cannot
// class.
var ErrClassing = errors.New("bank: class")

// ParseClassing reads "round", "value" or "cut:E1,E2,...".
func ParseClassing(s string) (Classing, error) {
	switch {
	case s == "round" || s == "value":
		return Classing{Mode: s}, nil
	case strings.HasPrefix(s, "cut:"):
		c := Classing{Mode: "cut"}
		for _, t := range strings.Split(s[len("cut:"):], ",") {
			t = strings.TrimSpace(t)
			e, err := strconv.ParseFloat(t, 64)
			if err != nil || math.IsNaN(e) || math.IsInf(e, 0) {
				return Classing{}, fmt.Errorf("%w: cut edge %q is not a finite number", ErrClassing, t)
			}
			if n := len(c.Edges); n > 0 && !(e > c.Edges[n-1]) {
				return Classing{}, fmt.Errorf("%w: cut edges must increase (%s after %s)", ErrClassing, t, c.texts[n-1])
			}
			c.Edges, c.texts = append(c.Edges, e), append(c.texts, t)
		}
		if len(c.Edges) > MaxClasses-1 {
			return Classing{}, fmt.Errorf("%w: %d cut edges, at most %d", ErrClassing, len(c.Edges), MaxClasses-1)
		}
		return c, nil
	}
	//lint:ignore ST1005 the trailing "..." is the cut list's syntax (cut:E1,E2,...), not a sentence's end
	return Classing{}, fmt.Errorf("%w: classing %q, want round, value or cut:E1,E2,...", ErrClassing, s)
}

// String is the text ParseClassing reads.
func (c Classing) String() string {
	if c.Mode == "cut" {
		return "cut:" + strings.Join(c.texts, ",")
	}
	return c.Mode
}

// Label returns the class label of a class column's value. An empty value
// has no class (an error: a bad row). O(len(v)) for round and value,
// O(log edges) for cut; no allocation for value beyond the label.
func (c Classing) Label(v []byte) (string, error) {
	if len(v) == 0 {
		return "", fmt.Errorf("%w: empty class value", ErrClassing)
	}
	switch c.Mode {
	case "value":
		return string(v), nil
	case "round":
		return roundHalfUp(v)
	case "cut":
		x, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsNaN(x) {
			return "", fmt.Errorf("%w: %q is not a number", ErrClassing, v)
		}
		i, _ := slices.BinarySearch(c.Edges, x) // first edge >= x
		if i < len(c.Edges) && c.Edges[i] == x {
			i++ // an edge opens its class: [E(i), E(i+1))
		}
		switch {
		case len(c.Edges) == 0:
			return "..", nil
		case i == 0:
			return ".." + c.texts[0], nil
		case i == len(c.Edges):
			return c.texts[i-1] + "..", nil
		}
		return c.texts[i-1] + ".." + c.texts[i], nil
	}
	return "", fmt.Errorf("%w: classing %q", ErrClassing, c.Mode)
}

// roundHalfUp rounds a decimal number's text half away from zero to an
// integer's text: sign, digits, an optional point and fraction digits; the
// first fraction digit decides. At most 18 integer digits.
func roundHalfUp(v []byte) (string, error) {
	s := v
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, dot := strings.Cut(string(s), ".")
	if (intPart == "" && (!dot || frac == "")) || len(intPart) > 18 {
		return "", fmt.Errorf("%w: %q is not a decimal number", ErrClassing, v)
	}
	for _, d := range intPart + frac {
		if d < '0' || d > '9' {
			return "", fmt.Errorf("%w: %q is not a decimal number", ErrClassing, v)
		}
	}
	var n int64
	for _, d := range intPart {
		n = n*10 + int64(d-'0')
	}
	if frac != "" && frac[0] >= '5' {
		n++
	}
	if neg && n != 0 {
		n = -n
	}
	return strconv.FormatInt(n, 10), nil
}

// compareLabels orders class labels: numbers (round, value of a numeric
// column) by value, cut classes by their lower edge, others as text after
// the numbers.
func (c Classing) compareLabels(a, b string) int {
	na, aok := c.labelNumber(a)
	nb, bok := c.labelNumber(b)
	switch {
	case aok && bok:
		if r := cmp.Compare(na, nb); r != 0 {
			return r
		}
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

// labelNumber is the number that orders a label: its value, or a cut
// class's lower edge (-Inf for the first).
func (c Classing) labelNumber(l string) (float64, bool) {
	if c.Mode == "cut" {
		lo, _, ok := strings.Cut(l, "..")
		if !ok {
			return 0, false
		}
		if lo == "" {
			return math.Inf(-1), true
		}
		x, err := strconv.ParseFloat(lo, 64)
		return x, err == nil
	}
	x, err := strconv.ParseFloat(l, 64)
	return x, err == nil && !math.IsNaN(x)
}
