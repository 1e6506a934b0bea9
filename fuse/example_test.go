package fuse_test

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/fuse"
)

// A binary fuse filter of 8-bit fingerprints: every key built in is found,
// another passes with probability 2^-8.
func Example() {
	keys := [][]byte{[]byte("apple"), []byte("pear"), []byte("plum"), []byte("quince")}
	f, err := fuse.Build(keys, 8)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Contains([]byte("plum")), f.Len(), f.Slots(), fuse.FPP(8))
	// Output: true 4 24 0.00390625
}
