package scalable_test

import (
	"bytes"
	"fmt"

	"github.com/acbfjoin/acbfjoin/scalable"
)

// A filter that starts small and grows with the keys, its error kept under
// the bound P0/(1-r).
func Example() {
	f, err := scalable.New(scalable.Config{InitialCapacity: 1000, FPP: 0.001})
	if err != nil {
		panic(err)
	}
	for i := range 10_000 {
		if err := f.Add(fmt.Appendf(nil, "patent-%d", i)); err != nil {
			panic(err)
		}
	}
	fmt.Println(f.Contains([]byte("patent-42")), f.Len(), f.Filters())
	fmt.Printf("%d bits, %.1f a key\n", f.MemoryBits(), float64(f.MemoryBits())/float64(f.Len()))
	fmt.Printf("formula FP %.2e, bound %.0e\n", f.FPP(), f.Bound())
	// Output:
	// true 10000 4
	// 264743 bits, 26.5 a key
	// formula FP 1.75e-03, bound 2e-03
}

// Where keys repeat, adding only the keys not yet present keeps the capacity
// for distinct keys: a key once present stays present.
func ExampleFilter_Add() {
	f, _ := scalable.New(scalable.Config{InitialCapacity: 100})
	for range 3 {
		for i := range 100 {
			if key := fmt.Appendf(nil, "%d", i); !f.Contains(key) {
				if err := f.Add(key); err != nil {
					panic(err)
				}
			}
		}
	}
	fmt.Println(f.Len(), f.Filters())
	// Output: 100 1
}

func ExampleFilter_WriteTo() {
	f, _ := scalable.New(scalable.Config{InitialCapacity: 100, FPP: 0.01})
	f.Add([]byte("x"))
	var buf bytes.Buffer
	n, _ := f.WriteTo(&buf)
	var g scalable.Filter
	g.ReadFrom(&buf)
	fmt.Println(n, g.Equal(f), g.Contains([]byte("x")))
	// Output: 194 true true
}

// Sizing a filter before building it: Plan gives what the filter will report
// after n Adds, exactly; FillFPP is the rate of the bits one filter got.
func ExampleConfig_Plan() {
	cfg := scalable.Config{InitialCapacity: 1000, FPP: 0.001}
	p, err := cfg.Plan(100_000)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d sub-filters, %d bits, FPP %.5f\n", p.Filters, p.Bits, p.FPP)
	f, _ := scalable.New(cfg)
	for i := range 100_000 {
		f.Add(fmt.Appendf(nil, "patent-%d", i))
	}
	fmt.Println(f.Filters() == p.Filters, f.MemoryBits() == p.Bits, f.FPP() == p.FPP)
	fmt.Printf("this filter's bits: FP %.5f\n", f.FillFPP())
	// Output:
	// 7 sub-filters, 2752212 bits, FPP 0.00197
	// true true true
	// this filter's bits: FP 0.00202
}
