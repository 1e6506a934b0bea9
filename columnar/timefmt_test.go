package columnar

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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
	tod := (s%86400 + 86400) % 86400 // a Time holds the seconds of a day
	if got, want := string(appendTimeOfDay(nil, tod, ns)), refClock(tod, ns); got != want {
		t.Fatalf("time %d s %d ns: %q, want %q", tod, ns, got, want)
	}
}

// TestTimeDayEnd: a Time of 24:00:00 (Parquet's TIME and DuckDB hold the
// day's end) is written and read back as itself, not as 00:00:00 (a
// review found it written as the day's start), in every unit.
func TestTimeDayEnd(t *testing.T) {
	if got := string(appendTimeOfDay(nil, 86400, 0)); got != "24:00:00" {
		t.Fatalf("the day's end: %q", got)
	}
	for _, u := range []TimeUnit{Milli, Micro, Nano} {
		ty := Type{Kind: Time, Unit: u}
		v, err := ty.Value([]byte("24:00:00"))
		if want := 86400 * int64(math.Pow10(int(ty.parquetUnit()))); err != nil || v.I != want {
			t.Fatalf("%v: 24:00:00 reads as %v, %v; want %d", ty, v.I, err, want)
		}
		c := &Column{Type: Type{Kind: Time, Unit: ty.parquetUnit()}, ints: []int64{v.I}}
		if back := string(c.AppendText(nil, 0)); back != "24:00:00" {
			t.Fatalf("%v: 24:00:00 prints back as %q", ty, back)
		}
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
		day := randomDay(rng)
		s := day*86400 + rng.Int64N(86400)
		if rng.IntN(10) == 0 {
			s = rng.Int64N(1<<40) - 1<<39 // beyond year 9999 both ways
		}
		checkTime(t, day, s, randomNanos(rng))
	}
}

// randomDay is a day within 10,000 days beyond the years 0001-9999 either
// way.
func randomDay(rng *rand.Rand) int64 { return rng.Int64N(2*maxDay+20000) - maxDay - 10000 }

