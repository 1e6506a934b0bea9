package fsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"cloud.google.com/go/storage"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/gcsx"
	"google.golang.org/api/option"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// gs:// is Beam's GCS file system (registered by beamx), which lists,
// writes, copies and removes objects but opens none by range. The reads of
// the sides go through a storage client of this package's instead: a
// range is one request (NewRangeReader), and an object's version is its
// generation. The client takes the standard configuration
// (GOOGLE_APPLICATION_CREDENTIALS, the metadata server, and
// STORAGE_EMULATOR_HOST for an emulator), unauthenticated when there are no
// credentials, as Beam's does.
var gcs struct {
	once   sync.Once
	client *storage.Client
	err    error
}

func gcsClient() (*storage.Client, error) {
	gcs.once.Do(func() {
		ctx := context.Background()
		gcs.client, gcs.err = storage.NewClient(ctx)
		if gcs.err != nil {
			gcs.client, gcs.err = storage.NewClient(ctx, option.WithoutAuthentication())
		}
	})
	return gcs.client, gcs.err
}

// gcsObject returns the handle of the object name (gs://bucket/object).
func gcsObject(name string) (*storage.ObjectHandle, error) {
	bucket, object, err := gcsx.ParseObject(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c, err := gcsClient()
	if err != nil {
		return nil, fmt.Errorf("%s: the GCS client: %w", name, err)
	}
	return c.Bucket(bucket).Object(object), nil
}

// gcsErr names the object, and marks a missing one fs.ErrNotExist.
func gcsErr(name string, err error) error {
	if errors.Is(err, storage.ErrObjectNotExist) || errors.Is(err, storage.ErrBucketNotExist) {
		return fmt.Errorf("%s: %w (%v)", name, fs.ErrNotExist, err)
	}
	return remote.Named("read", name, err)
}

func gcsStat(ctx context.Context, name string) (remote.Info, error) {
	o, err := gcsObject(name)
	if err != nil {
		return remote.Info{}, err
	}
	a, err := o.Attrs(ctx)
	if err != nil {
		return remote.Info{}, gcsErr(name, err)
	}
	return remote.Info{Size: a.Size, MTime: a.Generation}, nil
}

func gcsOpenRange(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	o, err := gcsObject(name)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		n = -1
	}
	r, err := o.ReadCompressed(true).NewRangeReader(ctx, off, n)
	if err != nil {
		return nil, gcsErr(name, err)
	}
	return r, nil
}
