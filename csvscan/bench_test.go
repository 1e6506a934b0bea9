package csvscan

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// citeLike returns a cite75_99-shaped file of about size bytes.
func citeLike(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 64)
	b.WriteString("\"CITING\",\"CITED\"\n")
	citing, cited := 3858241, 956203
	for b.Len() < size {
		fmt.Fprintf(&b, "%d,%d\n", citing, cited)
		cited = (cited*7919 + 12345) % 6000000
		if cited%7 == 0 {
			citing++
		}
	}
	return b.Bytes()
}

var citeData = sync.OnceValue(func() []byte { return citeLike(32 << 20) })

// BenchmarkReadCite reads a 32 MiB cite75_99-shaped file on one goroutine:
//   - batch: NextBatch, the join column only (the map phase's path);
//   - batch+key: plus parsing it;
//   - split: records and fields only;
//   - key: plus parsing the join column CITED (what the join's map phase does);
//   - both: plus parsing both columns;
//   - peer=bufio-lines: bufio.Scanner counting lines (the floor of line reading);
//   - peer=encoding-csv: encoding/csv with ReuseRecord, parsing CITED.
//
// The goal is >= 300 MB/s per core.
func BenchmarkReadCite(b *testing.B) {
	data := citeData()
	run := func(name string, body func() int64) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			runtime.GC()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if body() == 0 {
					b.Fatal("nothing read")
				}
			}
		})
	}
	ours := func(parse int) func() int64 {
		return func() int64 {
			r := NewReader(bytes.NewReader(data), "cite")
			if _, err := r.ReadHeader(); err != nil {
				panic(err)
			}
			var sum int64
			for r.Next() {
				f := r.Fields()
				switch parse {
				case 0:
					sum += int64(len(f[1]))
				case 1:
					v, err := ParseInt(f[1])
					if err != nil {
						panic(err)
					}
					sum += v
				case 2:
					a, err1 := ParseInt(f[0])
					c, err2 := ParseInt(f[1])
					if err1 != nil || err2 != nil {
						panic(err1)
					}
					sum += a ^ c
				}
			}
			if r.Err() != nil {
				panic(r.Err())
			}
			return sum
		}
	}
	batch := func(parse bool) func() int64 {
		return func() int64 {
			r := NewReader(bytes.NewReader(data), "cite")
			if _, err := r.ReadHeader(); err != nil {
				panic(err)
			}
			var sum int64
			var b Batch
			for r.NextBatch(1, 256, &b) {
				for i := range b.Len() {
					f := b.Field(i)
					if !parse {
						sum += int64(len(f))
						continue
					}
					v, err := ParseInt(f)
					if err != nil {
						panic(err)
					}
					sum += v
				}
			}
			if r.Err() != nil {
				panic(r.Err())
			}
			return sum
		}
	}
	// The map phase's path: the join column's integers parsed by the scan
	// (Batch.ScanInts), the rest of the batch untouched.
	ints := func() int64 {
		r := NewReader(bytes.NewReader(data), "cite")
		if _, err := r.ReadHeader(); err != nil {
			panic(err)
		}
		var sum int64
		b := Batch{ScanInts: true}
		for r.NextBatch(1, 256, &b) {
			for _, v := range b.Ints() {
				sum += v
			}
		}
		if r.Err() != nil {
			panic(r.Err())
		}
		return sum
	}
	run("batch", batch(false))
	run("batch+key", batch(true))
	run("batch+ints", ints)
	if blockAsm { // the word loop alone, as on a CPU without AVX2 or with ACBFJOIN_CPU=portable
		blockAsm = false
		run("batch-words", batch(false))
		run("batch+key-words", batch(true))
		run("batch+ints-words", ints)
		blockAsm = true
	}
	run("split", ours(0))
	run("key", ours(1))
	run("both", ours(2))
	run("peer=bufio-lines", func() int64 {
		sc := bufio.NewScanner(bytes.NewReader(data))
		var n int64
		for sc.Scan() {
			n++
		}
		return n
	})
	run("peer=encoding-csv", func() int64 {
		cr := csv.NewReader(bytes.NewReader(data))
		cr.ReuseRecord = true
		var sum int64
		for {
			rec, err := cr.Read()
			if err != nil {
				break
			}
			if v, err := ParseInt([]byte(rec[1])); err == nil {
				sum += v
			}
		}
		return sum
	})
}

var citeTSVData = sync.OnceValue(func() []byte { return bytes.ReplaceAll(citeData(), []byte(","), []byte("\t")) })

