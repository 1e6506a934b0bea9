package source_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
)

// ExampleOpenPair opens a join's two sides, a CSV key file and a JSON
// lines large side, and prints the key columns found and the key type
// decided from the data.
func ExampleOpenPair() {
	dir, _ := os.MkdirTemp("", "source")
	defer os.RemoveAll(dir)
	keys := filepath.Join(dir, "keys.csv")
	input := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(keys, []byte("id,name\n1,one\n2,two\n"), 0o644)
	os.WriteFile(input, []byte(`{"ref":2,"n":"b"}`+"\n"+`{"ref":3,"n":"c"}`+"\n"), 0o644)

	opt, err := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "id", JoinCol: "ref"}}.Resolve()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := source.OpenPair(context.Background(), opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	fmt.Println(p.Keys.Header, p.Input.Header, p.KeySpec.Cols, p.JoinSpec.Cols, p.Typing.Types)
	// Output: [id name] [ref n] [0] [0] [int]
}
