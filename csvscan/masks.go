package csvscan

// masks64Go returns, for the 64 bytes at b[0:64], a bit for each byte equal
// to sep (seps) and one for each '\n' (nls): bit i is byte i. The reference
// of masks64 (TestMasks64, FuzzMasks64) and its fallback where the CPU has
// no AVX2. O(64).
func masks64Go(b []byte, sep byte) (seps, nls uint64) {
	_ = b[63]
	for i := 63; i >= 0; i-- {
		seps <<= 1
		nls <<= 1
		switch b[i] {
		case sep:
			seps |= 1
		case '\n':
			nls |= 1
		}
	}
	return seps, nls
}
