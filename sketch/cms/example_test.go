package cms_test

import (
	"errors"
	"fmt"

	"github.com/acbfjoin/acbfjoin/sketch/cms"
)

func Example() {
	c, err := cms.ForError(0.001, 0.01) // error <= 0.001*N with probability >= 99%
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Width, c.Depth)
	s, _ := cms.New(c)
	s.Add([]byte("3858241"), 5)
	s.Add([]byte("3858241"), 2)
	s.Add([]byte("4711"), 1)
	fmt.Println(s.Count([]byte("3858241")), s.Count([]byte("4711")), s.Count([]byte("never added")), s.Total())
	// Output:
	// 2719 5
	// 7 1 0 8
}

// A sliding window over batches: add the new batch, subtract the sketch of
// the batch that leaves the window.
func ExampleSketch_Subtract() {
	c := cms.Config{Width: 1000, Depth: 4}
	window, _ := cms.New(c)
	var batches []*cms.Sketch
	for i, keys := range [][]string{{"a", "b"}, {"b", "c"}, {"c", "d"}} {
		b, _ := cms.New(c)
		for _, k := range keys {
			b.Add([]byte(k), 1)
		}
		batches = append(batches, b)
		window.Merge(b)
		if i >= 2 { // a window of two batches
			if err := window.Subtract(batches[i-2]); err != nil {
				panic(err)
			}
		}
	}
	fmt.Println(window.Count([]byte("a")), window.Count([]byte("b")), window.Count([]byte("c")), window.Total())
	cons, _ := cms.New(cms.Config{Width: 1000, Depth: 4, Conservative: true})
	fmt.Println(errors.Is(cons.Subtract(cons), cms.ErrConservative))
	// Output:
	// 0 1 2 4
	// true
}

// InnerProduct estimates the size of the join of two streams on the key.
func ExampleSketch_InnerProduct() {
	c := cms.Config{Width: 1000, Depth: 4}
	orders, _ := cms.New(c)
	lines, _ := cms.New(c)
	orders.Add([]byte("customer 1"), 2)
	orders.Add([]byte("customer 2"), 1)
	lines.Add([]byte("customer 1"), 3)
	lines.Add([]byte("customer 3"), 4)
	n, err := orders.InnerProduct(lines)
	fmt.Println(n, err) // 2*3 join rows; an upper bound in general
	// Output: 6 <nil>
}
