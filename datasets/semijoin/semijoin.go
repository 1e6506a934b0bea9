package semijoin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"strconv"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
)

// File names and headers Write writes.
const (
	KeysFile    = "keys.csv"
	InputFile   = "input.csv"
	KeysHeader  = "K,PAY"
	InputHeader = "ID,K,PAD"
	Pad         = "xxxxxxxxxxxxxxxx" // the input rows' PAD: 16 bytes
)

// Sizes and bounds.
const (
	DefaultKeys        = 100_000
	DefaultRows        = 2_000_000
	DefaultSelectivity = 0.1
	MaxKeys            = 100_000_000
	MaxRows            = 10_000_000_000
	MaxDistinct        = 1 << 40 // keeps Keys+Distinct far below 2^62
)

// DefaultDistinct is the number of non-member keys for rows rows:
// max(1, rows/4).
func DefaultDistinct(rows int64) int64 { return max(1, rows/4) }

// Shape is how the keys look.
type Shape int

// The key shapes (see the package documentation).
const (
	Dense  Shape = iota // the integers 0..Keys-1
	Sparse              // distinct pseudo-random non-negative int64 values
	String              // "k" and 16 lowercase hex digits
)

var shapeNames = [...]string{Dense: "dense", Sparse: "sparse", String: "string"}

// String returns the shape's name: "dense", "sparse" or "string".
func (s Shape) String() string {
	if s >= 0 && int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return "Shape(" + strconv.Itoa(int(s)) + ")"
}

// ErrOptions is wrapped by every error about Options (an option.Error naming
// the field).
var ErrOptions = errors.New("semijoin: invalid option")

func optionError(name string, value any, reason string) error {
	return &option.Error{Pkg: "semijoin", Name: name, Value: value, Reason: reason, Err: ErrOptions}
}

// ParseShape returns the shape of a name: "dense", "sparse" or "string".
// Other names are an option.Error naming "Shape".
func ParseShape(name string) (Shape, error) {
	for s, n := range shapeNames {
		if n == name {
			return Shape(s), nil
		}
	}
	return 0, optionError("Shape", strconv.Quote(name), "want dense, sparse or string")
}

// Options configures Write. The fields are used as they are, except
// Distinct, whose 0 means DefaultDistinct(Rows); Defaults returns the
// defaults of all.
type Options struct {
	Keys        int     // distinct keys in the key file, 1..MaxKeys
	Rows        int64   // rows of the input file, 0..MaxRows
	Selectivity float64 // the exact share of input rows whose key is a key, 0..1
	Shape       Shape   // Dense, Sparse or String
	Distinct    int64   // non-member keys the other rows draw from, 1..MaxDistinct; 0: DefaultDistinct(Rows)
	// Zipf, if not 0, skews the rows' keys: a member row's key is the key
	// of rank r (0..Keys-1) and a non-member's the non-member key of rank r
	// (0..Distinct-1) with probability proportional to (1+r)^-Zipf
	// (math/rand/v2's Zipf, whose exponent is above 1), up to MaxZipf. The
	// ranks follow the key indexes, whose values V scrambles. 0: uniform.
	Zipf float64
	Seed uint64
}

// MaxZipf bounds Options.Zipf.
const MaxZipf = 8

// Defaults returns DefaultKeys keys, DefaultRows rows, DefaultSelectivity,
// Dense keys, the default Distinct and seed.
func Defaults(seed uint64) Options {
	return Options{Keys: DefaultKeys, Rows: DefaultRows, Selectivity: DefaultSelectivity, Shape: Dense, Seed: seed}
}

// Check reports the first field out of range as an *option.Error naming it
// (wrapping ErrOptions).
func (o Options) Check() error {
	switch {
	case o.Keys < 1 || o.Keys > MaxKeys:
		return optionError("Keys", o.Keys, fmt.Sprintf("want 1..%d keys", MaxKeys))
	case o.Rows < 0 || o.Rows > MaxRows:
		return optionError("Rows", o.Rows, fmt.Sprintf("want 0..%d rows", int64(MaxRows)))
	case !(o.Selectivity >= 0 && o.Selectivity <= 1): // NaN too
		return optionError("Selectivity", o.Selectivity, "want a share of the rows in [0, 1]")
	case o.Shape < 0 || int(o.Shape) >= len(shapeNames):
		return optionError("Shape", o.Shape, "want dense, sparse or string")
	case o.Distinct < 0 || o.Distinct > MaxDistinct:
		return optionError("Distinct", o.Distinct, fmt.Sprintf("want 1..%d non-member keys", int64(MaxDistinct)))
	case o.Zipf != 0 && !(o.Zipf > 1 && o.Zipf <= MaxZipf):
		return optionError("Zipf", o.Zipf, fmt.Sprintf("want an exponent above 1, at most %d (0: uniform keys)", MaxZipf))
	}
	return nil
}

