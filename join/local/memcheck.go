package local

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/acbfjoin/acbfjoin/join"
)

// keyTableEntryBytes is what the reduce's key table holds a row beside its
// key and row bytes: its entry (keyEnt, 32 bytes) and its share of the
// index (spanIndex: 16 bytes a slot at most half full, a slot a distinct key).
const keyTableEntryBytes = 32 + 2*16

// checkKeyMemory refuses a key side whose rows the reduce could not hold:
// the build's counts (c: records and bytes a partition), all partitions at
// once (the reducers run together), against avail bytes (x.opt.MemAvailable,
// else the system's). O(partitions).
func checkKeyMemory(c partCounts, avail int64) error {
	if avail <= 0 {
		return nil
	}
	var recs, bytes int64
	for p := range c.actual {
		recs += c.actual[p]
		bytes += c.bytes[p]
	}
	need := bytes + recs*keyTableEntryBytes
	if need <= avail {
		return nil
	}
	return fmt.Errorf("%w: the key side's %d rows take %s in the reduce's tables (%s of keys and rows, and their index), more than the %s of memory available: the reduce holds the key side in memory (MemBudget bounds the shuffle and the sort, not it); join a smaller key side, or the same keys in parts",
		join.ErrKeySideTooLarge, recs, join.SizeText(need), join.SizeText(bytes), join.SizeText(avail))
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