// BenchmarkReadCiteTSV is BenchmarkReadCite's batch and split on the same
// file with tabs for commas: a TSV file reads as fast as a CSV one.
func BenchmarkReadCiteTSV(b *testing.B) {
	data := citeTSVData()
	newReader := func() *Reader {
		r := NewReader(bytes.NewReader(data), "cite.tsv")
		if err := r.SetSep('\t'); err != nil {
			panic(err)
		}
		if _, err := r.ReadHeader(); err != nil {
			panic(err)
		}
		return r
	}
	b.Run("batch", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			r := newReader()
			var sum int64
			var bt Batch
			for r.NextBatch(1, 256, &bt) {
				for i := range bt.Len() {
					sum += int64(len(bt.Field(i)))
				}
			}
			if r.Err() != nil || sum == 0 {
				b.Fatal(r.Err(), sum)
			}
		}
	})
	b.Run("split", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			r := newReader()
			var sum int64
			for r.Next() {
				sum += int64(len(r.Fields()[1]))
			}
			if r.Err() != nil || sum == 0 {
				b.Fatal(r.Err(), sum)
			}
		}
	})
}

// BenchmarkScanMasks measures the mask computation alone over blocks of 8
// and 64 KiB of cite75_99-shaped bytes (in the L1 and L2 caches), in ns
// per 64 bytes:
//   - block: scanMasks as NextBatch calls it (one AVX2 call a block where
//     the CPU has it and ACBFJOIN_CPU allows it, else masksBlockGo);
//   - words: the portable word loop's masks (zeroBytes of each 8 bytes
//     against the separator and '\n'), as fastBatch computes them;
//   - bytes: masksBlockGo, the byte-at-a-time reference.
//
// The loops are b.N loops, not b.Loop: inside b.Loop calls are not inlined,
// which made the word loop (zeroBytes, binary.LittleEndian) look 3x slower
// than it is in fastBatch.
func BenchmarkScanMasks(b *testing.B) {
	data := citeData()
	for _, size := range []int{8 << 10, 64 << 10} {
		buf := data[:size]
		words := size / 64
		ms, mn := make([]uint64, words), make([]uint64, words)
		per64 := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(words), "ns/64B")
		}
		b.Run(fmt.Sprintf("block/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for range b.N {
				for p := 0; p < words; p += maskBlockWords {
					n := min(maskBlockWords, words-p)
					scanMasks(buf[64*p:], ',', ms[p:p+n], mn[p:p+n])
				}
			}
			per64(b)
		})
		b.Run(fmt.Sprintf("words/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			sepw := uint64(',') * 0x0101010101010101
			var sink uint64
			for range b.N {
				for p := 0; p+8 <= len(buf); p += 8 {
					w := binary.LittleEndian.Uint64(buf[p:])
					sink ^= zeroBytes(w^sepw) + zeroBytes(w^nls)
				}
			}
			wordSink = sink
			per64(b)
		})
		b.Run(fmt.Sprintf("bytes/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for range b.N {
				masksBlockGo(buf, ',', ms, mn)
			}
			per64(b)
		})
	}
}

// wordSink keeps the word loop's result alive.
var wordSink uint64

// BenchmarkNextFieldPatents reads 16 MiB of NBER-patent-shaped rows (23
// fields, two quoted; nberPatents) with NextField(0), the join's key-side
// build path: on the block scanner's masks (lineFieldMasks, path=masks)
// and on the word loop (lineField, path=words).
func BenchmarkNextFieldPatents(b *testing.B) {
	var data bytes.Buffer
	data.Write(nberPatents(rand.New(rand.NewPCG(1, 2)), 1))
	for data.Len() < 16<<20 {
		p := nberPatents(rand.New(rand.NewPCG(uint64(data.Len()), 2)), 1000)
		data.Write(p[bytes.IndexByte(p, '\n')+1:])
	}
	defer func(old bool) { blockAsm = old }(blockAsm)
	for _, path := range []string{"masks", "words"} {
		b.Run("path="+path, func(b *testing.B) {
			blockAsm = path == "masks" && hasBlockAsm
			if path == "masks" && !blockAsm {
				b.Skip("no AVX2")
			}
			b.SetBytes(int64(data.Len()))
			for b.Loop() {
				r := NewReader(bytes.NewReader(data.Bytes()), "patents")
				if _, err := r.ReadHeader(); err != nil {
					b.Fatal(err)
				}
				n := 0
				for r.NextField(0) {
					n += len(r.Field())
				}
				if r.Err() != nil || n == 0 {
					b.Fatal(r.Err(), n)
				}
			}
		})
	}
}
