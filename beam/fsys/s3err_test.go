package fsys

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// httpStatusErr is an error in a chain that carries an HTTP status, as the
// SDK's response errors do (the EC2 metadata service's among them).
type httpStatusErr struct{ code int }

func (e httpStatusErr) Error() string {
	return fmt.Sprintf("http response error StatusCode: %d", e.code)
}
func (e httpStatusErr) HTTPStatusCode() int { return e.code }

// TestS3ErrNoCredentials: a failed credential lookup (whose chain holds
// the EC2 metadata service's 403) is said as no credentials, not as the
// object's "permission denied (HTTP 403)" (a review found that); a 403 of
// S3 itself is still permission denied.
func TestS3ErrNoCredentials(t *testing.T) {
	creds := fmt.Errorf("operation error S3: HeadObject, get identity: failed to refresh cached credentials, no EC2 IMDS role found, operation error ec2imds: GetMetadata, %w", httpStatusErr{403})
	err := s3Err("s3://b/k.csv", creds)
	if msg := err.Error(); !strings.Contains(msg, "s3://b/k.csv: no AWS credentials found") || !strings.Contains(msg, "no EC2 IMDS role found") || errors.Is(err, fs.ErrPermission) || strings.Contains(msg, "\n") {
		t.Errorf("no credentials: %v", err)
	}
	if err := s3Err("s3://b/k.csv", fmt.Errorf("operation error S3: HeadObject, %w", httpStatusErr{403})); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("S3's own 403: %v", err)
	}
}

// TestS3BucketRoot: a bucket's root (no key) is no object: a HEAD of it
// is fs.ErrNotExist at once, before any request (S3's SDK refused it with
// "input member Key must not be empty"), so that a side naming it is
// taken as a folder.
func TestS3BucketRoot(t *testing.T) {
	f := &s3FS{} // no client: a request would panic
	for _, name := range []string{"s3://b", "s3://b/"} {
		if _, err := f.head(context.Background(), name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
