package acbf

import "math/bits"

// Bit-vector helpers on []uint64, bit i at word i/64, bit i%64 (LSB first).
// Every function is O(number of words touched) and does not allocate.

func getBit(w []uint64, i uint64) bool { return w[i>>6]>>(i&63)&1 != 0 }

func setBit(w []uint64, i uint64) { w[i>>6] |= 1 << (i & 63) }

func clearBit(w []uint64, i uint64) { w[i>>6] &^= 1 << (i & 63) }

// words returns the number of 64-bit words holding nbits bits.
func words(nbits uint64) uint64 { return (nbits + 63) >> 6 }

// popRange counts the one bits in [a, b).
func popRange(w []uint64, a, b uint64) uint64 {
	if a >= b {
		return 0
	}
	wa, wb := a>>6, (b-1)>>6
	// hiMask keeps bits 0..(b-1)%64 of the last word.
	hiMask := ^uint64(0) >> (63 - (b-1)&63)
	if wa == wb {
		return uint64(bits.OnesCount64(w[wa] >> (a & 63) & (hiMask >> (a & 63))))
	}
	c := bits.OnesCount64(w[wa] >> (a & 63))
	for j := wa + 1; j < wb; j++ {
		c += bits.OnesCount64(w[j])
	}
	c += bits.OnesCount64(w[wb] & hiMask)
	return uint64(c)
}

// insertZero inserts a 0 bit at index i of the n-bit vector in w, shifting bits
// [i, n) up by one ("expand_bitmap" of the paper's Algorithm 2). w must hold n+1
// bits, and bits from n on must be zero (they stay zero beyond n+1).
func insertZero(w []uint64, i, n uint64) {
	wi, last := i>>6, n>>6
	for j := last; j > wi; j-- {
		w[j] = w[j]<<1 | w[j-1]>>63 // carry the top bit of the word below
	}
	low := uint64(1)<<(i&63) - 1 // bits below i stay where they are
	x := w[wi]
	w[wi] = x&low | (x&^low)<<1
}

// deleteBit removes bit i of the n-bit vector in w, shifting bits (i, n) down by
// one ("shrink_bitmap" of the paper's Algorithm 3). Bit n-1 becomes 0.
func deleteBit(w []uint64, i, n uint64) {
	wi, last := i>>6, (n-1)>>6
	low := uint64(1)<<(i&63) - 1
	x := w[wi]
	hi := (x >> 1) &^ low
	if wi < last {
		hi |= w[wi+1] << 63 // bit 0 of the next word moves to bit 63
	}
	w[wi] = x&low | hi
	for j := wi + 1; j <= last; j++ {
		v := w[j] >> 1
		if j < last {
			v |= w[j+1] << 63
		}
		w[j] = v
	}
}

// readBits returns the n <= 64 bits of src starting at bit off, in the low bits.
func readBits(src []uint64, off, n uint64) uint64 {
	if n == 0 {
		return 0
	}
	wi, sh := off>>6, off&63
	v := src[wi] >> sh
	if sh != 0 && sh+n > 64 {
		v |= src[wi+1] << (64 - sh)
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	return v
}

// orBits ORs the low n <= 64 bits of v into dst at bit off.
func orBits(dst []uint64, off, n, v uint64) {
	if n == 0 {
		return
	}
	wi, sh := off>>6, off&63
	dst[wi] |= v << sh
	if sh != 0 && sh+n > 64 {
		dst[wi+1] |= v >> (64 - sh)
	}
}

// copyBits ORs n bits of src starting at srcOff into dst starting at dstOff; the
// destination range must be zero. O(n/64).
func copyBits(dst []uint64, dstOff uint64, src []uint64, srcOff, n uint64) {
	for n > 0 {
		c := min(n, 64)
		orBits(dst, dstOff, c, readBits(src, srcOff, c))
		dstOff += c
		srcOff += c
		n -= c
	}
}
