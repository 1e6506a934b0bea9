// Command naive is the plain-Go peer of the join benchmark: the join as a
// programmer would write it in one goroutine with the standard library: a
// bufio.Scanner over the key file into a map[int64] of the key rows, then a
// bufio.Scanner over the large file, each line's join column parsed with
// strconv and looked up, the matches written as the large row, a comma and
// the key row's other fields. No filter, no quotes handled (the NBER files
// quote only their header). It lives in bench/peers so that its numbers sit
// beside ours in bench/results/join.md.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
)

func main() {
	keys := flag.String("keys", "", "key file (CSV with a header)")
	input := flag.String("input", "", "large file (CSV with a header)")
	keyCol := flag.Int("key-col", 0, "join column of the key file (0-based)")
	joinCol := flag.Int("join-col", 1, "join column of the large file (0-based)")
	out := flag.String("out", "", "output CSV")
	flag.Parse()
	if err := run(*keys, *input, *keyCol, *joinCol, *out); err != nil {
		fmt.Fprintln(os.Stderr, "naive:", err)
		os.Exit(1)
	}
}

func run(keys, input string, keyCol, joinCol int, out string) error {
	kf, err := os.Open(keys)
	if err != nil {
		return err
	}
	defer kf.Close()
	rows := map[int64][][]byte{} // key -> the key rows' other fields
	sc := bufio.NewScanner(kf)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var keyHeader []byte
	for first := true; sc.Scan(); first = false {
		fields := bytes.Split(sc.Bytes(), []byte(","))
		if first {
			keyHeader = rest(fields, keyCol)
			continue
		}
		k, err := strconv.ParseInt(string(fields[keyCol]), 10, 64)
		if err != nil {
			return err
		}
		rows[k] = append(rows[k], rest(fields, keyCol))
	}
	if err := sc.Err(); err != nil {
		return err
	}
	inf, err := os.Open(input)
	if err != nil {
		return err
	}
	defer inf.Close()
	of, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(of, 1<<20)
	sc = bufio.NewScanner(inf)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for first := true; sc.Scan(); first = false {
		line := sc.Bytes()
		if first {
			w.Write(line)
			w.WriteByte(',')
			w.Write(keyHeader)
			w.WriteByte('\n')
			continue
		}
		field := line
		for i := 0; i < joinCol; i++ {
			field = field[bytes.IndexByte(field, ',')+1:]
		}
		if j := bytes.IndexByte(field, ','); j >= 0 {
			field = field[:j]
		}
		k, err := strconv.ParseInt(string(field), 10, 64)
		if err != nil {
			return err
		}
		for _, r := range rows[k] {
			w.Write(line)
			w.WriteByte(',')
			w.Write(r)
			w.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return of.Close()
}

// rest joins the fields but the one at skip.
func rest(fields [][]byte, skip int) []byte {
	var b []byte
	for i, f := range fields {
		if i == skip {
			continue
		}
		if len(b) > 0 || (i > 0 && !(i == 1 && skip == 0)) {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	return b
}
