package acbf_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/cbf"
)

// The optimal ACBF for n = 1000 keys in the memory of a CBF with m = 8n
// counters, against that CBF.
func Example() {
	const n, k = 1000, 3
	m := uint64(8 * n)
	f, err := acbf.New(acbf.ConfigOptimal(m, n, k))
	if err != nil {
		panic(err)
	}
	for i := 0; i < n; i++ {
		if err := f.Add(fmt.Appendf(nil, "patent-%d", i)); err != nil {
			panic(err)
		}
	}
	fmt.Println(f.Contains([]byte("patent-42")), f.Count([]byte("patent-42")) >= 1)
	s := f.Stats()
	fmt.Printf("first level %d bits, counters %d bits, idle %d of %d\n", s.FirstLevelBits, s.CounterBits, s.IdleBits, s.BudgetBits)
	fmt.Printf("formula FP: ACBF_opt %.2e, CBF %.2e\n", f.FPP(), cbf.FPP(m, n, k))
	// The filter is full: one more key does not fit.
	err = f.Add([]byte("one too many"))
	fmt.Println(errors.Is(err, acbf.ErrFull))
	// Output:
	// true true
	// first level 29000 bits, counters 3000 bits, idle 0 of 32000
	// formula FP: ACBF_opt 9.49e-04, CBF 3.06e-02
	// true
}

// Build constructs the filter for a whole key set at once, as the join's build
// phase does; the result is the filter that adding the keys one by one gives.
func ExampleBuild() {
	keys := [][]byte{[]byte("3858241"), []byte("3858242"), []byte("3858241")}
	cfg := acbf.ConfigJ(2, 64, 3, 4) // ACBF_2: first level of 2m bits
	f, err := acbf.Build(cfg, keys)
	if err != nil {
		panic(err)
	}
	g, _ := acbf.New(cfg)
	for _, key := range keys {
		g.Add(key)
	}
	fmt.Println(f.Equal(g), f.Len(), f.Count([]byte("3858241")) >= 2)
	// Output: true 3 true
}

// Removing a key decrements its counters; removing a key that was never added
// fails and changes nothing.
func ExampleFilter_Remove() {
	f, _ := acbf.New(acbf.ConfigOptimal(800, 100, 3))
	f.Add([]byte("a"))
	fmt.Println(f.Remove([]byte("a")))
	err := f.Remove([]byte("a"))
	fmt.Println(errors.Is(err, acbf.ErrNotMember), f.Len())
	// Output:
	// <nil>
	// true 0
}

// A filter travels as bytes, as the join broadcasts it to map workers.
func ExampleFilter_WriteTo() {
	f, _ := acbf.New(acbf.ConfigOptimal(800, 100, 3))
	f.Add([]byte("a"))
	var buf bytes.Buffer
	n, _ := f.WriteTo(&buf)
	var g acbf.Filter
	if _, err := g.ReadFrom(&buf); err != nil {
		panic(err)
	}
	fmt.Println(n, g.Contains([]byte("a")), g.Equal(f))
	// Output: 436 true true
}
