package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/join"
)

// MaxSize bounds a size given on a command line (--mem): 1 PiB, far
// beyond any machine, and far from overflowing int64 arithmetic.
const MaxSize = 1 << 50

// ParseSize parses a size of bytes: "256MiB", "64KiB", "1GiB", "1.5MB",
// "1000" (bytes), from 1 byte to max. O(len(s)).
func ParseSize(s string, max int64) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) { // !(v > 0) refuses NaN too
		return 0, fmt.Errorf("want a positive size like 256MiB")
	}
	if v*float64(mult) > float64(max) {
		return 0, fmt.Errorf("want at most %s", join.SizeText(max))
	}
	if v*float64(mult) < 1 {
		return 0, fmt.Errorf("want at least 1 byte")
	}
	return int64(v * float64(mult)), nil
}
