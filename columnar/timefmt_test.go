package columnar

import (
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// refDay, refStamp and refClock are what AppendText wrote before timefmt.go:
// time.Time.AppendFormat with its layouts.
func refDay(day int64) string {
	return string(time.Unix(day*86400, 0).UTC().AppendFormat(nil, "2006-01-02"))
}

func refStamp(s, ns int64) string {
	return string(time.Unix(s, ns).UTC().AppendFormat(nil, "2006-01-02T15:04:05.999999999"))
}

func refClock(s, ns int64) string {
	return string(time.Unix(s, ns).UTC().AppendFormat(nil, "15:04:05.999999999"))
}

// checkTime holds the fast formatters to AppendFormat at day (a Date) and at
// s seconds and ns nanoseconds (a Timestamp, a Time).
func checkTime(t *testing.T, day, s, ns int64) {
	t.Helper()
	if got, want := string(appendDay(nil, day)), refDay(day); got != want {
		t.Fatalf("date of day %d: %q, want %q", day, got, want)
	}
	if got, want := string(appendStamp(nil, s, ns)), refStamp(s, ns); got != want {
		t.Fatalf("timestamp %d s %d ns: %q, want %q", s, ns, got, want)
	}
	if got, want := string(appendTimeOfDay(nil, s, ns)), refClock(s, ns); got != want {
		t.Fatalf("time %d s %d ns: %q, want %q", s, ns, got, want)
	}
}

// TestTimeText: dates, timestamps and times are written as
// time.Time.AppendFormat writes them, at the edges (the epoch, leap days of
// 1600, 1900, 2000 and 2100, the first and last days appendDate writes and
// those beyond, negative seconds, every fraction length) and at random
// instants over the whole int64 range of days and seconds a column holds.
func TestTimeText(t *testing.T) {
	testutil.SkipUnderRace(t)
	days := []int64{0, -1, 1, 59, 60, 365, 10957, 11016, 11017, -25508, -25509, 47540, 47541, -134774, -134715,
		minDay, minDay - 1, minDay + 1, maxDay, maxDay - 1, maxDay + 1, 19000, -719528, 2932897 + 365}
	fracs := []int64{0, 1, 10, 100, 999, 1000, 120000, 500000000, 999999999, 100000000, 123456789, 10000000}
	for _, d := range days {
		for _, ns := range fracs {
			for _, sec := range []int64{0, 1, 59, 60, 3599, 3600, 86399} {
				checkTime(t, d, d*86400+sec, ns)
			}
		}
	}
	rng := testutil.Rand(testutil.Seed(t))
	for range 200000 {
		day := rng.Int64N(2*maxDay+20000) - maxDay - 10000
		s := day*86400 + rng.Int64N(86400)
		if rng.IntN(10) == 0 {
			s = rng.Int64N(1<<40) - 1<<39 // beyond year 9999 both ways
		}
		ns := rng.Int64N(1_000_000_000)
		switch rng.IntN(4) { // the units' fractions: s, ms, us, ns
		case 0:
			ns = 0
		case 1:
			ns -= ns % 1_000_000
		case 2:
			ns -= ns % 1000
		}
		checkTime(t, day, s, ns)
	}
}

// FuzzTimeText: the fast formatters agree with AppendFormat at any day,
// second and nanosecond a column can hold (days and seconds within
// time.Unix's range).
func FuzzTimeText(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0))
	f.Add(int64(-1), int64(-1), int64(999999999))
	f.Add(int64(maxDay), int64(maxDay*86400+86399), int64(1))
	f.Fuzz(func(t *testing.T, day, s, ns int64) {
		const lim = 1 << 40 // seconds: far beyond year 9999, within time's range
		day %= lim / 86400
		s %= lim
		ns %= 1_000_000_000
		if ns < 0 {
			ns += 1_000_000_000
		}
		checkTime(t, day, s, ns)
	})
}

// BenchmarkTimeText: a timestamp's text by AppendFormat and by appendStamp.
func BenchmarkTimeText(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.Run("AppendFormat", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			buf = time.Unix(1577836800+int64(i), 0).UTC().AppendFormat(buf[:0], "2006-01-02T15:04:05.999999999")
		}
	})
	b.Run("appendStamp", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			buf = appendStamp(buf[:0], 1577836800+int64(i), 0)
		}
	})
}