// MemberRows is the number of member rows of Options: round(Selectivity *
// Rows), with math.Round.
func (o Options) MemberRows() int64 {
	return min(max(int64(math.Round(o.Selectivity*float64(o.Rows))), 0), o.Rows)
}

// Result describes what Write wrote.
type Result struct {
	KeysPath, InputPath string
	Keys                int   // lines of the key file
	Rows, MemberRows    int64 // lines of the input file, and those whose key is a key
}

const (
	ctxEvery   = 1 << 12 // lines between checks of the context
	bufSize    = 1 << 20
	lineMax    = 128 // the longest line, with room to spare
	valueBits  = 62
	rounds     = 4
	streamKeys = 0x73656d696b657973 // "semikeys": the key order and V
	streamRows = 0x73656d69726f7773 // "semirows": the row draws
)

// mults are the odd multipliers of the bijections' rounds (splitmix64's and
// murmur3's finalizers', and two more 64-bit odd constants).
var mults = [rounds]uint64{0xbf58476d1ce4e5b9, 0x94d049bb133111eb, 0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53}

// bijection is a seeded permutation of [0, 2^bits): rounds of x += add;
// x *= odd; x ^= x >> shift, all modulo 2^bits, each one to one.
type bijection struct {
	mask   uint64
	add    [rounds]uint64
	shifts [rounds]uint
}

func newBijection(nbits uint, rng *rand.Rand) bijection {
	b := bijection{mask: 1<<nbits - 1}
	for r := range rounds {
		b.add[r] = rng.Uint64() & b.mask
		b.shifts[r] = (nbits + 1) / 2
		if r%2 == 1 {
			b.shifts[r] = (nbits + 2) / 3
		}
	}
	return b
}

func (b *bijection) apply(x uint64) uint64 {
	for r := range rounds {
		x = (x + b.add[r]) & b.mask
		x = (x * mults[r]) & b.mask
		x ^= x >> b.shifts[r]
	}
	return x
}

// gen holds what both files need.
type gen struct {
	opt      Options
	distinct uint64
	order    bijection // of [0, 2^ceil(log2 Keys)): the key file's order
	value    bijection // V, of [0, 2^62)
}

func newGen(opt Options) *gen {
	rng := rand.New(rand.NewPCG(opt.Seed, streamKeys))
	nbits := max(uint(bits.Len64(uint64(opt.Keys-1))), 1)
	g := &gen{opt: opt, distinct: uint64(opt.Distinct)}
	g.order = newBijection(nbits, rng)
	g.value = newBijection(valueBits, rng)
	return g
}

// keyIndex is the index of the key file's j-th key: the order bijection
// walked along its cycle until it is below Keys (a permutation of
// 0..Keys-1).
func (g *gen) keyIndex(j uint64) uint64 {
	x := g.order.apply(j)
	for x >= uint64(g.opt.Keys) {
		x = g.order.apply(x)
	}
	return x
}

const hexDigits = "0123456789abcdef"

// appendKey appends the key of index i in the Shape's text.
func (g *gen) appendKey(dst []byte, i uint64) []byte {
	switch g.opt.Shape {
	case Dense:
		return strconv.AppendUint(dst, i, 10)
	case Sparse:
		return strconv.AppendUint(dst, g.value.apply(i), 10)
	}
	v := g.value.apply(i)
	var hex [17]byte
	hex[0] = 'k'
	for k := 16; k >= 1; k-- {
		hex[k] = hexDigits[v&15]
		v >>= 4
	}
	return append(dst, hex[:]...)
}

