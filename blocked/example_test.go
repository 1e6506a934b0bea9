package blocked_test

import (
	"bytes"
	"fmt"

	"github.com/acbfjoin/acbfjoin/blocked"
)

// A filter for 1000 keys at 10 bits per key, with the k that is best for a
// blocked filter at that density.
func Example() {
	const n, bitsPerKey = 1000, 10
	f, err := blocked.New(n*bitsPerKey, blocked.OptimalK(bitsPerKey))
	if err != nil {
		panic(err)
	}
	for i := range n {
		f.Add(fmt.Appendf(nil, "patent-%d", i))
	}
	fmt.Println(f.Bits(), f.K(), f.Len())
	fmt.Println(f.Contains([]byte("patent-42")))
	fmt.Printf("FPP %.2e\n", f.FPP())
	// Output:
	// 10240 6 1000
	// true
	// FPP 8.70e-03
}

// ContainsBatch answers many queries at once, as Contains would.
func ExampleFilter_ContainsBatch() {
	f, _ := blocked.New(4096, 6)
	f.Add([]byte("x"))
	f.Add([]byte("y"))
	keys := [][]byte{[]byte("x"), []byte("y"), []byte("never added")}
	out := make([]bool, len(keys))
	f.ContainsBatch(keys, out)
	fmt.Println(out)
	// Output: [true true false]
}

func ExampleFilter_WriteTo() {
	f, _ := blocked.New(1000, 6)
	f.Add([]byte("x"))
	var buf bytes.Buffer
	n, _ := f.WriteTo(&buf)
	var g blocked.Filter
	g.ReadFrom(&buf)
	fmt.Println(n, g.Equal(f), g.Contains([]byte("x")))
	// Output: 160 true true
}
