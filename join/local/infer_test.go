package local

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/datasets"
	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
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
		d, err := source.DecideKeyTypes(ctx, join.Options{Sides: join.Sides{Keys: c.keys, Input: c.keys}, Keying: join.Keying{KeyCol: c.col, JoinCol: c.col}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.Types[0] != c.want || !d.Lenient {
			t.Errorf("%s: %v (%s), want %s", c.name, d.Types, d.Why[0], c.want)
		}
	}
}

// TestInferCompressedKeys: a compressed key side (.gz, .zip), a regular
// file read whole, is read again to infer its key type (it was refused as
// a stream that should have been saved to a file), in Run, Compare and
// ReadKeySet alike.
func TestInferCompressedKeys(t *testing.T) {
	dir := t.TempDir()
	text := []byte("K,PAY\n1,a\n2,b\n\"\",q\n,r\n3,c\n")
	gz := filepath.Join(dir, "k.csv.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(text)
	zw.Close()
	os.WriteFile(gz, b.Bytes(), 0o644)
	zp := filepath.Join(dir, "k.zip")
	b.Reset()
	z := zip.NewWriter(&b)
	w, _ := z.Create("k.csv")
	w.Write(text)
	z.Close()
	os.WriteFile(zp, b.Bytes(), 0o644)
	input := filepath.Join(dir, "i.csv")
	os.WriteFile(input, []byte("ID,K\n10,1\n11,2\n12,\n13,\"\"\n14,4\n15,1\n"), 0o644)
	for _, keys := range []string{gz, zp} {
		opt := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}, Resources: join.Resources{TempDir: dir}}
		rep, out := runJoin(t, opt)
		if string(out) != "ID,K,PAY\n10,1,a\n15,1,a\n11,2,b\n" || !strings.HasPrefix(rep.Keys.Why[0], "inferred") || rep.Keys.KeysNull != 2 {
			t.Errorf("%s: key type %v, %d NULL keys, output %q", keys, rep.Keys.Why, rep.Keys.KeysNull, out)
		}
		if _, err := Compare(context.Background(), opt, []filters.Kind{filters.Exact}, 1); err != nil {
			t.Errorf("%s: Compare: %v", keys, err)
		}
	}
}
