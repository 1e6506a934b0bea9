// Command profilejoin runs one join through the library (join/local.Run)
// under a CPU profile, for looking at where the map phase's time goes:
//
//	go run ./bench/cmd/profilejoin -keys K -input I -cpuprofile cpu.out [-mappers N] [-filter KIND] [-where EXPR] [-keys-where EXPR] [-out F.parquet]
//	go tool pprof -top cpu.out
//
// or, for where memory peaks, -heapprofile heap.out [-mem BYTES]: the heap
// profile taken when the live heap was largest (sampled every 20 ms),
// read with go tool pprof -sample_index=inuse_space -top heap.out; or
// -heapsnap DIR: a heap profile every second after a collection
// (DIR/h00.out, h01.out, ...), for what is live in each phase.
//
// The output rows are discarded unless -out names a file. It prints the report's phase timings.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
)

func main() {
	keys := flag.String("keys", "", "key file")
	input := flag.String("input", "", "large file")
	keyCol := flag.String("key-col", "PATENT", "key column")
	joinCol := flag.String("join-col", "CITED", "join column")
	mappers := flag.Int("mappers", 0, "mappers (0: one a core)")
	kind := flag.String("filter", "acbf", "filter kind")
	prof := flag.String("cpuprofile", "", "write a CPU profile here")
	heap := flag.String("heapprofile", "", "write the heap profile of the largest heap in use here")
	mem := flag.Int64("mem", 0, "the memory budget in bytes (0: the default)")
	snap := flag.String("heapsnap", "", "write a heap profile here every second, after a collection")
	where := flag.String("where", "", "the large side's predicate (join.Options.Where)")
	keysWhere := flag.String("keys-where", "", "the key side's predicate (join.Options.KeysWhere)")
	joinType := flag.String("join", "inner", "the join type (join.Options.JoinType)")
	out := flag.String("out", "", "write the output here as Parquet (a name ending in .parquet) or CSV; none: discarded")
	traceOut := flag.String("trace", "", "write an execution trace here (go tool trace): where the cores idle")
	flag.Parse()
	if *keys == "" || *input == "" {
		fmt.Fprintln(os.Stderr, "profilejoin: -keys and -input are required")
		os.Exit(2)
	}
	// record starts a recording into path (none for ""), its stop deferred.
	record := func(path string, start func(io.Writer) error, stop func()) func() {
		if path == "" {
			return func() {}
		}
		f, err := os.Create(path)
		if err == nil {
			if err = start(f); err != nil {
				f.Close()
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return func() { stop(); f.Close() }
	}
	defer record(*prof, pprof.StartCPUProfile, pprof.StopCPUProfile)()
	defer record(*traceOut, trace.Start, trace.Stop)()
	if *heap != "" {
		stop := peakHeap(*heap)
		defer stop()
	}
	if *snap != "" {
		go snapHeap(*snap)
	}
	sink := local.NewCSV(io.Discard)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		sink = local.NewCSV(f)
		if strings.HasSuffix(*out, ".parquet") {
			sink = local.NewParquet(f, "")
		}
	}
	rep, err := local.Run(context.Background(), join.Options{
		Sides:        join.Sides{Keys: *keys, Input: *input, Where: *where, KeysWhere: *keysWhere},
		Keying:       join.Keying{KeyCol: *keyCol, JoinCol: *joinCol},
		JoinType:     join.JoinType(*joinType),
		FilterChoice: join.FilterChoice{Filter: filters.Kind(*kind)},
		Resources:    join.Resources{Mappers: *mappers, MemBudget: *mem},
	}, sink)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("join rows %d; phases (ms) %v\n", rep.JoinRows, rep.TimingsMs)
}

// peakHeap samples the live heap (as of the last collection) every 20 ms
// and keeps the heap profile of the largest seen; stop writes it to path.
func peakHeap(path string) (stop func()) {
	runtime.MemProfileRate = 64 << 10
	done := make(chan struct{})
	finished := make(chan struct{})
	var best bytes.Buffer
	var peak uint64
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(live)
			if v := live[0].Value.Uint64(); v > peak+peak/50 { // 2% more: a new profile
				peak = v // the profile's in-use figures are as of the last GC too
				best.Reset()
				pprof.Lookup("heap").WriteTo(&best, 0)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		if err := os.WriteFile(path, best.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		fmt.Printf("peak live heap %.1f MiB\n", float64(peak)/(1<<20))
	}
}

// snapHeap writes a heap profile to dir every second, after a collection
// (so that it holds what is live then), until the program ends.
func snapHeap(dir string) {
	runtime.MemProfileRate = 64 << 10
	for i := 0; ; i++ {
		time.Sleep(time.Second)
		runtime.GC()
		f, err := os.Create(fmt.Sprintf("%s/h%02d.out", dir, i))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}
