// Package triples generates the random triples of seed 001 (a course
// project's "multi-dimension Bloom filter", package mdbf): rows of three
// attributes A, B, C, each an independent random value, as a CSV file or as
// an in-memory stream for experiments that should not go through a file.
//
// # Values
//
// With Domain 0, the seed's values: random.uniform(0, 99999) turned into a
// string by Python's str, that is 99999*u for a uniform u with 53 random
// bits, written as the shortest decimal that reads back as the same float64
// (Python's repr, Go's strconv 'f' with precision -1), always with a point:
// "12345.678901234567", "5.0". Unlike Python, never in exponent form: Python
// writes the values below 1e-4 as "5e-05" (one value in about 10^9), we
// write "0.00005". Nearly every value is distinct (53 random bits).
//
// With Domain D > 0, integers 0..D-1, uniformly, in decimal: data with as
// many duplicates as D makes (the seed's first try, digits 0..9, whose false
// positive rate it found "extremely high": every value was present).
//
// # Format
//
// A header line "A,B,C,ROW", then one line per row with LF line ends: the
// three values and ROW, the 1-based row number, so that every row is
// distinct and a join on (A, B, C) carries a payload.
//
// # Determinism
//
// The values come from one math/rand/v2 PCG generator seeded with Seed (and
// a stream constant of this package): the same Options give byte-identical
// output, and Source with the same seed and domain gives the same values in
// the same order as the file's A, B, C, A, B, C, ... The formatting is
// strconv's, exact on every platform.
//
// # Cost
//
// About 70 ns a value on one core (the shortest-digits formatting); Write
// streams through a 256 KiB buffer in constant memory.
package triples

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"strconv"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// File is the name Generate writes in its folder.
const File = "triples.csv"

// Header is the first line of the file, without its line end.
const Header = "A,B,C,ROW"

// SeedRows is the seed's data set: 10^6 triples.
const SeedRows = 1000000

// SeedMax is the upper end of the seed's values: random.uniform(0, 99999).
const SeedMax = 99999

// MaxRows bounds Rows (far beyond any experiment: 2^40 rows is 60 TB).
const MaxRows = 1 << 40

const (
	stream   = 0x7472697031303031 // "trip1001": the PCG stream of the values
	ctxEvery = 1 << 14            // rows between checks of the context
)

// Options configures Write and Generate.
type Options struct {
	Rows   int    // rows, 1..MaxRows; SeedRows is the seed's
	Seed   uint64 // the values' generator seed
	Domain int    // 0: the seed's decimals in [0, 99999); D > 0: integers 0..D-1
}

func (o Options) check() error {
	switch {
	case o.Rows < 1 || o.Rows > MaxRows:
		return fmt.Errorf("triples: rows %d, want 1..%d", o.Rows, int64(MaxRows))
	case o.Domain < 0:
		return fmt.Errorf("triples: domain %d, want 0 (the seed's decimals) or a number of integer values", o.Domain)
	}
	return nil
}

// Source is the stream of values of a seed and a domain: the file's A, B, C
// of row 1, then of row 2, and so on. Not safe for concurrent use; give each
// goroutine its own.
type Source struct {
	rng    rand.PCG
	domain int
}

// NewSource returns the values of Options{Seed: seed, Domain: domain}, in
// the file's order. A negative domain is taken as 0.
func NewSource(seed uint64, domain int) *Source {
	s := &Source{domain: max(domain, 0)}
	s.rng.Seed(seed, stream)
	return s
}

// Draw returns the random bits of the next value, to be formatted later (or
// never) by AppendValue with the Source's domain: a caller that needs only
// some values of a row draws them all and formats those it needs.
func (s *Source) Draw() uint64 { return s.rng.Uint64() }

// Domain is the Source's domain.
func (s *Source) Domain() int { return s.domain }

// Append draws the next value and appends its text to dst.
func (s *Source) Append(dst []byte) []byte { return AppendValue(dst, s.rng.Uint64(), s.domain) }

// Next sets dst[0..2] to the next row's three values, reusing their
// storage (no allocation once they have room).
func (s *Source) Next(dst *[3][]byte) {
	for i := range dst {
		dst[i] = s.Append(dst[i][:0])
	}
}

// Float returns the seed's value of the random bits x: 99999 times a
// uniform number of [0, 1) with 53 random bits, as Python's random() makes
// it.
func Float(x uint64) float64 { return float64(x>>11) * 0x1p-53 * SeedMax }

// AppendValue appends the text of the value of the random bits x in domain
// (Source.Draw's): with domain 0 the shortest decimal of Float(x), always
// with a point, never in exponent form; else the integer floor(x*domain /
// 2^64) in 0..domain-1 (Lemire's reduction). O(1), no allocation when dst
// has room (at most 24 bytes).
func AppendValue(dst []byte, x uint64, domain int) []byte {
	if domain > 0 {
		hi, _ := bits.Mul64(x, uint64(domain))
		return strconv.AppendUint(dst, hi, 10)
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, Float(x), 'f', -1, 64)
	for _, c := range dst[n:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, '.', '0') // Python's str(5.0) is "5.0"
}

// Write writes opt.Rows rows with the header (see the package documentation)
// to w. The same Options give byte-identical output. O(Rows) time, constant
// memory (a 256 KiB buffer), checking ctx every 16,384 rows; on an error, or
// when ctx ends, it returns the error and w holds a prefix of the file. Safe
// to call concurrently on different writers.
func Write(ctx context.Context, w io.Writer, opt Options) error {
	if err := opt.check(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("triples: %w", err)
	}
	src := NewSource(opt.Seed, opt.Domain)
	bw := bufio.NewWriterSize(w, 256<<10)
	if _, err := bw.WriteString(Header + "\n"); err != nil {
		return fmt.Errorf("triples: %w", err)
	}
	for row := 1; row <= opt.Rows; row++ {
		if row%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("triples: %w", err)
			}
		}
		buf := bw.AvailableBuffer()
		for range 3 {
			buf = append(src.Append(buf), ',')
		}
		buf = append(strconv.AppendInt(buf, int64(row), 10), '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("triples: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("triples: %w", err)
	}
	return nil
}

// Generate writes dir/triples.csv (Write's file), making dir if needed, and
// returns its path. The file appears only when complete: it is written under
// a temporary name in dir and renamed over the path (package atomicfile), so
// an existing file there is replaced only by a complete new one; on an
// error, or when ctx ends, nothing is left (a folder made here is removed)
// and the path is "". Concurrent calls must use different folders.
func Generate(ctx context.Context, dir string, opt Options) (string, error) {
	if err := opt.check(); err != nil {
		return "", err
	}
	if dir == "" {
		return "", errors.New("triples: empty folder name")
	}
	out, err := atomicfile.MakeDir(dir)
	if err != nil {
		return "", fmt.Errorf("triples: %w", err)
	}
	path := filepath.Join(dir, File)
	var f *atomicfile.File
	fail := func(err error) (string, error) {
		atomicfile.AbortAll(f)
		out.Undo()
		return "", err
	}
	f, err = atomicfile.Create(ctx, path, atomicfile.Options{})
	if err != nil {
		return fail(fmt.Errorf("triples: %s: %w", path, err))
	}
	if err := Write(ctx, f, opt); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("triples: %w", err))
	}
	if err := f.Commit(); err != nil {
		return fail(fmt.Errorf("triples: %s: %w", path, err))
	}
	return path, nil
}
