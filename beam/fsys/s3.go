package fsys

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// s3FS is Beam's file system interface over S3 and S3-compatible stores,
// registered for s3:// in place of Beam's own filesystem/s3, which reads no
// ranges, panics when the AWS configuration cannot be loaded and addresses
// buckets by host name only (no MinIO or test server on an address). The
// configuration is the AWS SDK's standard one: AWS_REGION,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ..., and
// AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3) for another endpoint, which
// then is addressed path-style (http://host/bucket/key), as S3-compatible
// servers need.
type s3FS struct {
	client *s3.Client
	err    error // the configuration's error: every call returns it
}

// s3Clients holds a client for each configuration seen (the environment's
// endpoint, region and key), so that the many filesystem.New calls of a
// pipeline load the configuration once.
var s3Clients sync.Map // string -> *s3.Client

// newS3 is the s3 file system's constructor for filesystem.Register: a
// client for the environment's configuration, loaded once (s3Clients);
// a configuration that cannot load makes every call its error.
func newS3(ctx context.Context) filesystem.Interface {
	id := strings.Join([]string{os.Getenv("AWS_ENDPOINT_URL"), os.Getenv("AWS_ENDPOINT_URL_S3"), os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"), os.Getenv("AWS_PROFILE"), os.Getenv("AWS_ACCESS_KEY_ID")}, "\x00")
	if c, ok := s3Clients.Load(id); ok {
		return &s3FS{client: c.(*s3.Client)}
	}
	// The configuration's own logger is the credential providers' (the
	// EC2 metadata service's "falling back to IMDSv1" WARN broke the
	// one-line error): silent, its errors returned and worded by s3Err.
	cfg, err := config.LoadDefaultConfig(context.WithoutCancel(ctx), config.WithLogger(logging.Nop{}))
	if err != nil {
		return &s3FS{err: fmt.Errorf("the AWS configuration: %w", err)}
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if o.BaseEndpoint != nil || os.Getenv("AWS_ENDPOINT_URL_S3") != "" {
			o.UsePathStyle = true
		}
		// A checksum on every request and response only where S3
		// requires one: S3-compatible servers do not all compute them.
		// The SDK's own log lines (a WARN when a stopped request's body
		// cannot be drained) would break the one-line error: its errors
		// are returned, and worded by s3Err.
		o.Logger = logging.Nop{}
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	s3Clients.Store(id, c)
	return &s3FS{client: c}
}

// parseS3 splits s3://bucket/key. The key is the text after the bucket's
// slash as it is: no URL decoding, no query or fragment (a key may hold
// ?, # and %). An empty bucket or an empty element of the key (//) is
// refused.
func parseS3(name string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(name, "s3://")
	if !ok {
		return "", "", fmt.Errorf("%s: not an S3 URL (s3://bucket/key)", name)
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%s: no bucket (s3://bucket/key)", name)
	}
	if strings.Contains(key, "//") || strings.HasPrefix(key, "/") {
		return "", "", fmt.Errorf("%s: an empty folder name (//) in the key", name)
	}
	return bucket, key, nil
}

// s3Err words err of op on name in one line: the service's code and
// message and the HTTP status, wrapping fs.ErrNotExist for 404 and
// fs.ErrPermission for 403 (the SDK's error spans request ids and hosts).
func s3Err(name string, err error) error {
	// No credentials: the SDK's identity lookup failed before any request
	// to S3 (it says so only in words: "get identity: failed to refresh
	// cached credentials, ..."); a status in its chain is the metadata
	// service's, not the object's (a review found it said "permission
	// denied (HTTP 403)" of the object).
	if msg := err.Error(); strings.Contains(msg, "get identity: ") || strings.Contains(msg, "failed to refresh cached credentials") {
		return fmt.Errorf("%s: no AWS credentials found (give AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a role): %s", name, credentialCause(msg))
	}
	var api smithy.APIError
	var status interface{ HTTPStatusCode() int }
	code := 0
	if errors.As(err, &status) {
		code = status.HTTPStatusCode()
	}
	var kind error
	switch code {
	case 404:
		kind = fs.ErrNotExist
	case 403:
		kind = fs.ErrPermission
	}
	if errors.As(err, &api) {
		msg := api.ErrorMessage()
		if msg == "" {
			msg = api.ErrorCode()
		}
		if kind != nil {
			return fmt.Errorf("%s: %w: %s (%s, HTTP %d)", name, kind, msg, api.ErrorCode(), code)
		}
		return fmt.Errorf("%s: %s (%s, HTTP %d)", name, msg, api.ErrorCode(), code)
	}
	if kind != nil {
		return fmt.Errorf("%s: %w (HTTP %d)", name, kind, code)
	}
	var oe *smithy.OperationError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Close is filesystem.Interface's: the client is shared (s3Clients).
func (f *s3FS) Close() error { return nil }

// List is filesystem.Interface's: the keys that match a glob (path.Match,
// * not crossing a /); a pattern ending in / lists every key under it.
func (f *s3FS) List(ctx context.Context, glob string) ([]string, error) {
	if f.err != nil {
		return nil, f.err
	}
	bucket, pattern, err := parseS3(glob)
	if err != nil {
		return nil, err
	}
	prefix, all := pattern, strings.HasSuffix(pattern, "/") || pattern == ""
	if i := strings.IndexAny(pattern, "*?[\\"); i >= 0 {
		prefix = pattern[:i]
	}
	p := s3.NewListObjectsV2Paginator(f.client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	var out []string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s3Err("s3://"+bucket, err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			ok := all
			if !all {
				if ok, err = path.Match(pattern, k); err != nil {
					return nil, fmt.Errorf("%s: %w", glob, err)
				}
			}
			if ok {
				out = append(out, "s3://"+bucket+"/"+k)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// OpenRead reads the whole object: one GET.
func (f *s3FS) OpenRead(ctx context.Context, name string) (io.ReadCloser, error) {
	return f.OpenRange(ctx, name, 0, -1)
}

// OpenRange reads n bytes of name from off (n < 0: to its end) with one
// ranged GET.
func (f *s3FS) OpenRange(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	if f.err != nil {
		return nil, f.err
	}
	bucket, key, err := parseS3(name)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return io.NopCloser(strings.NewReader("")), nil
	}
	in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if off > 0 || n > 0 {
		r := fmt.Sprintf("bytes=%d-", off)
		if n > 0 {
			r += fmt.Sprint(off + n - 1)
		}
		in.Range = aws.String(r)
	}
	out, err := f.client.GetObject(ctx, in)
	if err != nil {
		return nil, s3Err(name, err)
	}
	return &s3Body{rc: out.Body, name: name}, nil
}

// s3Body is an object's body whose read errors name the object.
type s3Body struct {
	rc   io.ReadCloser
	name string
}

func (b *s3Body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		err = remote.Named("read", b.name, err)
	}
	return n, err
}

func (b *s3Body) Close() error { return b.rc.Close() }

// OpenWrite returns a writer whose Close puts the object whole (one PUT of
// a local temporary file, which the SDK can sign and retry; at most 5 GiB,
// S3's limit of one PUT): an object is never seen half written.
func (f *s3FS) OpenWrite(ctx context.Context, name string) (io.WriteCloser, error) {
	if f.err != nil {
		return nil, f.err
	}
	bucket, key, err := parseS3(name)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", "beamjoin-s3-put-*")
	if err != nil {
		return nil, err
	}
	return &s3Writer{ctx: ctx, f: f, name: name, bucket: bucket, key: key, tmp: tmp}, nil
}

// s3Writer buffers an object in a temporary file until Close.
type s3Writer struct {
	ctx               context.Context
	f                 *s3FS
	name, bucket, key string
	tmp               *os.File
}

// Write adds p to the temporary file.
func (w *s3Writer) Write(p []byte) (int, error) { return w.tmp.Write(p) }

// Close puts the object; Abort drops it.
func (w *s3Writer) Close() error {
	defer w.Abort()
	size, err := w.tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if size > 5<<30 {
		return fmt.Errorf("%s: %d bytes, more than one PUT takes (5 GiB): write more shards", w.name, size)
	}
	if _, err := w.tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = w.f.client.PutObject(w.ctx, &s3.PutObjectInput{Bucket: aws.String(w.bucket), Key: aws.String(w.key), Body: w.tmp, ContentLength: aws.Int64(size)})
	if err != nil {
		return s3Err(w.name, err)
	}
	return nil
}

// Abort removes the temporary file; nothing is put.
func (w *s3Writer) Abort() {
	if w.tmp != nil {
		w.tmp.Close()
		os.Remove(w.tmp.Name())
		w.tmp = nil
	}
}

// head is one HEAD of the object.
func (f *s3FS) head(ctx context.Context, name string) (*s3.HeadObjectOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	bucket, key, err := parseS3(name)
	if err != nil {
		return nil, err
	}
	if key == "" { // a bucket's root is no object (S3 refuses a HEAD of no key): a folder, if anything
		return nil, fmt.Errorf("%s: %w: a bucket, no object", name, fs.ErrNotExist)
	}
	out, err := f.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, s3Err(name, err)
	}
	return out, nil
}

// Size is the object's length: one HEAD.
func (f *s3FS) Size(ctx context.Context, name string) (int64, error) {
	out, err := f.head(ctx, name)
	if err != nil {
		return -1, err
	}
	return aws.ToInt64(out.ContentLength), nil
}

// LastModified is the object's modification time (to the second): one HEAD.
func (f *s3FS) LastModified(ctx context.Context, name string) (time.Time, error) {
	out, err := f.head(ctx, name)
	if err != nil {
		return time.Time{}, err
	}
	return aws.ToTime(out.LastModified), nil
}

// version is a number that changes when the object is written again:
// its ETag (a hash of its bytes, or of a multipart upload's parts) mixed
// with its modification time, which S3 keeps to the second only.
func (f *s3FS) version(ctx context.Context, name string) (size, version int64, err error) {
	out, err := f.head(ctx, name)
	if err != nil {
		return -1, 0, err
	}
	h := fnv.New64a()
	h.Write([]byte(aws.ToString(out.ETag)))
	return aws.ToInt64(out.ContentLength), aws.ToTime(out.LastModified).UnixNano() ^ int64(h.Sum64()), nil
}

// Remove deletes the object: one DELETE (S3 answers a missing one alike).
func (f *s3FS) Remove(ctx context.Context, name string) error {
	if f.err != nil {
		return f.err
	}
	bucket, key, err := parseS3(name)
	if err != nil {
		return err
	}
	if _, err := f.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		return s3Err(name, err)
	}
	return nil
}

// Copy copies an object in the store (a server-side copy: no bytes pass
// through this process).
func (f *s3FS) Copy(ctx context.Context, from, to string) error {
	if f.err != nil {
		return f.err
	}
	fb, fk, err := parseS3(from)
	if err != nil {
		return err
	}
	tb, tk, err := parseS3(to)
	if err != nil {
		return err
	}
	src := fb + "/" + (&url.URL{Path: fk}).EscapedPath()
	if _, err := f.client.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(tb), Key: aws.String(tk), CopySource: aws.String(src)}); err != nil {
		return s3Err(to, err)
	}
	return nil
}

var (
	_ filesystem.LastModifiedGetter = (*s3FS)(nil)
	_ filesystem.Remover            = (*s3FS)(nil)
	_ filesystem.Copier             = (*s3FS)(nil)
)

// credentialCause is the last part of the SDK's credential error text: what
// the last provider tried said, without the chain of wrappers before it.
func credentialCause(msg string) string {
	if i := strings.LastIndex(msg, "failed to refresh cached credentials, "); i >= 0 {
		msg = msg[i+len("failed to refresh cached credentials, "):]
	}
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}
