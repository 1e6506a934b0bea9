//go:build duckdb

// Command stream is the independent reference for `join stream`
// (/work/stream-spec.md): it writes the rows the streaming join must write,
// as a multiset (no header, any order), and prints the row count and the
// wall time.
//
// Event mode: the key events file is parsed here in Go (encoding/csv on
// each record after its op byte; records are split by quote parity, so a
// quoted field may hold line breaks). Each event gets its position idx and
// event batch idx / KB; the j-th delete of a key deletes the j-th insert of
// that key (FIFO), giving each insert the batches [bi, bd) in which it is
// live. The inserts go to DuckDB by appender, the probe file is read by
// DuckDB (all text, fixed dialect), and the join is
//
//	SELECT p.*, ins.rest FROM p JOIN ins ON p.X = ins.k
//	  AND ins.bi <= p.batch AND (ins.bd IS NULL OR p.batch < ins.bd)
//
// with p.batch = (probe data row, 0-based) / B.
//
// Timed mode (--window W): both files are read by DuckDB, and the join is
// ON p.X = k.A AND p.T - W < k.TK AND k.TK <= p.T.
//
// Integer keys (--key-type int) are [+-]?[0-9]+ within int64 on both sides
// and compare as BIGINT ("007" = "7"); anything else is an error naming the
// file and line. Each output field is written with minimal CSV quoting.
// Known asymmetry: a quoted CRLF inside a key-side field comes out as LF
// (encoding/csv), inside a probe field as CRLF (DuckDB keeps it). Stdout:
// "N rows S s" (S: wall time from reading to the written output);
// STREAM_REF_TIMES=1 adds the phases' times on stderr.
// Built with -tags duckdb in the bench/peers module:
//
//	cd bench/peers && go build -tags duckdb -o /tmp/stream-ref ./stream
package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

type options struct {
	events, probe      string
	keyCol, joinCol    string
	keyType            string
	batch, keyBatch    int64
	window             int64
	windowSet          bool
	keyTime, probeTime string
	out                string
}

func main() {
	var o options
	flag.StringVar(&o.events, "key-events", "", "key events file (event mode) or key file (timed mode); - for stdin")
	flag.StringVar(&o.probe, "probe", "", "probe CSV with header; - for stdin")
	flag.StringVar(&o.keyCol, "key-col", "", "key columns, comma-separated (default: the key header's first column)")
	flag.StringVar(&o.joinCol, "join-col", "", "probe key columns, comma-separated (default: the key columns' names)")
	flag.StringVar(&o.keyType, "key-type", "int", "int or string, one a column or one for all")
	flag.Int64Var(&o.batch, "batch", 100000, "probe rows a batch (B)")
	flag.Int64Var(&o.keyBatch, "key-batch", 0, "events a batch (KB; default --batch)")
	window := flag.String("window", "", "timed mode: window W (integer)")
	flag.StringVar(&o.keyTime, "key-time", "", "timed mode: the key file's time column")
	flag.StringVar(&o.probeTime, "probe-time", "", "timed mode: the probe's time column (default: --key-time)")
	flag.StringVar(&o.out, "out", "", "output file (rows only, no header)")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected arguments %q", flag.Args()))
	}
	if *window != "" {
		w, err := strconv.ParseInt(*window, 10, 64)
		if err != nil || w < 0 {
			fail(fmt.Errorf("--window %q: not a non-negative integer", *window))
		}
		o.window, o.windowSet = w, true
	}
	if o.keyBatch == 0 {
		o.keyBatch = o.batch
	}
	if err := run(o); err != nil {
		fail(err)
	}
}

// phase prints the time since the last phase to stderr if STREAM_REF_TIMES
// is set.
var phaseAt = time.Now()

func phase(name string) {
	if os.Getenv("STREAM_REF_TIMES") != "" {
		fmt.Fprintf(os.Stderr, "%s: %.3f s\n", name, time.Since(phaseAt).Seconds())
	}
	phaseAt = time.Now()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "stream:", err)
	os.Exit(1)
}

