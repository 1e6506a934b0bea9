package csvscan

// maskBlockWords is how many 64-byte words of masks scanMasks computes
// ahead for the Reader (Reader.masksAt): 8 KiB of data a call, 2 KiB of
// masks, both in the L1 cache while NextBatch consumes them; a batch of 256
// cite75_99 records is about 4 KiB.
const maskBlockWords = 128

// masks64Go returns, for the 64 bytes at b[0:64], a bit for each byte equal
// to sep (seps) and one for each '\n' (nls): bit i is byte i. The reference
// of the block scanner (TestMasksBlock, FuzzMasksBlock). O(64).
func masks64Go(b []byte, sep byte) (seps, nls uint64) {
	seps, nls, _ = masks64QGo(b, sep)
	return seps, nls
}

// masksBlockGo writes masks64Go of each 64-byte word of b (len(b) >=
// 64*len(seps), len(nls) >= len(seps)) into seps and nls: the portable
// block scanner, for CPUs without AVX2, ACBFJOIN_CPU=portable, and the
// tests' reference. O(len(seps)*64), a byte at a time.
func masksBlockGo(b []byte, sep byte, seps, nls []uint64) {
	for i := range seps {
		seps[i], nls[i] = masks64Go(b[64*i:64*i+64], sep)
	}
}

// scanMasks writes the separator and line-break masks (masks64Go's) of
// the first n = min(len(b)/64, len(seps), len(nls)) 64-byte words of b into
// seps[:n] and nls[:n] and returns n; the last len(b)-64n bytes are not
// read (the caller scans a tail of under 64 bytes itself). With blockAsm
// it is one AVX2 call for the whole block (about 3 ns a word on the
// machines measured), else masksBlockGo. sep is a valid separator.
func scanMasks(b []byte, sep byte, seps, nls []uint64) int {
	n := min(len(b)/64, len(seps), len(nls))
	if n == 0 {
		return 0
	}
	if blockAsm {
		masksBlockAVX2(&b[0], n, sep, &seps[0], &nls[0])
	} else {
		masksBlockGo(b[:64*n], sep, seps[:n], nls[:n])
	}
	return n
}

// masks64QGo is masks64Go with a third mask, a bit for each '"' (qs): the
// reference of the quoted block scanner (checkBlockQ in TestMasksBlock and
// FuzzMasksBlock). O(64).
func masks64QGo(b []byte, sep byte) (seps, nls, qs uint64) {
	_ = b[63]
	for i := 63; i >= 0; i-- {
		seps <<= 1
		nls <<= 1
		qs <<= 1
		switch b[i] {
		case sep:
			seps |= 1
		case '\n':
			nls |= 1
		case '"':
			qs |= 1
		}
	}
	return seps, nls, qs
}

// masksQBlockGo writes masks64QGo of each 64-byte word of b (len(b) >=
// 64*len(seps); nls and qs as long as seps). O(len(seps)*64).
func masksQBlockGo(b []byte, sep byte, seps, nls, qs []uint64) {
	for i := range seps {
		seps[i], nls[i], qs[i] = masks64QGo(b[64*i:64*i+64], sep)
	}
}

// scanMasksQ is scanMasks with the quotes' masks in qs too (as long as
// seps and nls): NextField's block path, which runs only with blockAsm
// (its portable path is lineField's word loop); masksQBlockGo where the
// assembly is off, for the tests.
func scanMasksQ(b []byte, sep byte, seps, nls, qs []uint64) int {
	n := min(len(b)/64, len(seps), len(nls), len(qs))
	if n == 0 {
		return 0
	}
	if blockAsm {
		masksQBlockAVX2(&b[0], n, sep, &seps[0], &nls[0], &qs[0])
	} else {
		masksQBlockGo(b[:64*n], sep, seps[:n], nls[:n], qs[:n])
	}
	return n
}
