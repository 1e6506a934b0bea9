package acbf

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// BenchmarkContainsBatch probes batches of 256 8-byte keys, 2% members, in
// the shape of the NBER join's filter (65,771 keys, 32 bits a key, k = 6,
// optimal first level: 214 KB) and of 10^6 keys (3.25 MB, past the L2
// cache), as the map phase does, as bytes (ContainsBatch) and as integers
// (ContainsInts); it reports the thread's CPU time a key (cpu-ns/key),
// steadier than wall time on a shared machine. The probes are 2^16 and 2^22
// keys that do not repeat within a run's first pass: with 4,096, as before
// issue 43's second session, the branch predictor learnt the verdicts of
// the keys it saw again and again, which made a branchy laterProbes look
// 1.5x faster than a branch-free one, while on the join's keys, which do
// not repeat, it was the slower (7.5 against 6.5 cpu-ns a key, Intel Xeon).
func BenchmarkContainsBatch(b *testing.B) {
	for _, tc := range []struct {
		name      string
		n, probes int
	}{{"keys=65771", 65771, 1 << 16}, {"keys=1000000", 1_000_000, 1 << 22}} {
		for _, ints := range []bool{false, true} {
			name := tc.name + "/bytes"
			if ints {
				name = tc.name + "/ints"
			}
			b.Run(name, func(b *testing.B) { benchContainsBatch(b, tc.n, tc.probes, ints) })
		}
	}
}

func benchContainsBatch(b *testing.B, n, nProbes int, ints bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([][]byte, n)
	space := uint64(n) * 90 // the key space of the patents against their keys
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64(nil, rng.Uint64()%space)
	}
	f, err := Build(ConfigOptimal(uint64(n)*32/4, uint64(n), 6), keys)
	if err != nil {
		b.Fatal(err)
	}
	// One backing array, as the map phase's batch of keys is.
	probes, back := make([][]byte, nProbes), make([]byte, 8*nProbes)
	for i := range probes {
		probes[i] = back[8*i : 8*i+8]
		if rng.IntN(50) == 0 {
			copy(probes[i], keys[rng.IntN(n)])
		} else {
			binary.BigEndian.PutUint64(probes[i], rng.Uint64()%space)
		}
	}
	vals := make([]int64, nProbes) // the probes' values (key.PutInt's inverse)
	for i, p := range probes {
		vals[i] = int64(binary.BigEndian.Uint64(p) ^ 1<<63)
	}
	out := make([]bool, 256)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := threadCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lo := (i * 256) & (len(probes) - 1)
		if ints {
			f.ContainsInts(vals[lo:lo+256], out)
		} else {
			f.ContainsBatch(probes[lo:lo+256], out)
		}
	}
	b.ReportMetric(float64(threadCPU()-t0)/float64(b.N)/256, "cpu-ns/key")
}

// threadCPU is the calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID):
// a machine shared with other work stretches wall time, not this.
func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}
