package local

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

// Skew in the batch join (Options.Skew, docs/skew.md).
//
// With plain hash partitioning every row of a key goes to the partition
// join.Partition names, so a key that holds more than N/R of the large
// side's N rows makes its partition's reducer the last to finish whatever
// the other R-1 do. The key-side rows are partitioned in the build phase,
// before the large side's keys are seen in the map phase; the hot keys must
// therefore be known before the build. So SkewAuto runs a sampling pass
// first (sample): sampleParts evenly spaced pieces of the large side (a
// regular file: csvscan cuts them at proven record boundaries), the first
// samplePartRows rows of each, their keys counted exactly (at most 64Ki
// distinct keys: an exact map is smaller and more accurate than a sketch at
// this size). A key whose sampled rows exceed sampled/R (N/R scaled by the
// sampled fraction) is hot and gets s = ceil(rows / (N/R)) partitions, at
// most R (planSkew). The build writes a hot key's key-side rows to each of
// its partitions; the map spreads its large-side rows over them round
// robin. Every large-side row still meets every key-side row of its key in
// exactly one partition, so the output is the same rows.
//
// A stream input (a pipe, standard input, a compressed file) cannot be
// sampled before it is read, and read it is only once: then the key side,
// if a regular file, is sampled instead, its keys' shares standing in for
// the large side's (right for self-joins and for sides whose skew follows
// each other; a key side of distinct keys finds nothing hot, and nothing
// changes). The report says which side was sampled.

// Sampling constants: 64 pieces of at most 1,024 rows, 65,536 rows in all.
// The pieces' cuts are proven by csvscan's window rule only (the sample
// input is opened with SkipBad), which reads at most 1 MiB before a cut:
// 64 MiB at most, in place of the parity rule's read from the file's
// start when a quote comes before a cut.
const (
	sampleParts    = 64
	samplePartRows = 1024
)

// skewPlan is what Options.Skew decided: the hot keys and their partitions,
// and how the sample found them. A nil *skewPlan (SkewOff, or no hot key)
// partitions plainly. Its methods only read it: safe for concurrent use.
type skewPlan struct {
	hot []hotKey
	// byHome[p] lists the hot keys whose plain partition is p: a table of
	// R buckets probed with the key's hash reduced to a partition (the
	// join.Partition every row computes anyway), so a row whose partition
	// holds no hot key costs one slice load, and the others a compare with
	// the (few) hot keys of their partition.
	byHome [][]int32
}

type hotKey struct {
	key   []byte
	parts []int // the partitions its rows are spread over
	share float64
}

// skewSample is what a sampling pass read: each distinct key's rows (or,
// with sampleShape.inOrder, the keys in the order read), and how much of
// the side the sample covered.
type skewSample struct {
	source string // which side: "input sample" or "key side sample"
	counts map[string]int64
	// keys holds the sampled rows' keys one after another, key i ending
	// at ends[i] (inOrder; counts is nil then).
	keys    []byte
	ends    []int
	rows    int64   // rows sampled
	bytes   int64   // their bytes, line ends included
	size    int64   // the side's bytes after the header
	estRows float64 // the side's rows, estimated: size * rows / bytes
	note    string  // why nothing was sampled
	// parseNs is the time the sampled rows took to parse and key, each
	// part's first row (which reads the part's first buffer) left out, over
	// parsedRows rows: the reading thread's CPU time (lockCPUClock).
	parseNs    int64
	parsedRows int64
}

// sample reads the sample of Options.Skew: the large side if it is a
// regular file, else the key side if that is one, else nothing (the note
// says why).
func (x *execution) sample(ctx context.Context) (*skewSample, error) {
	switch {
	case x.input.Regular():
		return x.sampleSide(ctx, x.input, x.joinSpec, "input sample")
	case x.keys.Regular():
		s, err := x.sampleSide(ctx, x.keys, x.keySpec, "key side sample")
		if s != nil {
			s.note = "the input is a stream: the key side's key shares stand in for the input's"
		}
		return s, err
	}
	return &skewSample{note: "both sides are streams: nothing to sample, plain partitioning"}, nil
}

// sampleShape is what a sampling pass reads: the first partRows rows of
// parts evenly spaced pieces. inOrder keeps the keys in the order read
// (skewSample.keys) instead of counting them: Filter auto looks each one
// up once, and a map of 16,384 keys built for nothing cost it half of its
// sample's time (its growth and a string a key).
type sampleShape struct {
	parts, partRows int
	inOrder         bool
}

