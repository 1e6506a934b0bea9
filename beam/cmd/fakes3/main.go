// Command fakes3 serves an S3-compatible store on loopback, for
// bench/beam.sh and for trying beamjoin's s3:// sides and outputs without
// a cloud account: gofakes3 with its afero file-system backend, which keeps
// the objects of bucket B under DIR/buckets/B and their metadata under
// DIR/metadata. With -load SRC, each folder of SRC becomes a bucket and the
// files under it its objects (put through the store, which records their
// metadata) before it serves. It prints the endpoint's URL on its first line
// of standard output, then serves until stopped.
//
//	go run ./cmd/fakes3 -dir /tmp/store -load /tmp/src &   # /tmp/src/data/keys.txt is s3://data/keys.txt
//	AWS_ENDPOINT_URL=http://127.0.0.1:PORT AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x \
//	  go run ./cmd/beamjoin --keys s3://data/keys.txt --input s3://data/cite75_99.txt --out s3://data/out/joined.csv
//
// It checks no signature: a test server, never a store for real data.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3afero"
	"github.com/spf13/afero"
)

func main() {
	dir := flag.String("dir", "", "the store's folder (required; made if missing)")
	load := flag.String("load", "", "a folder whose folders are put in the store as buckets, their files as objects")
	addr := flag.String("addr", "127.0.0.1:0", "the address to listen on (port 0: any free one)")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: fakes3 -dir FOLDER [-load FOLDER] [-addr HOST:PORT]")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	backend, err := s3afero.MultiBucket(afero.NewBasePathFs(afero.NewOsFs(), *dir))
	if err != nil {
		log.Fatal(err)
	}
	if *load != "" {
		if err := loadDir(backend, *load); err != nil {
			log.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	srv := &http.Server{Handler: gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server(), ErrorLog: log.New(io.Discard, "", 0)}
	log.Fatal(srv.Serve(ln))
}

// loadDir puts src's folders as buckets and their files as objects.
func loadDir(b gofakes3.Backend, src string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == src {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		bucket, key, inBucket := strings.Cut(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if !inBucket {
				if err := b.CreateBucket(bucket); err != nil && !gofakes3.HasErrorCode(err, gofakes3.ErrBucketAlreadyExists) {
					return fmt.Errorf("bucket %s: %w", bucket, err)
				}
			}
			return nil
		}
		if !inBucket {
			return fmt.Errorf("%s: a file outside the buckets' folders", path)
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		_, err = b.PutObject(bucket, key, map[string]string{}, f, st.Size(), nil)
		return err
	})
}
