package nber

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
)

// TestKeysNested: keys --from writes every column of the records it
// samples, so a table with a nested column (list, struct, map) is refused
// at open, naming the file and the column, and the file without it is
// sampled.
func TestKeysNested(t *testing.T) {
	n, f := columnartest.Nested(10)
	defer n.Release()
	defer f.Release()
	dir := t.TempDir()
	nf := columnartest.Write(t, dir, "nested", n, 4, false)
	ff := columnartest.Write(t, dir, "flat", f, 4, false)
	for _, path := range []string{nf.Parquet, nf.ArrowFile} {
		_, err := ExtractKeysContext(t.Context(), path, new(bytes.Buffer), KeysOptions{Sample: 5})
		var ne *columnar.NestedError
		if !errors.As(err, &ne) || ne.Column != "tags" || !strings.Contains(err.Error(), "nested.") || !strings.Contains(err.Error(), "write the file without it") {
			t.Errorf("%s: %v", path, err)
		}
		if testing.Verbose() {
			t.Log(err)
		}
	}
	var out bytes.Buffer
	if _, err := ExtractKeysContext(t.Context(), ff.Parquet, &out, KeysOptions{Sample: 5}); err != nil || !strings.HasPrefix(out.String(), "K,P,Q\n") {
		t.Errorf("flat: %v %q", err, out.String())
	}
}
