package cbf_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/acbfjoin/acbfjoin/cbf"
)

func Example() {
	f, err := cbf.NewWithEstimates(1000, 0.01)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.M(), f.K())
	f.Add([]byte("3858241"))
	f.Add([]byte("3858241"))
	fmt.Println(f.Contains([]byte("3858241")), f.Count([]byte("3858241")))
	fmt.Println(f.Remove([]byte("3858241")), f.Count([]byte("3858241")))
	err = f.Remove([]byte("never added"))
	fmt.Println(errors.Is(err, cbf.ErrNotMember))
	// Output:
	// 9586 7
	// true 2
	// <nil> 1
	// true
}

// Filters built in parallel, one per worker, combine with Merge.
func ExampleFilter_Merge() {
	a, _ := cbf.New(1000, 4)
	b, _ := cbf.New(1000, 4)
	a.Add([]byte("x"))
	b.Add([]byte("y"))
	if err := a.Merge(b); err != nil {
		panic(err)
	}
	fmt.Println(a.Contains([]byte("x")), a.Contains([]byte("y")), a.Len())
	// Output: true true 2
}

func ExampleFilter_WriteTo() {
	f, _ := cbf.New(1000, 4)
	f.Add([]byte("x"))
	var buf bytes.Buffer
	n, _ := f.WriteTo(&buf)
	var g cbf.Filter
	g.ReadFrom(&buf)
	fmt.Println(n, g.Equal(f))
	// Output: 528 true
}
