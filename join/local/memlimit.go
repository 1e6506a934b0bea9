package local

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/remote"
	"github.com/acbfjoin/acbfjoin/join/source"
)

// keyRowBytes is what GoMemLimit allows a key row beyond Options.MemBudget:
// the build's collector (8 bytes an integer key), its packed list of
// distinct keys (8 more, in blocks made as the collector's buffers go),
// the filter (4-6 bytes a key at the default sizing) and its build's
// transients (the ACBF's repeats, 3 bytes a key). Measured at 10^7
// integer keys under --mem 64MiB (bench/cmd/profilejoin -heapsnap): at
// the start of the filter's build, 77 MB of keys, 34 of first level, 27 of
// repeats and 16 of Scatter's round, about 16 bytes a key once the shuffle
// has given its memory back (execution.shrinkShuffle). String keys take
// more (their list holds a slice a key, 24 bytes): the collector then
// works harder, and the heap passes the limit (460 MiB at 10^7 under
// --mem 64MiB).
const keyRowBytes = 16

// largeKeySide reports whether a key side whose memory outside the budget
// is keyMem bytes (keyRowBytes a distinct key) is large for the budget
// mem: more than half of it. Its build gives the shuffle's memory back
// before the filter is built (execution.shrinkShuffle), and GoMemLimit
// does not add the two up. The one rule for both. O(1).
func largeKeySide(keyMem, mem int64) bool { return keyMem > mem/2 }

// limitHeadroom is GoMemLimit's allowance for buffers, goroutine stacks
// and the collector's own slack.
const limitHeadroom = 32 << 20

// GoMemLimit is the soft memory limit (debug.SetMemoryLimit) that keeps a
// run with Options.MemBudget mem near it: the budget, plus the key side's
// memory outside it, plus limitHeadroom; for a key side of more than half
// the budget, whose build has the shuffle give its memory back before the
// filter is built, the larger of the budget plus half the key side's
// memory (the reading: the collector beside the shuffle; the map phase:
// the filter's copy) and the key side's memory (the filter's build), plus
// limitHeadroom. At 10^7 keys that took the peak RSS from 266-277 to
// 241-244 MiB under --mem 64MiB and from 488-492 to 400 MiB at the
// default budget, in the same time. The key side is estimated from
// the key file: its rows (its size over the mean length of the lines in
// its first MiB) times keyRowBytes, at most three times its bytes (the
// rule before the reducers' key tables came under the budget, which a
// short file's few long rows can still reach); a compressed or columnar
// file (.gz, .zip, .parquet, .arrow), whose rows its head does not tell,
// is taken as three times four times its size.
// A key side that cannot be stat'ed (a stream) counts as none; a side of
// many files (a folder, a glob: source.Files) as the sum of its files'.
// O(1 MiB) read a file; errors count as no key side.
func GoMemLimit(mem int64, keys string) int64 {
	files, _, err := source.Files(keys, "")
	if err != nil {
		return mem + limitHeadroom
	}
	var keyMem, packed int64 // packed: the compressed and columnar files'
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		size := st.Size()
		switch strings.ToLower(filepath.Ext(f)) {
		case ".gz", ".zip", ".parquet", ".arrow", ".feather", ".ipc":
			packed += 3 * 4 * size
			continue
		}
		m := 3 * size
		if rows, ok := estimateRows(f, size); ok {
			m = min(m, rows*keyRowBytes)
		}
		keyMem += m
	}
	if packed > 0 {
		return mem + packed + keyMem + limitHeadroom
	}
	if largeKeySide(keyMem, mem) {
		// A large key side (execution.shrinkShuffle): the shuffle gives its
		// memory back before the filter's build, so the two do not add
		// up: the build's reading holds the budget and the collector's
		// half of keyMem, the filter's build keyMem.
		return max(mem+keyMem/2, keyMem) + limitHeadroom
	}
	return mem + keyMem + limitHeadroom
}

// estimateRows estimates the lines of the file at path of size bytes from
// those of its first MiB: exact for a file of at most a MiB. ok false when
// it cannot be read or its head holds no line end.
func estimateRows(path string, size int64) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	head := make([]byte, min(size, 1<<20))
	n, err := io.ReadFull(f, head)
	if err != nil && n == 0 {
		return 0, false
	}
	lines := int64(bytes.Count(head[:n], []byte{'\n'}))
	if int64(n) == size {
		return lines + 1, true // the last line may have no end
	}
	if lines == 0 {
		return 0, false
	}
	return size*lines/int64(n) + 1, true
}

// SideBytes is the bytes of the files at path (as Options.Keys and
// Options.Input name a side, of format given: Options.KeysFormat or
// InputFormat): text, those of CSV files, and packed, those of compressed,
// columnar or JSON lines ones (which decode to about twelve times their
// size: GoMemLimit); ok is false unless every one is a local regular
// file (standard input's and a stream's size is unknown, and an object
// store's is not asked for). A command sizes what it prepares for a run
// by it (cmd/join's huge pages). O(one stat a file).
func SideBytes(path, given string) (text, packed int64, ok bool) {
	if path == "-" || path == "" || remote.Is(path) { // no listing of a bucket for this
		return 0, 0, false
	}
	files, _, err := source.Files(path, given)
	if err != nil || len(files) == 0 {
		return 0, 0, false
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() {
			return text, packed, false
		}
		format, err := columnar.FormatOf(f, given)
		switch ext := strings.ToLower(filepath.Ext(f)); {
		case err != nil:
			return text, packed, false
		case format != columnar.CSV || ext == ".gz" || ext == ".zip":
			packed += st.Size()
		default:
			text += st.Size()
		}
	}
	return text, packed, true
}

// SmallKeySide reports whether the key side at keys is small enough for
// its build to run without the collector under the budget mem: regular
// files (a stream's size is unknown) of at most mem/8 bytes in all, a
// compressed or columnar file counted at twelve times its size (as
// GoMemLimit counts it). The build's garbage is then a few times that at
// most, under the soft limit that GoMemLimit sets all the same. Its heap
// starts at 4 MiB: the NBER key side (5.5 MB, 65,771 rows) took 5
// collections in its build, and without them the build of a join of
// 1,000 citations took 0.854x the wall time (16 pairs, Intel Xeon). O(one
// stat a file).
func SmallKeySide(mem int64, keys string) bool {
	if keys == "-" { // standard input, not a file named - (a review found it taken for one)
		return false
	}
	files, _, err := source.Files(keys, "")
	if err != nil || len(files) == 0 {
		return false
	}
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() {
			return false
		}
		switch strings.ToLower(filepath.Ext(f)) {
		case ".gz", ".zip", ".parquet", ".arrow", ".feather", ".ipc":
			size += 3 * 4 * st.Size()
		default:
			size += st.Size()
		}
	}
	return size <= mem/8
}