// randomNanos is a second's fraction in nanoseconds, as often whole
// seconds, milliseconds, microseconds or nanoseconds (the units').
func randomNanos(rng *rand.Rand) int64 {
	ns := rng.Int64N(1_000_000_000)
	switch rng.IntN(4) {
	case 0:
		ns = 0
	case 1:
		ns -= ns % 1_000_000
	case 2:
		ns -= ns % 1000
	}
	return ns
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

// valueRef is Type.Value of a date, timestamp or time as it was before
// parseDate, parseStamp and parseClock: time.Parse alone.
func valueRef(t Type, text []byte) (Value, bool) {
	switch t.Kind {
	case Date:
		d, err := time.Parse("2006-01-02", string(text))
		if err != nil {
			return Value{}, false
		}
		return Value{I: d.Unix() / 86400}, true
	case Timestamp:
		s := text
		if t.UTC {
			if !bytes.HasSuffix(s, []byte("Z")) {
				return Value{}, false
			}
			s = s[:len(s)-1]
		}
		d, err := time.Parse("2006-01-02T15:04:05.999999999", string(s))
		if err != nil {
			return Value{}, false
		}
		v, ok := inUnit(d.Unix(), d.Nanosecond(), t.parquetUnit())
		return Value{I: v}, ok
	case Time:
		d, err := time.Parse("15:04:05.999999999", string(text))
		if err != nil {
			return Value{}, false
		}
		secs := int64(d.Hour()*3600 + d.Minute()*60 + d.Second())
		v, ok := inUnit(secs, d.Nanosecond(), t.parquetUnit())
		return Value{I: v}, ok
	}
	return Value{}, false
}

// timeTypes are the date, timestamp and time types Value reads.
var timeTypes = []Type{{Kind: Date}, {Kind: Timestamp, Unit: Milli}, {Kind: Timestamp, Unit: Micro, UTC: true},
	{Kind: Timestamp, Unit: Nano}, {Kind: Timestamp, Unit: Second}, {Kind: Time, Unit: Micro}, {Kind: Time, Unit: Nano}}

// checkValue fails unless Value reads text as valueRef does (both refuse
// it, or both return the same value), or, where time.Parse refuses it (a
// year beyond 0000-9999), reads it only if it is the text of the value it
// returns (AppendText's).
func checkValue(t *testing.T, text []byte) {
	t.Helper()
	for _, ty := range timeTypes {
		got, err := ty.Value(text)
		want, ok := valueRef(ty, text)
		if ok && (err != nil || got.I != want.I) {
			t.Fatalf("%v.Value(%q) = %v, %v; time.Parse's %v", ty, text, got.I, err, want.I)
		}
		if !ok && err == nil {
			// The value prints back as the text, to the unit's digits
			// (Value returns the Parquet unit, parquetUnit; a finer
			// fraction is cut, as time.Parse's values are).
			c := &Column{Type: ty, ints: []int64{got.I}}
			want := string(text)
			if ty.Kind != Date {
				c.Type.Unit = ty.parquetUnit()
				want = cutFraction(want, int(c.Type.Unit))
			}
			if back := c.AppendText(nil, 0); string(back) != want {
				t.Fatalf("%v.Value(%q) = %v, which prints as %q, want %q; time.Parse refuses it", ty, text, got.I, back, want)
			}
		}
	}
}

// TestTimeValue: dates, timestamps and times read back by Value as
// time.Parse reads them: the text AppendText writes over the years
// 0001-9999 and beyond, each fraction length, and the same text broken
// (a digit changed, cut, lengthened, a trailing zero, impossible days and
// clocks), which both refuse or read alike.
func TestTimeValue(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	var texts [][]byte
	n := 30000
	if testing.Short() {
		n = 3000 // the race detector's run
	}
	for range n {
		day := randomDay(rng)
		sec := rng.Int64N(86400)
		ns := randomNanos(rng)
		stamp := appendStamp(nil, day*86400+sec, ns)
		texts = append(texts, appendDay(nil, day), stamp, append(slices.Clip(stamp), 'Z'), appendTimeOfDay(nil, sec, ns))
	}
	texts = append(texts, []byte("2000-02-29"), []byte("1900-02-29"), []byte("2001-02-29"), []byte("0000-01-01"), []byte("2001-13-01"),
		[]byte("2001-04-31"), []byte("24:00:00"), []byte("23:60:00"), []byte("23:59:60"), []byte("12:00:00.5"), []byte("12:00:00.50"),
		[]byte("12:00:00."), []byte("12:00:00.1234567890"), []byte("2001-01-01T00:00:00"), []byte("2001-01-01 00:00:00"),
		[]byte("2001-1-01"), []byte("+001-01-01"), []byte("２001-01-01"), []byte(""), []byte("2001-01-01T24:00:00Z"),
		// Years beyond 0000-9999, as AppendFormat writes them (time.Parse
		// reads none of them), and forms it never writes.
		[]byte("10000-01-01"), []byte("-0001-03-01T12:00:00.000000005"), []byte("0000-02-29"), []byte("-12345-12-31T23:59:59Z"),
		[]byte("123456-03-01T12:00:00"), []byte("-0000-01-01"), []byte("010000-01-01"), []byte("-00001-01-01"), []byte("-001-01-01"),
		[]byte("-0004-02-29"), []byte("-0001-02-29"), []byte("10000-02-29"), []byte("9999999999999-01-01"))
	for _, text := range texts {
		checkValue(t, text)
		// Broken: a byte changed, the text cut or lengthened.
		b := slices.Clone(text)
		if len(b) > 0 {
			b[rng.IntN(len(b))] = "0123456789-:.TZ x"[rng.IntN(17)]
			checkValue(t, b)
			checkValue(t, text[:rng.IntN(len(text))])
		}
		checkValue(t, append(slices.Clone(text), "0123456789Z."[rng.IntN(12)]))
	}
}

// FuzzTimeValue: Value reads any text as time.Parse does, for every date,
// timestamp and time type.
func FuzzTimeValue(f *testing.F) {
	f.Add([]byte("2001-01-01T00:03:00"))
	f.Add([]byte("9999-12-31T23:59:59.999999999Z"))
	f.Add([]byte("12:00:00.5"))
	f.Add([]byte("2000-02-29"))
	f.Fuzz(func(t *testing.T, text []byte) { checkValue(t, text) })
}

// cutFraction is a timestamp's or time's text with its fraction cut to
// digits and its trailing zeros (and a bare point) dropped.
func cutFraction(text string, digits int) string {
	dot := strings.LastIndexByte(text, '.')
	if dot < 0 || strings.ContainsAny(text[dot:], "-T:") {
		return text
	}
	end := len(text)
	if strings.HasSuffix(text, "Z") {
		end--
	}
	frac := text[dot+1 : end]
	if len(frac) > digits {
		frac = frac[:digits]
	}
	frac = strings.TrimRight(frac, "0")
	out := text[:dot]
	if frac != "" {
		out += "." + frac
	}
	return out + text[end:]
}

// TestValueEdges: the least and greatest instant of every unit read back
// as itself (the least's seconds are one below MinInt64/per with a
// fraction: a bound on the seconds alone refused it), one past them an
// error; a date beyond a DATE's 32 bits an error, not days wrapped round.
func TestValueEdges(t *testing.T) {
	for _, u := range []TimeUnit{Milli, Micro, Nano} {
		ty := Type{Kind: Timestamp, Unit: u}
		for _, v := range []int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1, -1, 0} {
			text := (&Column{Type: ty, ints: []int64{v}}).AppendText(nil, 0)
			got, err := ty.Value(text)
			if err != nil || got.I != v {
				t.Errorf("%v %d: %q read back as %d, %v", ty, v, text, got.I, err)
			}
		}
	}
	for _, text := range []string{"1677-09-21T00:12:43.145224191", "2262-04-11T23:47:16.854775808"} { // one before the least, one after the greatest
		if v, err := (Type{Kind: Timestamp, Unit: Nano}).Value([]byte(text)); err == nil {
			t.Errorf("timestamp[ns] %q: read as %d, want an error", text, v.I)
		}
	}
	d := Type{Kind: Date}
	for _, day := range []int64{math.MinInt32, math.MaxInt32, 0, -719528} {
		text := appendDay(nil, day)
		if got, err := d.Value(text); err != nil || got.I != day {
			t.Errorf("date %d: %q read back as %d, %v", day, text, got.I, err)
		}
	}
	for _, day := range []int64{math.MaxInt32 + 1, math.MinInt32 - 1, 3_000_000_000} {
		text := appendDay(nil, day)
		if got, err := d.Value(text); err == nil {
			t.Errorf("date %d (%q): read as %d, want an error (a DATE is 32 bits)", day, text, got.I)
		}
	}
}

