package local

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// keyTableEntryBytes is what the reduce's key table holds a row beside its
// key and row bytes: its entry (keyEnt, 32 bytes), its share of the
// index (spanIndex: 16-byte slots, a power of two at least twice the
// entries: 2 to 4 slots an entry; 2 counted here, the rest in
// keyTableGrowth's slack) and, while seal8 groups the entries, its 4-byte
// place.
const keyTableEntryBytes = 32 + 2*16 + 4

// checkKeyMemory refuses a key side whose rows the reduce could not hold:
// the build's counts (c: records and bytes a partition), the reducers'
// largest partitions at once (each reducer holds one partition's table
// at a time), against avail bytes (x.opt.MemAvailable, else the
// system's). O(partitions log partitions).
func checkKeyMemory(c partCounts, reducers int, avail int64) error {
	if avail <= 0 {
		return nil
	}
	needs := make([]int64, len(c.actual))
	for p := range c.actual {
		needs[p] = c.bytes[p] + c.actual[p]*keyTableEntryBytes
	}
	slices.Sort(needs)
	var recs, bytes, need int64
	for i := len(needs) - 1; i >= 0 && i >= len(needs)-reducers; i-- {
		need += needs[i]
	}
	for p := range c.actual {
		recs += c.actual[p]
		bytes += c.bytes[p]
	}
	if need <= avail {
		return nil
	}
	return fmt.Errorf("%w: the key side's %d rows (%s of keys and rows) in %d partitions: the %d reducers' largest take %s in the reduce's tables at once, more than the %s of memory available (a key side read from a stream is not partitioned further: its size is unknown before it is read); save it to a file, or join the same keys in parts",
		join.ErrKeySideTooLarge, recs, join.SizeText(bytes), len(needs), min(reducers, len(needs)), join.SizeText(need), join.SizeText(avail))
}

// memAvailable returns opt's MemAvailable, else MemAvailable from
// /proc/meminfo (0 where it cannot be read: no check).
func memAvailable(opt join.Options) int64 {
	if opt.MemAvailable != 0 {
		return opt.MemAvailable
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemAvailable:")); ok {
			fields := bytes.Fields(rest)
			if len(fields) == 2 && string(fields[1]) == "kB" {
				if kb, err := strconv.ParseInt(string(fields[0]), 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// Grace partitioning (partitionsFor): the reduce's key tables may take
// keyTableShare of MemBudget at once; a key side's file bytes become about
// keyTableGrowth times as many in the tables (its rows' keys, their
// entries and index, for rows of about 100 bytes: keyTableEntryBytes);
// at most maxPartitions partitions.
const (
	keyTableShare  = 2 // 1/2 of MemBudget
	keyTableGrowth = 1.6
	maxPartitions  = 4096
)

// partsPerReducer is how many partitions each reducer gets at the least
// (when the shuffle's minimum budget allows them): the reducers take the
// partitions from a queue, so a partition that a hot key makes large
// is evened out by the others, and a partition's key table is a quarter
// of a reducer's share of the key side, which a cache holds better. One
// partition a reducer left the vega flights join's reduce on one core
// (a partition held 87% of its records; 37% with 8) and, on the AMD EPYC
// family 25 (alternated pairs of whole runs against one a reducer: 20,
// 12 and 12), four, taken largest first, made the NBER Parquet twins'
// join 0.943x the wall time, the flights join 0.969x and the NBER CSV
// join 0.972x; eight measured no better (twins 0.98x, flights 1.04x).
const partsPerReducer = 4

// partitionsFor returns the shuffle's partitions for the resolved opt
// and a key side of keyBytes bytes (-1: a stream, unknown), and whether
// the key side needs them (grace): partsPerReducer a reducer, or, where
// the reducers' key tables, one partition each at a time, would take
// more than MemBudget/keyTableShare, enough partitions that they do not
// (a grace hash join: every partition's key rows and its large-side rows
// meet in the same reducer, partition after partition, the shuffle
// spilling what does not fit); as many as the shuffle's minimum budget
// allows (shuffle.MinBudget), at most maxPartitions, never fewer than the
// reducers. A stream's size is unknown: partsPerReducer a reducer. O(1).
//
// The count is rounded up to a multiple of the reducers (then bounded as
// above, which can leave it none), so that the reducers, which take the
// partitions from a queue, can each get as many: 3 partitions on 2
// reducers left one with two thirds of the reduce (10^6 keys against the
// full-scale citations, default budget: reduce 1,219 ms with 3, and
// smaller key tables with 4).
func partitionsFor(opt join.Options, keyBytes int64) (parts int, grace bool) {
	r := max(opt.Reducers, 1)
	p := r * partsPerReducer
	budget := opt.MemBudget / keyTableShare
	if need := float64(keyBytes) * keyTableGrowth; keyBytes > 0 && budget > 0 && need > float64(budget) {
		p, grace = max(p, int(math.Ceil(need*float64(r)/float64(budget)))), true
	}
	p = (p + r - 1) / r * r
	most := int(opt.MemBudget / shuffle.MinBudget(opt.Mappers, 1))
	if !grace {
		most = most / r * r // a share for each reducer or none
	}
	return max(r, min(p, most, maxPartitions)), grace
}
