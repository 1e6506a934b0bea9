// Command bank is the naive peer of `join bank build` + `validate`: the
// seed 000 pipeline (one Bloom filter per IMDb rating class, p = 0.01)
// written as a Go user would write it first, on one goroutine: read the
// TSV with bufio.Scanner and strings.Split, round each rating half up,
// count n_i, make ten bits-and-blooms filters of the seed's m_i =
// ceil(-n_i ln p / ln^2 2) bits and k = round((m_i/n_i) ln 2) (the same
// filters as ours), add each title, then probe every title against the
// other nine filters. It prints the false positive rate per class and its
// time, one JSON line.
//
//	go run ./bank -keys title.ratings.tsv
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bits-and-blooms/bloom/v3"
)

func main() {
	keys := flag.String("keys", "", "title.ratings.tsv")
	p := flag.Float64("p", 0.01, "target false positive rate")
	flag.Parse()
	if err := run(*keys, *p); err != nil {
		fmt.Fprintln(os.Stderr, "bank:", err)
		os.Exit(1)
	}
}

func run(path string, p float64) error {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var titles []string
	var classes []int
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		t := strings.Split(sc.Text(), "\t")
		if len(t) != 3 {
			return fmt.Errorf("line %d: %d fields", len(titles)+2, len(t))
		}
		r, err := strconv.ParseFloat(t[1], 64)
		if err != nil {
			return err
		}
		c := int(math.Floor(r + 0.5)) // half up: exact for one-decimal ratings
		if c < 1 || c > 10 {
			return fmt.Errorf("rating %s", t[1])
		}
		titles = append(titles, t[0])
		classes = append(classes, c)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	read := time.Since(start)
	var n [11]int
	for _, c := range classes {
		n[c]++
	}
	var bfs [11]*bloom.BloomFilter
	for c := 1; c <= 10; c++ {
		if n[c] == 0 {
			continue
		}
		m := math.Ceil(-float64(n[c]) * math.Log(p) / (math.Ln2 * math.Ln2))
		k := math.Round(m / float64(n[c]) * math.Ln2)
		bfs[c] = bloom.New(uint(m), uint(k))
	}
	for i, t := range titles {
		bfs[classes[i]].AddString(t)
	}
	built := time.Since(start)
	var hits [11]int
	for i, t := range titles {
		for c := 1; c <= 10; c++ {
			if c != classes[i] && bfs[c] != nil && bfs[c].TestString(t) {
				hits[c]++
			}
		}
	}
	total := time.Since(start)
	out := map[string]any{"read_seconds": read.Seconds(), "build_seconds": (built - read).Seconds(), "validate_seconds": (total - built).Seconds(), "total_seconds": total.Seconds()}
	fp := map[string]float64{}
	for c := 1; c <= 10; c++ {
		if n[c] > 0 {
			fp[strconv.Itoa(c)] = float64(hits[c]) / float64(len(titles)-n[c])
		}
	}
	out["fpp"] = fp
	return json.NewEncoder(os.Stdout).Encode(out)
}