// sampleSide reads up to samplePartRows rows at the start of each of
// sampleParts evenly spaced pieces of s (a regular file), opened anew, and
// counts their keys (ks). Malformed rows and keys that do not parse are
// skipped: the map phase reports them.
func (x *execution) sampleSide(ctx context.Context, s *source.Side, ks key.Spec, origin string) (*skewSample, error) {
	return x.sampleSideN(ctx, s, ks, origin, sampleShape{parts: sampleParts, partRows: samplePartRows})
}

// sampleSideN is sampleSide with the pieces of shape.
func (x *execution) sampleSideN(ctx context.Context, s *source.Side, ks key.Spec, origin string, shape sampleShape) (*skewSample, error) {
	parts, partRows := shape.parts, shape.partRows
	if s.Tab != nil {
		return x.sampleTable(ctx, s, ks, origin, shape)
	}
	in, err := s.OpenCSV(ctx, csvscan.InputOptions{Parts: parts, SkipBad: true, Sample: true, Name: s.Name, Sep: s.Sep})
	if err != nil {
		return nil, err
	}
	defer in.Close()
	now, unlock := lockCPUClock()
	defer unlock()
	smp := newSample(origin, in.Size, shape)
	// The keys of a part are kept in one buffer and counted after the part
	// is read, so that the parse time leaves the counting out (inOrder:
	// the buffer is the sample's, never reset).
	keys, ends := smp.keys, smp.ends
	var batch csvscan.Batch
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := in.Next()
		if err != nil {
			return nil, err
		}
		if p == nil {
			break
		}
		p.SkipBad(func(*csvscan.ParseError) {})
		if !shape.inOrder {
			keys, ends = keys[:0], ends[:0]
		}
		before := len(ends)
		start := time.Duration(-1) // not timed yet
		add := func(fields [][]byte) {
			if k, err := ks.Append(keys, fields); err == nil {
				keys = k
				ends = append(ends, len(keys))
			}
		}
		if !ks.Composite() {
			// One column: its field alone, in batches, as the map phase
			// reads it (so that the parse time is the map's), the first
			// batch (which reads the part's first buffer) not timed.
			one := make([][]byte, ks.Cols[0]+1)
			for n, first := 0, true; n < partRows && p.NextBatch(ks.Cols[0], min(mapBatch, partRows-n), &batch); first = false {
				if first {
					start = now()
				} else {
					smp.parsedRows += int64(batch.Len()) // timed, whether its keys parse or not
				}
				for i := range batch.Len() {
					smp.bytes += int64(batch.RawLen(i)) + 1
					one[ks.Cols[0]] = batch.Field(i)
					add(one)
				}
				n += batch.Len()
			}
		} else {
			for n := 0; n < partRows && p.Next(); n++ {
				if n == 1 {
					start = now()
				}
				smp.bytes += int64(len(p.Raw())) + 1
				if n >= 1 {
					smp.parsedRows++ // timed, whether its key parses or not
				}
				add(p.Fields())
			}
		}
		if start >= 0 {
			smp.parseNs += (now() - start).Nanoseconds()
		}
		err = p.Err()
		p.Release()
		if err != nil {
			return nil, err
		}
		smp.rows += int64(len(ends) - before)
		if shape.inOrder {
			continue
		}
		lo := 0
		for _, e := range ends {
			smp.counts[string(keys[lo:e])]++
			lo = e
		}
	}
	if shape.inOrder {
		smp.keys, smp.ends = keys, ends
	}
	if smp.bytes > 0 {
		smp.estRows = max(float64(smp.size)*float64(smp.rows)/float64(smp.bytes), float64(smp.rows))
	}
	return smp, nil
}

// newSample is an empty sample of a side of size bytes, its key buffers
// sized for the rows of shape (inOrder) or its map.
func newSample(origin string, size int64, shape sampleShape) *skewSample {
	smp := &skewSample{source: origin, size: size}
	if shape.inOrder {
		rows := shape.parts * shape.partRows
		smp.keys, smp.ends = make([]byte, 0, 16*rows), make([]int, 0, rows)
	} else {
		smp.counts = map[string]int64{}
	}
	return smp
}

