package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/option"
)

// TestGen: each dataset writes its files and says so; an option of another
// dataset, an unknown dataset and a value out of range are option.Errors
// naming the field, before anything is written.
func TestGen(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		o     Options
		files []string
	}{
		{Options{Dataset: "nber", Scale: 0.0005, Seed: 1}, []string{"cite75_99.txt", "apat63_99.txt"}},
		{Options{Dataset: "imdb-ratings", Rows: 50, Given: map[string]bool{"Rows": true}}, []string{"title.ratings.tsv"}},
		{Options{Dataset: "triples", Rows: 30, Domain: 3, Given: map[string]bool{"Rows": true, "Domain": true}}, []string{"triples.csv"}},
		{Options{Dataset: "ipstream", Rows: 200, Distinct: 50, Given: map[string]bool{"Rows": true, "Distinct": true}}, []string{"ipstream.csv", "ipstream.events"}},
		{Options{Dataset: "semijoin", Rows: 100, Keys: 10, Selectivity: 0.5, Shape: "string", Given: map[string]bool{"Rows": true, "Keys": true, "Selectivity": true, "Shape": true}}, []string{"keys.csv", "input.csv"}},
	} {
		out := filepath.Join(dir, c.o.Dataset)
		text, err := Gen(context.Background(), out, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.o.Dataset, err)
		}
		for _, f := range c.files {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil || !strings.Contains(text, f) {
				t.Errorf("%s: %s: %v; said %q", c.o.Dataset, f, err, text)
			}
		}
	}
	for _, c := range []struct {
		o    Options
		name string
	}{
		{Options{Dataset: "nber", Given: map[string]bool{"Rows": true}}, "Rows"},
		{Options{Dataset: "parquet"}, "Dataset"},
		{Options{Dataset: "triples", Rows: -1, Given: map[string]bool{"Rows": true}}, "Rows"},
		{Options{Dataset: "ipstream", Live: 0, Given: map[string]bool{"Live": true}}, "Live"},
		{Options{Dataset: "semijoin", Shape: "", Given: map[string]bool{"Shape": true}}, "Shape"},
		{Options{Dataset: "semijoin", Given: map[string]bool{"Distinct": true}}, "Distinct"},
	} {
		out := filepath.Join(dir, "refused")
		_, err := Gen(context.Background(), out, c.o)
		var oe *option.Error
		if !errors.As(err, &oe) || oe.Name != c.name {
			t.Errorf("%+v: %v, want an option.Error naming %s", c.o, err, c.name)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%+v: a refused run wrote %s", c.o, out)
		}
	}
}
