package beamjoin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/acbfjoin/acbfjoin/beam/fsys"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// TestMemfs runs the pipeline on sides in Beam's in-memory file system
// (memfs://, read by the launcher and the workers through package fsys):
// Parquet keys against a folder of Parquet parts and a glob of Arrow IPC
// parts, the output written as shards (fsys.Sharding); the shards hold the
// rows join run writes from the same files on the local disk, each shard
// with the header, and nothing else is left beside them.
func TestMemfs(t *testing.T) {
	krows, irows := tableRows()
	dir := t.TempDir()
	kr := columnartest.Record(t, []string{"K", "P"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, krows)
	defer kr.Release()
	kf := columnartest.Write(t, dir, "keys", kr, 16, true)
	put := func(name, file string) {
		b, err := os.ReadFile(file)
		testutil.Check(t, err)
		memfs.Write(name, b)
	}
	put("memfs://t/keys.parquet", kf.Parquet)
	whole := columnartest.Record(t, []string{"ID", "K"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}, irows)
	defer whole.Release()
	wf := columnartest.Write(t, dir, "input", whole, 64, false)
	for i, rows := range [][][]*string{irows[:150], irows[150:151], irows[151:]} {
		rec := columnartest.Record(t, []string{"ID", "K"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}, rows)
		fs := columnartest.Write(t, t.TempDir(), fmt.Sprint("part-", i), rec, 64, false)
		rec.Release()
		put(fmt.Sprintf("memfs://t/pq/part-%d.parquet", i), fs.Parquet)
		put(fmt.Sprintf("memfs://t/arrow/part-%d.arrow", i), fs.ArrowFile)
	}
	memfs.Write("memfs://t/pq/_SUCCESS", nil)
	for _, c := range []struct {
		input string
		jt    join.JoinType
	}{{"memfs://t/pq", join.JoinInner}, {"memfs://t/arrow/part-*.arrow", join.JoinLeft}} {
		t.Run(c.input, func(t *testing.T) {
			var want bytes.Buffer
			keying := join.Keying{KeyCol: "K", JoinCol: "K"}
			if _, err := local.Run(context.Background(), join.Options{Sides: join.Sides{Keys: kf.Parquet, Input: wf.Parquet}, Keying: keying, JoinType: c.jt}, local.NewCSV(&want)); err != nil {
				t.Fatal(err)
			}
			sh, err := fsys.NewSharding("memfs://t/out-"+string(c.jt)+"/joined.csv", 3)
			testutil.Check(t, err)
			opt := Options{Sides: join.Sides{Keys: "memfs://t/keys.parquet", Input: c.input}, Keying: keying, JoinType: c.jt, Filter: filters.ACBF, Shards: &sh}
			testutil.Check(t, sh.Begin(context.Background()))
			_, kh, ih, err := Execute(context.Background(), opt, prism.Execute)
			testutil.Check(t, err)
			h, err := OutputHeader(opt, kh, ih)
			testutil.Check(t, err)
			names, err := sh.Commit(context.Background(), h.Line)
			testutil.Check(t, err)
			fs, err := filesystem.New(context.Background(), "memfs://t/")
			testutil.Check(t, err)
			var all []string
			for _, depth := range []string{"/*", "/*/*"} { // the temporary folder's files are one level down
				l, err := fs.List(context.Background(), "memfs://t/out-"+string(c.jt)+depth)
				testutil.Check(t, err)
				all = append(all, l...)
			}
			if !slices.Equal(all, names) || len(names) != 3 {
				t.Fatalf("the output's folder holds %q, want the shards %q alone", all, names)
			}
			var got []string
			for _, n := range names {
				rc, err := fs.OpenRead(context.Background(), n)
				testutil.Check(t, err)
				b, err := io.ReadAll(rc)
				testutil.Check(t, err)
				if !bytes.HasPrefix(b, h.Line) {
					t.Errorf("%s begins %q, want the header %q", n, b[:min(len(b), 40)], h.Line)
				}
				got = append(got, rowsOf(t, b, true)...)
			}
			slices.Sort(got)
			if w := rowsOf(t, want.Bytes(), true); len(w) < 100 || !slices.Equal(got, w) {
				t.Fatalf("%d rows from memfs, want join run's %d: %s", len(got), len(w), testutil.FirstDiff(got, w))
			}
			if !strings.HasPrefix(string(h.Line), "ID,K,P") {
				t.Errorf("header %q", h.Line)
			}
		})
	}
}