// sampleTable is sampleSideN of a table (not a stream): the first
// partRows rows of parts chunks evenly spaced, keyed as the map phase keys
// them (chunkKeys); a row's bytes are its chunk's uncompressed bytes a
// row, its parse time the decoding and keying of its chunk's key columns
// a row.
func (x *execution) sampleTable(ctx context.Context, s *source.Side, ks key.Spec, origin string, shape sampleShape) (*skewSample, error) {
	parts, partRows := shape.parts, shape.partRows
	t := s.Tab
	smp := newSample(origin, s.Size, shape)
	chunks := t.Chunks()
	if chunks <= 0 {
		return smp, nil
	}
	var total, totalBytes int64
	for i := range chunks {
		total += t.ChunkRows(i)
		totalBytes += t.ChunkBytes(i)
	}
	m := &mapWorker{tm: newTableMapper(s)}
	now, unlock := lockCPUClock()
	defer unlock()
	seen := map[int]bool{}
	for p := range min(parts, chunks) {
		i := p * chunks / min(parts, chunks)
		if seen[i] {
			continue
		}
		seen[i] = true
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := &source.Chunk{Side: s, Index: i, Rows: int(t.ChunkRows(i))}
		start := now()
		cols, err := c.Read(ks.Cols)
		if err != nil {
			return nil, err
		}
		n := min(partRows, cols[0].Len())
		for lo := 0; lo < n; lo += mapBatch {
			if err := x.chunkKeys(m, ks, chunkRows{c: c, cols: cols, lo: lo, hi: min(lo+mapBatch, n)}, false); err != nil {
				return nil, err
			}
			for _, k := range m.tm.keys {
				if shape.inOrder {
					smp.keys = append(smp.keys, k...)
					smp.ends = append(smp.ends, len(smp.keys))
				} else {
					smp.counts[string(k)]++
				}
			}
			smp.rows += int64(len(m.tm.keys))
		}
		// The column chunk is decoded whole: its time a row is over all
		// its rows.
		smp.parseNs += (now() - start).Nanoseconds() * int64(n) / int64(max(cols[0].Len(), 1))
		smp.parsedRows += int64(n)
		if c.Rows > 0 {
			smp.bytes += t.ChunkBytes(i) * int64(n) / int64(c.Rows)
		}
	}
	smp.estRows = float64(total)
	return smp, nil
}

// planSkew finds the hot keys of a sample for r partitions on reducers
// reducers and places their slices: a key is hot when its sampled rows
// exceed rows/reducers (a reducer's share, N/R in the sample's units);
// it gets s = ceil(count/(rows/reducers)) partitions, at most r, each
// taking count/s of its rows. A key below a reducer's share needs no
// slicing: the reducers take the partitions largest first (reduce), so
// a partition it makes large is evened out by the others (partsPerReducer
// a reducer). The slices are placed greedily,
// largest key first, each on the s least loaded partitions, the load of a
// partition starting from the sampled rows of its non-hot keys (ties to
// the lower index: the plan is a function of the sample). It returns nil
// when no key is hot.
func planSkew(smp *skewSample, r, reducers int) *skewPlan {
	if smp == nil || smp.rows == 0 || r < 2 || reducers < 2 {
		return nil
	}
	threshold := float64(smp.rows) / float64(min(reducers, r))
	type cand struct {
		key   string
		count int64
	}
	var hot []cand
	load := make([]float64, r)
	for k, c := range smp.counts {
		if float64(c) > threshold {
			hot = append(hot, cand{k, c})
			continue
		}
		load[join.Partition([]byte(k), r)] += float64(c)
	}
	if len(hot) == 0 {
		return nil
	}
	slices.SortFunc(hot, func(a, b cand) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	plan := &skewPlan{byHome: make([][]int32, r)}
	order := make([]int, r)
	for i, h := range hot {
		s := min(r, int(math.Ceil(float64(h.count)/threshold)))
		for p := range order {
			order[p] = p
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(load[a], load[b]) })
		parts := slices.Clone(order[:s])
		slices.Sort(parts)
		for _, p := range parts {
			load[p] += float64(h.count) / float64(s)
		}
		key := []byte(h.key)
		plan.hot = append(plan.hot, hotKey{key: key, parts: parts, share: float64(h.count) / float64(smp.rows)})
		home := join.Partition(key, r)
		plan.byHome[home] = append(plan.byHome[home], int32(i))
	}
	return plan
}

// hotIndex returns the index of key among the hot keys, or -1; p is the
// key's plain partition (join.Partition). O(1) for a row of a partition
// with no hot key; a compare with each hot key of p otherwise.
func (sp *skewPlan) hotIndex(key []byte, p int) int {
	for _, i := range sp.byHome[p] {
		if bytes.Equal(sp.hot[i].key, key) {
			return int(i)
		}
	}
	return -1
}

