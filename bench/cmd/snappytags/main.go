// Command snappytags times the Snappy decoding of one data page of each
// column of a Parquet file's row group and counts the page's tags
// (bench/parquet-why.md: why the twins' key column decodes at 1.7 GB/s).
// A measuring tool, not part of the join: it finds a column chunk's page
// body as the first offset after the chunk's start that holds a whole
// Snappy block of 100 KB to 2 MB (the page header before it is a few
// dozen bytes of Thrift), which holds for the single-page chunks DuckDB
// writes and is checked by decoding it.
//
//	go run ./bench/cmd/snappytags bench/out/data/parquet/cite75_99.parquet [ROW_GROUP]
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/klauspost/compress/s2"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: snappytags FILE.parquet [ROW_GROUP]")
		os.Exit(2)
	}
	g := 1
	if len(os.Args) > 2 {
		var err error
		if g, err = strconv.Atoi(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "snappytags: ROW_GROUP:", err)
			os.Exit(2)
		}
	}
	r, err := file.OpenParquetFile(os.Args[1], false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "snappytags:", err)
		os.Exit(1)
	}
	defer r.Close()
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "snappytags:", err)
		os.Exit(1)
	}
	defer f.Close()
	md := r.RowGroup(g).MetaData()
	for c := 0; c < md.NumColumns(); c++ {
		cc, err := md.ColumnChunk(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "snappytags:", err)
			os.Exit(1)
		}
		off := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < off {
			off = cc.DictionaryPageOffset()
		}
		chunk := make([]byte, cc.TotalCompressedSize())
		if _, err := f.ReadAt(chunk, off); err != nil {
			fmt.Fprintln(os.Stderr, "snappytags:", err)
			os.Exit(1)
		}
		body, n := findBody(chunk)
		if body == nil {
			fmt.Printf("%s: no single Snappy page found (%s)\n", cc.PathInSchema(), cc.Compression())
			continue
		}
		dst := make([]byte, n)
		const reps = 200
		t0 := time.Now()
		for range reps {
			if _, err := s2.Decode(dst, body); err != nil {
				fmt.Fprintln(os.Stderr, "snappytags:", err)
				os.Exit(1)
			}
		}
		el := time.Since(t0) / reps
		lit, litBytes, cp, cpBytes := tags(body)
		fmt.Printf("%s: %d -> %d bytes, %v a decode (%.2f GB/s); %d literals (%.1f bytes each), %d copies (%.1f bytes each): %.2f ns a tag\n",
			cc.PathInSchema(), len(body), n, el, float64(n)/el.Seconds()/1e9,
			lit, float64(litBytes)/float64(max(lit, 1)), cp, float64(cpBytes)/float64(max(cp, 1)), float64(el.Nanoseconds())/float64(max(lit+cp, 1)))
	}
}

// findBody returns the first whole Snappy block of 100 KB to 2 MB decoded
// that starts in chunk's first 300 bytes, and its decoded length.
func findBody(chunk []byte) ([]byte, int) {
	for s := 1; s < min(300, len(chunk)); s++ {
		n, err := s2.DecodedLen(chunk[s:])
		if err != nil || n < 100_000 || n > 2<<20 {
			continue
		}
		for e := len(chunk); e > s && len(chunk)-e <= 64; e-- {
			if _, err := s2.Decode(nil, chunk[s:e]); err == nil {
				return chunk[s:e], n
			}
		}
	}
	return nil, 0
}

// tags counts a Snappy block's literals and copies and the bytes each
// kind makes (the format's tag byte: its low two bits the kind).
func tags(b []byte) (lit, litBytes, cp, cpBytes int) {
	for len(b) > 0 && b[0]&0x80 != 0 { // the decoded length's varint
		b = b[1:]
	}
	if len(b) > 0 {
		b = b[1:]
	}
	for len(b) > 0 {
		t := b[0]
		switch t & 3 {
		case 0:
			x, k := int(t>>2), 1
			if x >= 60 {
				nb := x - 59
				if len(b) < 1+nb {
					return
				}
				x = 0
				for i := range nb {
					x |= int(b[1+i]) << (8 * i)
				}
				k += nb
			}
			x++
			lit, litBytes = lit+1, litBytes+x
			if len(b) < k+x {
				return
			}
			b = b[k+x:]
		case 1:
			cp, cpBytes = cp+1, cpBytes+4+int(t>>2)&7
			b = b[min(2, len(b)):]
		case 2:
			cp, cpBytes = cp+1, cpBytes+1+int(t>>2)
			b = b[min(3, len(b)):]
		default:
			cp, cpBytes = cp+1, cpBytes+1+int(t>>2)
			b = b[min(5, len(b)):]
		}
	}
	return
}
