package filters_test

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/filters"
)

// A filter of any kind, by its name: built over the keys for a target
// rate, shipped as bytes, decoded on the other side.
func Example() {
	keys := [][]byte{[]byte("apple"), []byte("pear"), []byte("plum")}
	b, err := filters.Build("fuse", keys, filters.Sizing{FPP: 0.01})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := b.Marshal() // what a broadcast ships
	f, err := filters.Decode(b.Kind(), data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Spell(), len(data), "bytes, formula FP", b.FPP)
	fmt.Println(f.Contains([]byte("pear")))
	// Output:
	// fuse(f=8,slots=24) 60 bytes, formula FP 0.00390625
	// true
}

// Every kind sized for a million keys at 1%: its memory and its
// parameters, nothing built.
func ExampleSpec_Size() {
	for _, name := range []string{"bloom", "blocked", "cuckoo", "fuse"} {
		sp, _ := filters.Lookup(name)
		p, err := sp.Size(1_000_000, filters.Sizing{FPP: 0.01})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %.1f bits a key, %s\n", name, float64(p.Summary().MemoryBits)/1e6, p)
	}
	// Output:
	// bloom: 9.6 bits a key, bloom(m=9592956,k=7)
	// blocked: 9.9 bits a key, blocked(m=9918464,k=6)
	// cuckoo: 10.5 bits a key, cuckoo(b=4,f=10,slots=1052632)
	// fuse: 9.0 bits a key, fuse(f=8,slots=1130496)
}