// spreader sends a mapper's large-side rows of the hot keys round robin
// over their partitions. Not safe for concurrent use: one a mapper.
type spreader struct {
	sp   *skewPlan
	next []int
}

// newSpreader starts mapper i's rotation of each hot key at slice i, so
// that mappers with few rows of a key do not all fill its first slice.
func newSpreader(sp *skewPlan, i int) *spreader {
	s := &spreader{sp: sp, next: make([]int, len(sp.hot))}
	for h := range s.next {
		s.next[h] = i % len(sp.hot[h].parts)
	}
	return s
}

// partition returns the partition of a large-side row of key whose plain
// partition is p.
func (s *spreader) partition(key []byte, p int) int {
	h := s.sp.hotIndex(key, p)
	if h < 0 {
		return p
	}
	parts := s.sp.hot[h].parts
	q := parts[s.next[h]]
	if s.next[h]++; s.next[h] == len(parts) {
		s.next[h] = 0
	}
	return q
}

// keyPartitions returns the partitions a key-side row of key goes to: its
// plain partition p, or every partition of a hot key. dst is reused.
func (sp *skewPlan) keyPartitions(key []byte, p int, dst []int) []int {
	if sp != nil {
		if h := sp.hotIndex(key, p); h >= 0 {
			return append(dst[:0], sp.hot[h].parts...)
		}
	}
	return append(dst[:0], p)
}

// report describes the plan and its sample (mode is Options.Skew; r the
// reducers, whose share makes a key hot).
func (sp *skewPlan) report(mode join.Skew, smp *skewSample, r int, ks key.Spec) join.SkewReport {
	rep := join.SkewReport{Mode: mode}
	if smp == nil {
		return rep
	}
	rep.Source, rep.Note, rep.SampledRecords = smp.source, smp.note, smp.rows
	if smp.estRows > 0 {
		rep.SampledFraction = float64(smp.rows) / smp.estRows
	}
	input := smp.source == "input sample"
	if input {
		rep.InputRecordsEstimate = int64(math.Round(smp.estRows))
		rep.ThresholdRecords = int64(math.Round(smp.estRows / float64(r)))
	}
	if sp == nil {
		if rep.Note == "" && smp.rows > 0 {
			rep.Note = "no hot key: plain partitioning"
		}
		return rep
	}
	for _, h := range sp.hot {
		hk := join.HotKey{Key: ks.Format(h.key), Share: h.share, Partitions: h.parts}
		if input {
			hk.RecordsEstimate = int64(math.Round(h.share * smp.estRows))
		}
		rep.HotKeys = append(rep.HotKeys, hk)
	}
	return rep
}

// partCounts counts the shuffle's records per partition: as plain hash
// partitioning would have put them and as they were put. One a worker,
// added up under the phase's lock.
type partCounts struct {
	plain, actual []int64
	// bytes are the key and row bytes of the records of each partition
	// (actual): the build's, so that the reduce sizes its key table once.
	bytes []int64
}

// newPartCounts is a worker's counts of r partitions, on cache lines of
// their own (ownLines): the build's workers add to theirs at every row.
func newPartCounts(r int) partCounts {
	c := ownLines[int64](3 * r)
	return partCounts{plain: c[:r:r], actual: c[r : 2*r : 2*r], bytes: c[2*r:]}
}

// ownLines returns n zeros that share no cache line with another object:
// a goroutine's own counters and scratch, written at every row. Small
// objects of one size sit side by side in the heap, and Go's tiny
// allocator packs objects under 16 bytes without pointers into one block
// (a 1-element []int beside a slice another goroutine reads at every row):
// the two cores then take the line from each other at each write. At
// 10^7 key-side rows, a build worker's []int of its row's partitions
// (keyPartitions), beside the key columns every worker reads, stalled the
// build's CPU 4% on that one load (Intel Xeon, perf). O(n).
func ownLines[T int | int64](n int) []T {
	const pad = 8 // elements in 64 bytes, at most
	return make([]T, n+2*pad)[pad : pad+n : pad+n]
}

func (c *partCounts) add(o partCounts) {
	for p := range c.plain {
		c.plain[p] += o.plain[p]
		c.actual[p] += o.actual[p]
		c.bytes[p] += o.bytes[p]
	}
}
