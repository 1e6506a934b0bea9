// Command profilejoin runs one join through the library (join/local.Run)
// under a CPU profile, for looking at where the map phase's time goes:
//
//	go run ./bench/cmd/profilejoin -keys K -input I -cpuprofile cpu.out [-mappers N] [-filter KIND]
//	go tool pprof -top cpu.out
//
// The output rows are discarded. It prints the report's phase timings.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

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
	flag.Parse()
	if *keys == "" || *input == "" {
		fmt.Fprintln(os.Stderr, "profilejoin: -keys and -input are required")
		os.Exit(2)
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := local.Run(context.Background(), join.Options{
		Sides:        join.Sides{Keys: *keys, Input: *input},
		Keying:       join.Keying{KeyCol: *keyCol, JoinCol: *joinCol},
		FilterChoice: join.FilterChoice{Filter: filters.Kind(*kind)},
		Resources:    join.Resources{Mappers: *mappers},
	}, local.NewCSV(io.Discard))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("join rows %d; phases (ms) %v\n", rep.JoinRows, rep.TimingsMs)
}
