package shuffle

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// BenchmarkShuffle moves 200,000 NBER-shaped records (an 8-byte key, a
// 60-byte row) from 2 writers through 4 partitions and reads them back:
// in memory (budget=256MiB) and spilled to IPC files (budget=min). Reports
// records/s and allocations per record.
func BenchmarkShuffle(b *testing.B) {
	const writers, parts, n = 2, 4, 200_000
	row := []byte("5497295,4943137,1996,13230,1994,\"US\",\"CA\",1,2,22,3,1,14,3")
	for _, budget := range []int64{256 << 20, MinBudget(writers, parts)} {
		name := "budget=256MiB"
		if budget < 256<<20 {
			name = "budget=min"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				s, err := New(Options{Partitions: parts, Writers: writers, MemBudget: budget, TempDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				var wg sync.WaitGroup
				for w := range writers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						wr := s.NewWriter()
						var key [8]byte
						for i := w; i < n; i += writers {
							binary.BigEndian.PutUint64(key[:], uint64(i*2654435761))
							if err := wr.Add(i%parts, Record{Key: key[:], Tag: 1, Seq: int64(i), Row: row}); err != nil {
								panic(err)
							}
						}
						if err := wr.Close(); err != nil {
							panic(err)
						}
					}()
				}
				wg.Wait()
				if err := s.Seal(); err != nil {
					b.Fatal(err)
				}
				got := 0
				for p := range parts {
					if err := s.Partition(p, func(rec arrow.Record) error { got += int(rec.NumRows()); return nil }); err != nil {
						b.Fatal(err)
					}
					s.Release(p)
				}
				if got != n {
					b.Fatalf("%d records back, want %d", got, n)
				}
				s.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkWriterAdd: one writer's Add of NBER-shaped records (an 8-byte
// key, an 85-byte patent row) over 64 partitions, the batches buffered in
// memory: the cost a record of the map and build phases' hand-off.
func BenchmarkWriterAdd(b *testing.B) {
	const parts = 64
	row := []byte("5497295,1996,13230,1994,\"US\",\"CA\",,1,,2,22,3,1,14,3,0.6667,0.5,0.4,21.5,4.8,0,0,0")
	s, err := New(Options{Partitions: parts, Writers: 1, MemBudget: 8 << 30, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	wr := s.NewWriter()
	var key [8]byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		binary.BigEndian.PutUint64(key[:], uint64(i)*2654435761)
		if err := wr.Add(i%parts, Record{Key: key[:], Tag: 1, Seq: int64(i), Row: row}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := wr.Close(); err != nil {
		b.Fatal(err)
	}
}
