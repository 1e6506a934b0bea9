package local

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/acbfjoin/acbfjoin/datasets"
	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestInferOnDataSets: auto decides the key type every generated data set
// needs: NBER's patents are integers; IMDb's tconst (tt0000019), the
// stream's IPv4 addresses and semijoin's string shape are strings; its
// dense and sparse shapes are integers.
func TestInferOnDataSets(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := func(o datasets.Options, sub string) string {
		out := filepath.Join(dir, sub)
		o.Seed, o.Given = 1, map[string]bool{"Rows": true, "Keys": o.Keys > 0, "Shape": o.Shape != ""}
		if _, err := datasets.Gen(ctx, out, o); err != nil {
			t.Fatalf("%s: %v", sub, err)
		}
		return out
	}
	nb := nbertest.Generate(t, 0.001, 500, 1)
	imdb := gen(datasets.Options{Dataset: "imdb-ratings", Rows: 2000}, "imdb")
	ips := gen(datasets.Options{Dataset: "ipstream", Rows: 2000}, "ips")
	for _, c := range []struct {
		name, keys, col string
		want            key.Type
	}{
		{"nber", nb.Keys, "PATENT", key.Int},
		{"imdb", filepath.Join(imdb, "title.ratings.tsv"), "tconst", key.String},
		{"ipstream", filepath.Join(ips, "ipstream.events"), "IP", key.String},
		{"semijoin dense", filepath.Join(gen(datasets.Options{Dataset: "semijoin", Keys: 100, Rows: 1000, Shape: "dense"}, "dense"), "keys.csv"), "K", key.Int},
		{"semijoin sparse", filepath.Join(gen(datasets.Options{Dataset: "semijoin", Keys: 100, Rows: 1000, Shape: "sparse"}, "sparse"), "keys.csv"), "K", key.Int},
		{"semijoin string", filepath.Join(gen(datasets.Options{Dataset: "semijoin", Keys: 100, Rows: 1000, Shape: "string"}, "string"), "keys.csv"), "K", key.String},
	} {
		d, err := DecideKeyTypes(ctx, join.Options{Keys: c.keys, Input: c.keys, KeyCol: c.col, JoinCol: c.col})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.Types[0] != c.want || !d.Lenient {
			t.Errorf("%s: %v (%s), want %s", c.name, d.Types, d.Why[0], c.want)
		}
	}
}