// TestStampExtremes: timestamps of seconds at and near int64's ends (an
// Arrow timestamp[s]), beyond what time.Unix holds, print as dates that
// parseStamp reads back to the same seconds (AppendFormat printed
// MinInt64 as year 292277026596).
func TestStampExtremes(t *testing.T) {
	for _, s := range []int64{math.MinInt64, math.MinInt64 + 1, math.MinInt64 + 62135596800, math.MaxInt64, math.MaxInt64 - 86400, -1 << 50, 1 << 50} {
		text := appendStamp(nil, s, 0)
		got, ns, ok := parseStamp(text)
		if !ok || got != s || ns != 0 {
			t.Errorf("%d s: %q read back as %d s %d ns (%v)", s, text, got, ns, ok)
		}
	}
	if got := string(appendStamp(nil, math.MinInt64, 0)); got != "-292277022657-01-27T08:29:52" {
		t.Errorf("MinInt64 s: %q", got)
	}
}

// TestCivil32: civil32, appendDate's calendar for the years 0000 to 9999,
// gives civil's year, month and day at every day of them, and at the
// first days beyond its range civil's differ from a 4-digit year's.
func TestCivil32(t *testing.T) {
	testutil.SkipUnderRace(t)
	for day := int64(-719528); day <= 2932896; day++ {
		y, m, d := civil32(int32(day))
		wy, wm, wd := civil(day)
		if int64(y) != wy || int64(m) != wm || int64(d) != wd {
			t.Fatalf("day %d: %04d-%02d-%02d, civil's %04d-%02d-%02d", day, y, m, d, wy, wm, wd)
		}
	}
	if y, _, _ := civil(-719529); y != -1 {
		t.Fatalf("the day before 0000-01-01 is in year %d", y)
	}
	if y, _, _ := civil(2932897); y != 10000 {
		t.Fatalf("the day after 9999-12-31 is in year %d", y)
	}
}

// TestSplitUnits: split's constant divisors give what dividing by the
// unit's power of ten gives (floor division, the fraction in
// nanoseconds), for every unit, at the int64 extremes and on random
// values of either sign.
func TestSplitUnits(t *testing.T) {
	ref := func(v int64, u TimeUnit) (int64, int64) {
		per := int64(math.Pow10(int(u)))
		s, f := v/per, v%per
		if f < 0 {
			s, f = s-1, f+per
		}
		return s, f * int64(math.Pow10(9-int(u)))
	}
	rng := testutil.Rand(testutil.Seed(t))
	vals := []int64{0, 1, -1, 999, -999, 1000, -1000, 1e9, -1e9, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for range 100000 {
		vals = append(vals, int64(rng.Uint64()), rng.Int64N(1e12)-5e11)
	}
	for _, u := range []TimeUnit{Second, Milli, Micro, Nano} {
		for _, v := range vals {
			s, ns := split(v, u)
			ws, wns := ref(v, u)
			if s != ws || ns != wns {
				t.Fatalf("split(%d, %d) = %d, %d; want %d, %d", v, u, s, ns, ws, wns)
			}
		}
	}
}
