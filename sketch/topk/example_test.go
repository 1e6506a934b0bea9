package topk_test

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/sketch/topk"
)

// The heavy hitters of a stream: the two hottest join keys among many.
func Example() {
	s, err := topk.New(topk.ForMemory(2, 16<<10))
	if err != nil {
		panic(err)
	}
	for i := range 1000 {
		s.Add(fmt.Appendf(nil, "cold-%d", i), 1)
		if i%2 == 0 {
			s.Add([]byte("hot-a"), 1)
		}
		if i%4 == 0 {
			s.Add([]byte("hot-b"), 1)
		}
	}
	for _, it := range s.Top() {
		fmt.Printf("%s %d\n", it.Key, it.Count)
	}
	fmt.Println(s.Count([]byte("hot-a")), s.MemoryBytes() <= 16<<10)
	// Output:
	// hot-a 500
	// hot-b 250
	// 500 true
}

// Summaries built in parallel, one per worker, combine with Merge; a count-min
// heap merges exactly.
func ExampleCMSHeap_Merge() {
	c := topk.CMSForMemory(1, 8<<10)
	a, _ := topk.NewCMSHeap(c)
	b, _ := topk.NewCMSHeap(c)
	a.Add([]byte("x"), 3)
	b.Add([]byte("x"), 4)
	b.Add([]byte("y"), 5)
	if err := a.Merge(b); err != nil {
		panic(err)
	}
	top := a.Top()
	fmt.Printf("%s %d %d\n", top[0].Key, top[0].Count, a.Count([]byte("y")))
	// Output: x 7 5
}
