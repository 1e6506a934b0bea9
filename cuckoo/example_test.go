package cuckoo_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/acbfjoin/acbfjoin/cuckoo"
)

func Example() {
	fb := cuckoo.FingerprintBitsFor(0.001, cuckoo.DefaultBucketSize)
	f, err := cuckoo.New(1000, cuckoo.DefaultBucketSize, fb)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Buckets(), f.BucketSize(), f.FingerprintBits(), f.Cap(), f.MemoryBits())
	f.Add([]byte("3858241"))
	f.Add([]byte("3858241")) // a multiset: stored twice
	fmt.Println(f.Contains([]byte("3858241")), f.Len())
	fmt.Println(f.Remove([]byte("3858241")), f.Contains([]byte("3858241")))
	fmt.Println(f.Remove([]byte("3858241")), f.Contains([]byte("3858241")))
	err = f.Remove([]byte("never added"))
	fmt.Println(errors.Is(err, cuckoo.ErrNotMember))
	// Output:
	// 264 4 13 1003 13728
	// true 2
	// <nil> true
	// <nil> false
	// true
}

// A full filter refuses the key and stays as it was: no other key is lost.
func ExampleFilter_Add() {
	f, _ := cuckoo.New(100, 4, 16)
	var key [8]byte
	n := 0
	for ; ; n++ {
		key[0], key[1] = byte(n), byte(n>>8)
		if err := f.Add(key[:]); err != nil {
			fmt.Println(errors.Is(err, cuckoo.ErrFull), f.Len() == uint64(n), f.Len() >= f.Cap())
			break
		}
	}
	// Output: true true true
}

// The expected false positive rate at full capacity, and the fingerprint
// length it takes for a target rate.
func ExampleFPP() {
	for _, fb := range []int{8, 12, 16} {
		fmt.Printf("f=%d: %.3g\n", fb, cuckoo.FPP(4, fb, cuckoo.MaxLoad(4, fb)))
	}
	fmt.Println(cuckoo.FingerprintBitsFor(0.01, 4))
	// Output:
	// f=8: 0.0294
	// f=12: 0.00185
	// f=16: 0.000116
	// 10
}

func ExampleFilter_WriteTo() {
	f, _ := cuckoo.New(1000, 4, 16)
	f.Add([]byte("x"))
	var buf bytes.Buffer
	n, _ := f.WriteTo(&buf)
	var g cuckoo.Filter
	g.ReadFrom(&buf)
	fmt.Println(n, g.Equal(f), g.Contains([]byte("x")))
	// Output: 2144 true true
}
