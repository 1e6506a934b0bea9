package nber

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// FetchFile is one file of the NBER patent data page and what it must contain.
type FetchFile struct {
	Name   string // archive name on the page, e.g. "apat63_99.zip"
	Entry  string // data file inside the archive
	Schema Schema // its header
	Rows   int64  // records after the header
	Size   int64  // bytes of the data file; 0 if not published
	SHA256 string // hex sha256 of the data file; "" if not published
}

// NBERBaseURL is the NBER patent data page.
const NBERBaseURL = "https://data.nber.org/patents/"

// NBERFiles are the two archives the join needs, with the published facts.
var NBERFiles = []FetchFile{
	{Name: "acite75_99.zip", Entry: "cite75_99.txt", Schema: Cite, Rows: CiteRows},
	{Name: "apat63_99.zip", Entry: "apat63_99.txt", Schema: Pat, Rows: PatRows, Size: PatFileBytes, SHA256: PatFileSHA256},
}

// ErrOffline is wrapped by Fetch errors that come from not reaching the server.
var ErrOffline = errors.New("cannot reach the NBER server")

// Fetcher downloads and verifies the NBER archives.
type Fetcher struct {
	BaseURL string       // NBERBaseURL if empty
	Files   []FetchFile  // NBERFiles if nil
	Client  *http.Client // a client with a 10 s connect timeout if nil
	// Log, if set, receives one line per step.
	Log func(format string, args ...any)
}

// Fetch downloads every archive into dir. An archive already in dir that
// verifies is kept. A download goes to NAME.part and resumes from its length
// with an HTTP range request; the archive is renamed into place only after the
// zip checks out (CRC of the entry), the entry has the header, row count, size
// and sha256 expected; a download that fails verification is deleted. Without
// network it fails at once with an error wrapping ErrOffline.
func (f *Fetcher) Fetch(ctx context.Context, dir string) error {
	base, files, client := f.BaseURL, f.Files, f.Client
	if base == "" {
		base = NBERBaseURL
	}
	if files == nil {
		files = NBERFiles
	}
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
		}}
	}
	logf := f.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	for _, ff := range files {
		final := filepath.Join(dir, ff.Name)
		if _, err := os.Stat(final); err == nil {
			if err := verifyArchive(final, ff); err == nil {
				logf("%s: already present and verified", final)
				continue
			} else {
				return fmt.Errorf("fetch: %s exists but does not verify (%v); remove it to download again", final, err)
			}
		}
		part := final + ".part"
		if err := download(ctx, client, base+ff.Name, part, logf); err != nil {
			return err
		}
		if err := verifyArchive(part, ff); err != nil {
			os.Remove(part)
			return fmt.Errorf("fetch: %s: %w (the download was deleted)", ff.Name, err)
		}
		if err := os.Rename(part, final); err != nil {
			return fmt.Errorf("fetch: %w", err)
		}
		logf("%s: verified (%d rows)", final, ff.Rows)
	}
	return nil
}

// download fetches url into part, resuming from part's length.
func download(ctx context.Context, client *http.Client, url, part string, logf func(string, ...any)) error {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := client.Do(req)
	if err != nil {
		var netErr net.Error
		var opErr *net.OpError
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) || errors.As(err, &opErr) || (errors.As(err, &netErr) && netErr.Timeout()) {
			return fmt.Errorf("fetch: %w at %s (%v); without network, generate NBER-shaped data with: join gen --scale 1 --out DIR", ErrOffline, url, err)
		}
		return fmt.Errorf("fetch: %s: %w", url, err)
	}
	defer resp.Body.Close()
	flags := os.O_WRONLY | os.O_CREATE
	switch resp.StatusCode {
	case http.StatusPartialContent:
		flags |= os.O_APPEND
		logf("%s: resuming at byte %d", url, have)
	case http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
	case http.StatusRequestedRangeNotSatisfiable:
		return nil // the part is already complete; verification decides
	default:
		return fmt.Errorf("fetch: %s: HTTP %s", url, resp.Status)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	n, err := io.Copy(out, resp.Body)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// Keep what arrived: the next run resumes from it.
		return fmt.Errorf("fetch: %s: interrupted after %d bytes (run again to resume): %w", url, have+n, err)
	}
	logf("%s: %d bytes", url, have+n)
	return nil
}

// verifyArchive checks that the zip at path holds ff.Entry, intact (zip CRC),
// with ff's header, row count, size and sha256.
func verifyArchive(path string, ff FetchFile) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("not a valid zip archive: %w", err)
	}
	defer zr.Close()
	var entry *zip.File
	for _, e := range zr.File {
		if e.Name == ff.Entry {
			entry = e
		}
	}
	if entry == nil {
		return fmt.Errorf("archive has no %s", ff.Entry)
	}
	rc, err := entry.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	counted := &countingReader{r: io.TeeReader(rc, h)}
	r := csvscan.NewReader(counted, path+":"+ff.Entry)
	if err := ExpectHeader(r, ff.Schema); err != nil {
		return err
	}
	var rows int64
	for r.Next() {
		rows++
	}
	if err := r.Err(); err != nil {
		return err // includes zip.ErrChecksum from a corrupt entry
	}
	if _, err := io.Copy(io.Discard, counted); err != nil {
		return err
	}
	if rows != ff.Rows {
		return fmt.Errorf("%s has %d rows, want %d", ff.Entry, rows, ff.Rows)
	}
	if ff.Size != 0 && counted.n != ff.Size {
		return fmt.Errorf("%s has %d bytes, want %d", ff.Entry, counted.n, ff.Size)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); ff.SHA256 != "" && sum != ff.SHA256 {
		return fmt.Errorf("%s has sha256 %s, want %s", ff.Entry, sum, ff.SHA256)
	}
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
