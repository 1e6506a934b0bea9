package bank_test

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/filters"
)

// A bank of one Bloom filter a class, each sized for its own keys at 1%:
// a key is looked up in the classes it may be in.
func Example() {
	cl, _ := bank.ParseClassing("value")
	b, err := bank.Build(bank.Meta{Kind: filters.Bloom, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "title", ClassCol: "rating",
		KeyType: "string", Classing: cl}, []bank.ClassKeys{
		{Label: "7", Keys: bank.SetOf([][]byte{[]byte("tt0000001"), []byte("tt0000002")})},
		{Label: "9", Keys: bank.SetOf([][]byte{[]byte("tt0000003")})},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, label := range b.Labels() {
		c := b.Class(label)
		fmt.Printf("class %s: %d keys, tt0000003 %v\n", label, c.Built.N, c.Built.Filter.Contains([]byte("tt0000003")))
	}
	// Output:
	// class 7: 2 keys, tt0000003 false
	// class 9: 1 keys, tt0000003 true
}
