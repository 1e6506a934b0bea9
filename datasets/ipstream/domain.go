package ipstream

import (
	"math/rand/v2"
	"strconv"
)

// Domain maps ranks to addresses and back: Addr(r) for r in 0..Size-1 are
// the domain's Size distinct addresses. The zero value is not usable; make
// one with NewDomain. Its methods only read it: safe for concurrent use.
type Domain struct {
	keys [rounds]uint32
	size uint64
}

const (
	rounds       = 4                  // Feistel rounds: 3 make a pseudorandom permutation (Luby-Rackoff), 4 a strong one
	streamDomain = 0x6970733030330001 // "ips003" + 1: the PCG stream of the round keys
	streamProbe  = 0x6970733030330002 // the probe draws
	streamEvents = 0x6970733030330003 // the event draws
)

// NewDomain returns the domain of size addresses of seed (size 1..2^32;
// Options.check validates it before Write calls this).
func NewDomain(seed uint64, size uint64) *Domain {
	d := &Domain{size: size}
	rng := rand.New(rand.NewPCG(seed, streamDomain))
	for i := range d.keys {
		d.keys[i] = rng.Uint32()
	}
	return d
}

// Size is the number of addresses.
func (d *Domain) Size() uint64 { return d.size }

// round is the Feistel round function: any function keeps the network a
// bijection; this one mixes the 16-bit half with the round key by a
// multiply-xorshift (the golden-ratio multiplier, then murmur3's fmix32
// constants) and keeps the high 16 bits, the best mixed.
func round(half uint16, key uint32) uint16 {
	x := (uint32(half) ^ key) * 0x9E3779B1
	x ^= x >> 15
	x *= 0x85EBCA77
	x ^= x >> 13
	return uint16(x >> 16)
}

// Addr returns the address of rank r (r < 2^32; r < Size for a member of
// the domain) as a big-endian uint32: a.b.c.d is a<<24 | b<<16 | c<<8 | d.
// O(1), four rounds of (L, R) -> (R, L ^ F(R, k)).
func (d *Domain) Addr(r uint32) uint32 {
	l, h := uint16(r>>16), uint16(r)
	for _, k := range d.keys {
		l, h = h, l^round(h, k)
	}
	return uint32(l)<<16 | uint32(h)
}

// Rank inverts Addr: the rank of addr, and whether it is in the domain
// (rank < Size). O(1), the rounds in reverse: (L', R') -> (R' ^ F(L', k), L').
func (d *Domain) Rank(addr uint32) (uint32, bool) {
	l, h := uint16(addr>>16), uint16(addr)
	for i := rounds - 1; i >= 0; i-- {
		l, h = h^round(l, d.keys[i]), l
	}
	r := uint32(l)<<16 | uint32(h)
	return r, uint64(r) < d.size
}

// octets[b] is the decimal text of the byte b, 1 to 3 digits, with its
// length in the last byte: a table lookup instead of three divisions.
var octets = func() (t [256][4]byte) {
	for b := range t {
		s := strconv.AppendUint(nil, uint64(b), 10)
		copy(t[b][:], s)
		t[b][3] = byte(len(s))
	}
	return
}()

// AppendAddr appends the dotted text of addr ("192.168.0.1") to dst. O(1),
// no allocation when dst has room for 15 bytes.
func AppendAddr(dst []byte, addr uint32) []byte {
	for shift := 24; shift >= 0; shift -= 8 {
		o := &octets[byte(addr>>shift)]
		dst = append(dst, o[:o[3]]...)
		if shift > 0 {
			dst = append(dst, '.')
		}
	}
	return dst
}