// writeKeys writes the key file to w.
func (g *gen) writeKeys(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(w, bufSize)
	bw.WriteString(KeysHeader + "\n")
	for j := range uint64(g.opt.Keys) {
		if j%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if bw.Available() < lineMax {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		i := g.keyIndex(j)
		buf := g.appendKey(bw.AvailableBuffer(), i)
		buf = append(strconv.AppendUint(append(buf, ',', 'p'), i, 10), '\n')
		bw.Write(buf) // fits in the buffer
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return ctx.Err()
}

// writeInput writes the input file to w and returns its member rows.
func (g *gen) writeInput(ctx context.Context, w io.Writer) (int64, error) {
	rng := rand.New(rand.NewPCG(g.opt.Seed, streamRows))
	bw := bufio.NewWriterSize(w, bufSize)
	bw.WriteString(InputHeader + "\n")
	n := uint64(g.opt.Rows)
	need := uint64(g.opt.MemberRows()) // members still to place
	members := int64(need)
	keys := uint64(g.opt.Keys)
	var zm, zn *rand.Zipf // the ranks of member and non-member keys
	if g.opt.Zipf != 0 {
		zm = rand.NewZipf(rng, g.opt.Zipf, 1, keys-1)
		zn = rand.NewZipf(rng, g.opt.Zipf, 1, g.distinct-1)
	}
	for row := uint64(1); row <= n; row++ {
		if row%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if bw.Available() < lineMax {
			if err := bw.Flush(); err != nil {
				return 0, err
			}
		}
		// Algorithm S: a member with probability need/(rows left).
		left := n - row + 1
		member := need == left || need > 0 && rng.Uint64N(left) < need
		var i uint64
		switch {
		case member && zm != nil:
			need--
			i = zm.Uint64()
		case member:
			need--
			i = rng.Uint64N(keys)
		case zn != nil:
			i = keys + zn.Uint64()
		default:
			i = keys + rng.Uint64N(g.distinct)
		}
		buf := append(strconv.AppendUint(bw.AvailableBuffer(), row, 10), ',')
		buf = append(append(g.appendKey(buf, i), ','), Pad+"\n"...)
		bw.Write(buf) // fits in the buffer
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return members, ctx.Err()
}

// Write writes dir/keys.csv and dir/input.csv (see the package
// documentation), making dir if needed, and returns their paths and sizes.
// The same Options give byte-identical files. The files appear only when
// both are complete: each is written under a temporary name in dir and
// renamed over its path (package atomicfile), so an existing file there is
// replaced only by a complete new one; on an error, or when ctx ends,
// nothing is left (a folder made here is removed) and the error wraps
// ctx's (context.Canceled). Invalid Options are an *option.Error naming the
// field. O(Keys + Rows) time, constant memory. Concurrent calls must use
// different folders.
func Write(ctx context.Context, dir string, opt Options) (Result, error) {
	if err := opt.Check(); err != nil {
		return Result{}, err
	}
	if opt.Distinct == 0 {
		opt.Distinct = DefaultDistinct(opt.Rows)
	}
	if dir == "" {
		return Result{}, errors.New("semijoin: empty folder name")
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("semijoin: %w", err)
	}
	out, err := atomicfile.MakeDir(dir)
	if err != nil {
		return Result{}, fmt.Errorf("semijoin: %w", err)
	}
	res := Result{KeysPath: filepath.Join(dir, KeysFile), InputPath: filepath.Join(dir, InputFile), Keys: opt.Keys, Rows: opt.Rows}
	var keysF, inputF *atomicfile.File
	fail := func(err error) (Result, error) {
		atomicfile.AbortAll(keysF, inputF)
		out.Undo()
		return Result{}, err
	}
	if keysF, err = atomicfile.Create(ctx, res.KeysPath, atomicfile.Options{}); err != nil {
		return fail(fmt.Errorf("semijoin: %s: %w", res.KeysPath, err))
	}
	if inputF, err = atomicfile.Create(ctx, res.InputPath, atomicfile.Options{}); err != nil {
		return fail(fmt.Errorf("semijoin: %s: %w", res.InputPath, err))
	}
	g := newGen(opt)
	if err := g.writeKeys(ctx, keysF); err != nil {
		return fail(fmt.Errorf("semijoin: %s: %w", res.KeysPath, err))
	}
	if res.MemberRows, err = g.writeInput(ctx, inputF); err != nil {
		return fail(fmt.Errorf("semijoin: %s: %w", res.InputPath, err))
	}
	for _, f := range []*atomicfile.File{keysF, inputF} {
		if err := f.Commit(); err != nil {
			return fail(fmt.Errorf("semijoin: %s: %w", f.Path, err))
		}
	}
	return res, nil
}