func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// field writes s with minimal CSV quoting.
func field(b *strings.Builder, s string) {
	if strings.ContainsAny(s, ",\"\r\n") {
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(s, `"`, `""`))
		b.WriteByte('"')
		return
	}
	b.WriteString(s)
}

// nextRecord returns the record starting at data[p:] (its end found by quote
// parity: a line end outside quotes), its line count, and the offset after it.
func nextRecord(data []byte, p int) (text []byte, lines int, next int) {
	inQuote := false
	for i := p; i < len(data); i++ {
		switch data[i] {
		case '"':
			inQuote = !inQuote
		case '\n':
			lines++
			if !inQuote {
				t := data[p:i]
				t = bytes.TrimSuffix(t, []byte{'\r'})
				return t, lines, i + 1
			}
		}
	}
	return data[p:], lines, len(data)
}

// feeder reads texts one after another, each followed by "\n".
type feeder struct {
	texts [][]byte
	cur   []byte
	nl    bool // cur is followed by its "\n", not yet given
}

func (f *feeder) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if len(f.cur) == 0 {
			if f.nl {
				b[n] = '\n'
				n++
				f.nl = false
				continue
			}
			if len(f.texts) == 0 {
				break
			}
			f.cur, f.texts, f.nl = f.texts[0], f.texts[1:], true
			continue
		}
		c := copy(b[n:], f.cur)
		f.cur = f.cur[c:]
		n += c
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// parseCSV parses one record's text with encoding/csv (strict quotes).
func parseCSV(text []byte) ([]string, error) {
	if len(text) == 0 {
		return []string{""}, nil
	}
	r := csv.NewReader(bytes.NewReader(text))
	r.FieldsPerRecord = -1
	fs, err := r.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if _, err := r.Read(); err != io.EOF {
		return nil, fmt.Errorf("more than one record (%v)", err)
	}
	return fs, nil
}

// readHeader reads the first record of path (BOM stripped).
func readHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var buf []byte
	for {
		line, err := br.ReadBytes('\n')
		buf = append(buf, line...)
		if bytes.Count(buf, []byte{'"'})%2 == 0 || err != nil {
			if err != nil && err != io.EOF {
				return nil, err
			}
			break
		}
	}
	buf = bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf"))
	text, _, _ := nextRecord(buf, 0)
	if len(buf) == 0 {
		return nil, fmt.Errorf("%s: empty file, no header", path)
	}
	h, err := parseCSV(text)
	if err != nil {
		return nil, fmt.Errorf("%s:1: header: %v", path, err)
	}
	return h, nil
}

// lineOfRow returns the line on which data row j (0-based, header and blank
// lines excluded) of path starts; for error messages.
func lineOfRow(path string, j int64) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	line, row := 1, int64(-1)
	for p := 0; p < len(data); {
		text, n, next := nextRecord(data, p)
		if len(text) > 0 || row == -1 {
			if row == j {
				return line
			}
			row++
		}
		line += n
		p = next
	}
	return line
}

