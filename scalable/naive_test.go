package scalable

import (
	"math"
	"math/big"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// naive is a literal, slow transcription of the paper's scalable Bloom filter
// with the sizing of the package doc written as the formulas read (math.Pow,
// math.Log2), every slice a []bool of its own, and the probes as the package
// doc states them: slice number g of the filter (counting the slices of all
// sub-filters, oldest first) takes a key at wyrand's output function of
// (h1 + g*0x9e3779b97f4a7c15) XOR h2, scaled to the slice. It is the
// reference the Filter is checked against, bit for bit.
type naive struct {
	n0       uint64
	p0, s, r float64
	filters  []naiveSub
}

type naiveSub struct {
	capacity, keys uint64
	slices         [][]bool
}

func newNaive(c Config) *naive {
	c = c.withDefaults()
	nv := &naive{n0: c.InitialCapacity, p0: c.FPP, s: c.Growth, r: c.Tightening}
	nv.push()
	return nv
}

// shapeOf returns n_i, k_i, s_i for sub-filter i, straight from the formulas.
func (nv *naive) shapeOf(i int) (n uint64, k int, s uint64) {
	n = uint64(math.Floor(float64(nv.n0) * math.Pow(nv.s, float64(i))))
	p := nv.p0 * math.Pow(nv.r, float64(i))
	k = int(math.Ceil(math.Log2(1 / p)))
	m := math.Ceil(float64(n) * math.Abs(math.Log(p)) / (math.Ln2 * math.Ln2))
	s = uint64(math.Ceil(m / float64(k)))
	return n, k, s
}

func (nv *naive) push() {
	n, k, s := nv.shapeOf(len(nv.filters))
	sub := naiveSub{capacity: n, slices: make([][]bool, k)}
	for j := range sub.slices {
		sub.slices[j] = make([]bool, s)
	}
	nv.filters = append(nv.filters, sub)
}

// naiveProbe is the position of a key of hash (h1, h2) in slice number g of
// the filter, a slice of size bits, as the package doc writes it: with z =
// (h1 + g*golden ratio) XOR h2, the 128-bit product z * (z XOR
// 0x8bb84b93962eacc9) (wyrand's output function) in math/big, its two 64-bit
// halves XORed, times size, over 2^64.
func naiveProbe(h1, h2 uint64, g int, size int) int {
	z := (h1 + uint64(g)*0x9e3779b97f4a7c15) ^ h2
	prod := new(big.Int).Mul(new(big.Int).SetUint64(z), new(big.Int).SetUint64(z^0x8bb84b93962eacc9))
	hi := new(big.Int).Rsh(prod, 64).Uint64()
	lo := new(big.Int).And(prod, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	x := new(big.Int).Mul(new(big.Int).SetUint64(hi^lo), big.NewInt(int64(size)))
	return int(x.Rsh(x, 64).Int64())
}

// slicesBefore returns the number of slices of the sub-filters before i.
func (nv *naive) slicesBefore(i int) int {
	g := 0
	for _, sub := range nv.filters[:i] {
		g += len(sub.slices)
	}
	return g
}

func (nv *naive) add(key []byte) {
	if last := nv.filters[len(nv.filters)-1]; last.keys == last.capacity {
		nv.push()
	}
	l := len(nv.filters) - 1
	last, g := &nv.filters[l], nv.slicesBefore(l)
	h1, h2 := hashing.Sum(key)
	for j, slice := range last.slices {
		slice[naiveProbe(h1, h2, g+j, len(slice))] = true
	}
	last.keys++
}

func (nv *naive) contains(key []byte) bool {
	h1, h2 := hashing.Sum(key)
	for i, sub := range nv.filters {
		in, g := true, nv.slicesBefore(i)
		for j, slice := range sub.slices {
			if !slice[naiveProbe(h1, h2, g+j, len(slice))] {
				in = false
			}
		}
		if in {
			return true
		}
	}
	return false
}

// fillFPP is the rate of the reference's bits, 1 - prod_i (1 - prod_j
// ones_ij/s_i), with the ones counted bit by bit and the product over
// sub-filters taken as p <- p + x_i (1 - p), which keeps the precision of a
// small rate.
func (nv *naive) fillFPP() float64 {
	p := 0.0
	for _, sub := range nv.filters {
		in := 1.0
		for _, slice := range sub.slices {
			ones := 0
			for _, set := range slice {
				if set {
					ones++
				}
			}
			in *= float64(ones) / float64(len(slice))
		}
		p += in * (1 - p)
	}
	return p
}

// equalTo reports whether f has the reference's sub-filters, shape, fill and
// every bit.
func (nv *naive) equalTo(f *Filter) bool {
	if len(f.subs) != len(nv.filters) {
		return false
	}
	var total uint64
	for i, ref := range nv.filters {
		sf := &f.subs[i]
		if sf.first != uint64(nv.slicesBefore(i)) {
			return false
		}
		if sf.capacity != ref.capacity || sf.keys != ref.keys || sf.k != len(ref.slices) || sf.slice != uint64(len(ref.slices[0])) {
			return false
		}
		for j, slice := range ref.slices {
			for b, set := range slice {
				p := uint64(j)*sf.slice + uint64(b)
				if (sf.words[p>>6]>>(p&63)&1 == 1) != set {
					return false
				}
			}
		}
		total += ref.keys
	}
	return total == f.Len()
}