func columnIndex(header []string, name, file string) (int, error) {
	for i, h := range header {
		if h == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: no column %q in header %q", file, name, header)
}

// stdinToFile copies stdin to a temporary file for DuckDB.
func stdinToFile(dir string) (string, error) {
	f, err := os.CreateTemp(dir, "stdin-*.csv")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := io.Copy(f, os.Stdin); err != nil {
		return "", err
	}
	return f.Name(), nil
}

type keySpec struct {
	keyCols, joinCols []string
	isInt             []bool
	keyIdx, joinIdx   []int
	rest              []int // key side's non-key columns, header order
}

func resolve(o options, kh, ph []string, kname, pname string) (*keySpec, error) {
	ks := &keySpec{}
	if o.keyCol == "" {
		ks.keyCols = []string{kh[0]}
	} else {
		ks.keyCols = strings.Split(o.keyCol, ",")
	}
	if o.joinCol == "" {
		ks.joinCols = ks.keyCols
	} else {
		ks.joinCols = strings.Split(o.joinCol, ",")
	}
	if len(ks.joinCols) != len(ks.keyCols) {
		return nil, fmt.Errorf("%d key columns, %d join columns", len(ks.keyCols), len(ks.joinCols))
	}
	ts := strings.Split(o.keyType, ",")
	if len(ts) != 1 && len(ts) != len(ks.keyCols) {
		return nil, fmt.Errorf("%d key types for %d key columns", len(ts), len(ks.keyCols))
	}
	isKey := map[int]bool{}
	for n := range ks.keyCols {
		t := ts[min(n, len(ts)-1)]
		if t != "int" && t != "string" {
			return nil, fmt.Errorf("--key-type %q: int or string", t)
		}
		ks.isInt = append(ks.isInt, t == "int")
		ki, err := columnIndex(kh, ks.keyCols[n], kname)
		if err != nil {
			return nil, err
		}
		ji, err := columnIndex(ph, ks.joinCols[n], pname)
		if err != nil {
			return nil, err
		}
		ks.keyIdx, ks.joinIdx = append(ks.keyIdx, ki), append(ks.joinIdx, ji)
		isKey[ki] = true
	}
	for i := range kh {
		if !isKey[i] {
			ks.rest = append(ks.rest, i)
		}
	}
	return ks, nil
}

// parseKeyInt is the integer key syntax: [+-]?[0-9]+ within int64.
func parseKeyInt(s string) (int64, error) {
	return strconv.ParseInt(s, 10, 64)
}

// readCSVSQL is DuckDB's read_csv of a headed CSV with positional column
// names c0..c{n-1}, every column text, fixed RFC 4180 dialect.
func readCSVSQL(path string, n int) string {
	var cols []string
	for i := 0; i < n; i++ {
		cols = append(cols, fmt.Sprintf("'c%d': 'VARCHAR'", i))
	}
	return fmt.Sprintf("read_csv(%s, header=true, auto_detect=false, delim=',', quote='\"', escape='\"', columns={%s})",
		lit(path), strings.Join(cols, ", "))
}

// loadSide creates table name from a CSV with a 0-based row number rn,
// scanned with one thread (file order).
func loadSide(db *sql.DB, name, path string, n int) error {
	if _, err := db.Exec("SET threads=1"); err != nil {
		return err
	}
	q := fmt.Sprintf("CREATE TABLE %s AS SELECT *, row_number() OVER () - 1 AS rn FROM %s", name, readCSVSQL(path, n))
	if _, err := db.Exec(q); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	_, err := db.Exec("RESET threads")
	return err
}

// checkInt fails on the first row of table whose column col is not an
// integer key.
func checkInt(db *sql.DB, table string, col int, path, what string) error {
	c := fmt.Sprintf("c%d", col)
	q := fmt.Sprintf(`SELECT rn, coalesce(%s, '') FROM %s WHERE NOT regexp_full_match(coalesce(%s, ''), '[+-]?[0-9]+')
		OR TRY_CAST(%s AS BIGINT) IS NULL ORDER BY rn LIMIT 1`, c, table, c, c)
	var rn int64
	var v string
	err := db.QueryRow(q).Scan(&rn, &v)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%s:%d: %s %q is not an integer", path, lineOfRow(path, rn), what, v)
}

func run(o options) error {
	if o.events == "" || o.probe == "" || o.out == "" {
		return fmt.Errorf("--key-events, --probe and --out are required")
	}
	if o.batch < 1 || o.keyBatch < 1 {
		return fmt.Errorf("--batch and --key-batch must be positive")
	}
	if !o.windowSet && (o.keyTime != "" || o.probeTime != "") {
		return fmt.Errorf("--key-time and --probe-time need --window")
	}
	if o.windowSet && o.keyTime == "" {
		return fmt.Errorf("--window needs --key-time")
	}
	tmp, err := os.MkdirTemp("", "stream-ref-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	if o.probe == "-" {
		if o.probe, err = stdinToFile(tmp); err != nil {
			return err
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: temp state and SETs stay put
	ph, err := readHeader(o.probe)
	if err != nil {
		return err
	}
	var rows *sql.Rows
	var ks *keySpec
	var restCols int
	if o.windowSet {
		if o.events == "-" {
			if o.events, err = stdinToFile(tmp); err != nil {
				return err
			}
		}
		kh, err := readHeader(o.events)
		if err != nil {
			return err
		}
		if ks, err = resolve(o, kh, ph, o.events, o.probe); err != nil {
			return err
		}
		restCols = len(ks.rest)
		if rows, err = timed(db, o, ks, kh, ph); err != nil {
			return err
		}
	} else {
		if ks, rows, err = events(db, o, ph); err != nil {
			return err
		}
		restCols = 1
	}
	defer rows.Close()
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	vals := make([]sql.NullString, len(ph)+restCols)
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		b.Reset()
		for i := range ph {
			if i > 0 {
				b.WriteByte(',')
			}
			field(&b, vals[i].String)
		}
		if o.windowSet {
			for _, v := range vals[len(ph):] {
				b.WriteByte(',')
				field(&b, v.String)
			}
		} else if len(ks.rest) > 0 {
			b.WriteByte(',')
			b.WriteString(vals[len(ph)].String) // formatted already
		}
		b.WriteByte('\n')
		w.WriteString(b.String())
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	phase("join and write")
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("%d rows %.3f s\n", n, time.Since(start).Seconds())
	return nil
}

// events runs event mode and returns the result rows: the probe's columns,
// then the key row's non-key fields formatted as one string.
func events(db *sql.DB, o options, ph []string) (*keySpec, *sql.Rows, error) {
	var data []byte
	var err error
	name := o.events
	if name == "-" {
		name = "stdin"
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(data) == 0 {
		return nil, nil, fmt.Errorf("%s: empty file, no header", name)
	}
	htext, hl, p := nextRecord(data, 0)
	kh, err := parseCSV(htext)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:1: header: %v", name, err)
	}
	ks, err := resolve(o, kh, ph, name, o.probe)
	if err != nil {
		return nil, nil, err
	}

	// Parse events; FIFO per key.
	type insert struct {
		ints   []int64
		strs   []string
		bi, bd int64 // bd -1: never deleted
		rest   string
	}
	var ins []insert
	live := map[string][]int{} // key -> queue of live insert indices
	line := 1 + hl
	var idx int64
	canon := func(vals []string, at int) ([]int64, []string, string, error) {
		var kb strings.Builder
		ints := make([]int64, len(vals))
		strs := make([]string, len(vals))
		for n, v := range vals {
			if ks.isInt[n] {
				x, err := parseKeyInt(v)
				if err != nil {
					return nil, nil, "", fmt.Errorf("%s:%d: key %q is not an integer", name, at, v)
				}
				ints[n] = x
				kb.WriteString(strconv.FormatInt(x, 10))
				kb.WriteByte(0)
			} else {
				strs[n] = v
				kb.WriteString(strconv.Itoa(len(v)))
				kb.WriteByte(':')
				kb.WriteString(v)
			}
		}
		return ints, strs, kb.String(), nil
	}
	// Split the records by quote parity; then one encoding/csv reader parses
	// every record's text after its op byte, fed one after another, each
	// checked to end where its text ends.
	type event struct {
		op   byte
		rest []byte
		line int
	}
	var evs []event
	for p < len(data) {
		text, nl, next := nextRecord(data, p)
		if len(text) > 0 { // a blank line is no record (encoding/csv skips it)
			evs = append(evs, event{text[0], text[1:], line})
		}
		line += nl
		p = next
	}
	fd := &feeder{}
	for _, e := range evs {
		if len(e.rest) > 0 {
			fd.texts = append(fd.texts, e.rest)
		}
	}
	cr := csv.NewReader(fd)
	cr.FieldsPerRecord = -1
	var off int64
	for _, e := range evs {
		op, at := e.op, e.line
		fs := []string{""} // "+" or "-" alone: one empty field
		if len(e.rest) > 0 {
			off += int64(len(e.rest)) + 1
			fs, err = cr.Read()
			if err != nil {
				var pe *csv.ParseError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return nil, nil, fmt.Errorf("%s:%d: %v", name, at, err)
			}
			if cr.InputOffset() != off {
				return nil, nil, fmt.Errorf("%s:%d: record not where quote parity ends it", name, at)
			}
		}
		batch := idx / o.keyBatch
		idx++
		switch op {
		case '+':
			if len(fs) != len(kh) {
				return nil, nil, fmt.Errorf("%s:%d: insert has %d fields, the header %d", name, at, len(fs), len(kh))
			}
			kv := make([]string, len(ks.keyIdx))
			for n, ki := range ks.keyIdx {
				kv[n] = fs[ki]
			}
			ints, strs, key, err := canon(kv, at)
			if err != nil {
				return nil, nil, err
			}
			var b strings.Builder
			for n, ri := range ks.rest {
				if n > 0 {
					b.WriteByte(',')
				}
				field(&b, fs[ri])
			}
			live[key] = append(live[key], len(ins))
			ins = append(ins, insert{ints, strs, batch, -1, b.String()})
		case '-':
			if len(fs) != len(ks.keyIdx) {
				return nil, nil, fmt.Errorf("%s:%d: delete has %d fields, the key %d", name, at, len(fs), len(ks.keyIdx))
			}
			_, _, key, err := canon(fs, at)
			if err != nil {
				return nil, nil, err
			}
			q := live[key]
			if len(q) == 0 {
				return nil, nil, fmt.Errorf("%s:%d: delete of key %q with no live row", name, at, fs)
			}
			ins[q[0]].bd = batch
			if len(q) == 1 {
				delete(live, key)
			} else {
				live[key] = q[1:]
			}
		default:
			return nil, nil, fmt.Errorf("%s:%d: event %q: not + or -", name, at, op)
		}
	}

	phase("parse events")
	// Load the inserts.
	var cols []string
	for n := range ks.keyIdx {
		t := "VARCHAR"
		if ks.isInt[n] {
			t = "BIGINT"
		}
		cols = append(cols, fmt.Sprintf("k%d %s", n, t))
	}
	if _, err := db.Exec(fmt.Sprintf("CREATE TABLE ins (%s, bi BIGINT, bd BIGINT, rest VARCHAR)", strings.Join(cols, ", "))); err != nil {
		return nil, nil, err
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		return nil, nil, err
	}
	err = conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", "ins")
		if err != nil {
			return err
		}
		row := make([]driver.Value, len(ks.keyIdx)+3)
		for _, r := range ins {
			for n := range ks.keyIdx {
				if ks.isInt[n] {
					row[n] = r.ints[n]
				} else {
					row[n] = r.strs[n]
				}
			}
			row[len(ks.keyIdx)] = r.bi
			if r.bd < 0 {
				row[len(ks.keyIdx)+1] = nil
			} else {
				row[len(ks.keyIdx)+1] = r.bd
			}
			row[len(ks.keyIdx)+2] = r.rest
			if err := a.AppendRow(row...); err != nil {
				a.Close()
				return err
			}
		}
		return a.Close()
	})
	conn.Close()
	if err != nil {
		return nil, nil, err
	}

	phase("append inserts")
	// Load and check the probe.
	if err := loadSide(db, "p", o.probe, len(ph)); err != nil {
		return nil, nil, err
	}
	var on []string
	for n, ji := range ks.joinIdx {
		x := fmt.Sprintf("p.c%d", ji)
		if ks.isInt[n] {
			if err := checkInt(db, "p", ji, o.probe, "key "+ph[ji]); err != nil {
				return nil, nil, err
			}
			x = "CAST(" + x + " AS BIGINT)"
		} else {
			x = "coalesce(" + x + ", '')"
		}
		on = append(on, fmt.Sprintf("%s = ins.k%d", x, n))
	}
	phase("load probe")
	var pcols []string
	for i := range ph {
		pcols = append(pcols, fmt.Sprintf("p.c%d", i))
	}
	q := fmt.Sprintf(`SELECT %s, ins.rest FROM p JOIN ins ON %s
		AND ins.bi <= p.rn // %d AND (ins.bd IS NULL OR p.rn // %d < ins.bd)`,
		strings.Join(pcols, ", "), strings.Join(on, " AND "), o.batch, o.batch)
	rows, err := db.Query(q)
	return ks, rows, err
}

// timed runs timed mode and returns the result rows: the probe's columns,
// then the key row's non-key columns.
func timed(db *sql.DB, o options, ks *keySpec, kh, ph []string) (*sql.Rows, error) {
	if o.probeTime == "" {
		o.probeTime = o.keyTime
	}
	kt, err := columnIndex(kh, o.keyTime, o.events)
	if err != nil {
		return nil, err
	}
	pt, err := columnIndex(ph, o.probeTime, o.probe)
	if err != nil {
		return nil, err
	}
	for _, s := range []struct {
		table, path string
		header      []string
		keys        []int
		time        int
	}{{"k", o.events, kh, ks.keyIdx, kt}, {"p", o.probe, ph, ks.joinIdx, pt}} {
		if err := loadSide(db, s.table, s.path, len(s.header)); err != nil {
			return nil, err
		}
		for n, c := range s.keys {
			if ks.isInt[n] {
				if err := checkInt(db, s.table, c, s.path, "key "+s.header[c]); err != nil {
					return nil, err
				}
			}
		}
		if err := checkInt(db, s.table, s.time, s.path, "time "+s.header[s.time]); err != nil {
			return nil, err
		}
		c := fmt.Sprintf("CAST(c%d AS BIGINT)", s.time)
		q := fmt.Sprintf(`SELECT rn, prev, t FROM (SELECT rn, %s AS t, lag(%s) OVER (ORDER BY rn) AS prev FROM %s)
			WHERE t < prev ORDER BY rn LIMIT 1`, c, c, s.table)
		var rn, prev, t int64
		err := db.QueryRow(q).Scan(&rn, &prev, &t)
		if err == nil {
			return nil, fmt.Errorf("%s:%d: time %d after %d: out of order", s.path, lineOfRow(s.path, rn), t, prev)
		}
		if err != sql.ErrNoRows {
			return nil, err
		}
	}
	var on []string
	for n := range ks.keyIdx {
		x, a := fmt.Sprintf("p.c%d", ks.joinIdx[n]), fmt.Sprintf("k.c%d", ks.keyIdx[n])
		if ks.isInt[n] {
			x, a = "CAST("+x+" AS BIGINT)", "CAST("+a+" AS BIGINT)"
		} else {
			x, a = "coalesce("+x+", '')", "coalesce("+a+", '')"
		}
		on = append(on, x+" = "+a)
	}
	tk, tp := fmt.Sprintf("CAST(k.c%d AS HUGEINT)", kt), fmt.Sprintf("CAST(p.c%d AS HUGEINT)", pt)
	on = append(on, fmt.Sprintf("%s - %d < %s AND %s <= %s", tp, o.window, tk, tk, tp))
	var sel []string
	for i := range ph {
		sel = append(sel, fmt.Sprintf("p.c%d", i))
	}
	for _, i := range ks.rest {
		sel = append(sel, fmt.Sprintf("k.c%d", i))
	}
	q := fmt.Sprintf("SELECT %s FROM p JOIN k ON %s", strings.Join(sel, ", "), strings.Join(on, " AND "))
	return db.Query(q)
}
