package columnar

import (
	"bytes"
	"slices"
)

// The text of dates, timestamps and times without time.Time.AppendFormat,
// which parses its layout on every call (17% of a Parquet join's map phase
// whose survivors carry a timestamp: issue 44). Each writes exactly what
// AppendFormat writes with the layouts AppendText names
// (TestTimeText, FuzzTimeText), digit pairs from a table, the date from
// the day count by Hinnant's civil_from_days ("chrono-Compatible Low-Level
// Date Algorithms", 2013), for any year: beyond 0000-9999 as AppendFormat
// writes them (appendYear), and right where AppendFormat is not (an
// instant beyond the seconds time.Unix holds: a timestamp[s] near
// MinInt64 printed as year 292277026596).

// digits2 holds "00" to "99".
const digits2 = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// minDay and maxDay are the days since 1970-01-01 of 0001-01-01 and
// 9999-12-31: the range appendDate writes itself.
const minDay, maxDay = -719162, 2932896

func append2(dst []byte, v int) []byte {
	return append(dst, digits2[2*v], digits2[2*v+1])
}

// appendDate appends day (days since 1970-01-01, in [minDay, maxDay]) as
// 2006-01-02.
func appendDate(dst []byte, day int64) []byte {
	var y, m, d int64
	if day >= -719528 && day <= 2932896 { // 0000-01-01 to 9999-12-31: most dates
		y32, m32, d32 := civil32(int32(day))
		y, m, d = int64(y32), int64(m32), int64(d32)
	} else {
		y, m, d = civil(day)
	}
	if y >= 0 && y <= 9999 {
		dst = append2(dst, int(y/100))
		dst = append2(dst, int(y%100))
	} else {
		dst = appendYear(dst, y)
	}
	dst = append(dst, '-')
	dst = append2(dst, int(m))
	dst = append(dst, '-')
	return append2(dst, int(d))
}

// civil is the year, month and day of day days since 1970-01-01, any
// day (|day| <= MaxInt64/86400): civil_from_days, in eras of 400 years
// (146,097 days) from 0000-03-01.
func civil(day int64) (y, m, d int64) {
	z := day + 719468 // no overflow
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era-- // floor division
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// appendYear appends a year beyond 0000-9999 as AppendFormat writes it:
// its digits, below zero after a sign and to four at least (-0001).
func appendYear(dst []byte, y int64) []byte {
	if y < 0 {
		dst = append(dst, '-')
		y = -y
	}
	for p := int64(1000); p > y && p > 1; p /= 10 {
		dst = append(dst, '0')
	}
	return appendUint(dst, uint64(y))
}

// civil32 is the year, month and day of day days since 1970-01-01, for
// the days of the years 0000 to 9999 (appendDate's): Neri and
// Schneider's to_date on 32-bit unsigned integers ("Euclidean affine
// functions and their application to calendar algorithms", Software:
// Practice and Experience 53(4), 2023, figure 12), whose divisions by
// constants are multiplications and shifts. The days are shifted by s = 82
// eras of 400 years (146,097 days), K = 719,468 + 146,097 s, so that the
// counts stay unsigned; the year comes back less 400 s. A date took 37 ns
// by the signed divisions of civil_from_days (14 ms of the flights join's
// 420 of CPU: 370,248 survivors' timestamps). Equal to the slow path at
// every day of its range (TestCivil32).
func civil32(day int32) (y, m, d uint32) {
	const s = 82
	const k = 719468 + 146097*s
	const l = 400 * s
	n := uint32(day + k)
	// The century, and the day of it.
	n1 := 4*n + 3
	c := n1 / 146097
	nc := n1 % 146097 / 4
	// The year of the century, and the day of the year (from March 1).
	n2 := 4*nc + 3
	p2 := uint64(2939745) * uint64(n2)
	z := uint32(p2 >> 32)
	ny := uint32(p2) / 2939745 / 4
	y = 100*c + z
	// The month and day (from March).
	n3 := 2141*ny + 197913
	m = n3 >> 16
	d = n3&0xffff/2141 + 1
	if ny >= 306 { // January or February: the next year
		y, m = y+1, m-12
	}
	return y - l, m, d
}

// appendClock appends the second of the day sec and ns nanoseconds as
// 15:04:05.999999999: the fraction without its trailing zeros, and without
// the point when it is zero.
func appendClock(dst []byte, sec, ns int64) []byte {
	dst = append2(dst, int(sec/3600))
	dst = append(dst, ':')
	dst = append2(dst, int(sec/60%60))
	dst = append(dst, ':')
	dst = append2(dst, int(sec%60))
	if ns == 0 {
		return dst
	}
	var frac [9]byte
	for i := 8; i >= 0; i-- {
		frac[i] = byte('0' + ns%10)
		ns /= 10
	}
	n := 9
	for frac[n-1] == '0' {
		n--
	}
	dst = append(dst, '.')
	return append(dst, frac[:n]...)
}

// appendDay is a Date's text: day days since 1970-01-01 (a date32's, or
// a date64's milliseconds in days: far inside int64).
func appendDay(dst []byte, day int64) []byte { return appendDate(dst, day) }

// appendStamp is a Timestamp's text (without its Z): s seconds and ns
// (0 <= ns < 1e9) nanoseconds since 1970-01-01 UTC.
func appendStamp(dst []byte, s, ns int64) []byte {
	day, sec := s/86400, s%86400
	if sec < 0 {
		day, sec = day-1, sec+86400
	}
	if day >= -719528 && day <= 2932896 && ns == 0 {
		// Most instants (years 0000-9999, whole seconds): the 19 bytes
		// of 2006-01-02T15:04:05 written in place after one check of
		// room, not appended pair by pair (16 ns a value to 10,
		// BenchmarkTimeText).
		y, m, d := civil32(int32(day))
		if cap(dst)-len(dst) < 19 {
			dst = slices.Grow(dst, 19)
		}
		l := len(dst)
		dst = dst[:l+19]
		b := dst[l : l+19 : l+19]
		hh, mm, ss := sec/3600, sec/60%60, sec%60
		yh, yl := 2*(y/100), 2*(y%100)
		b[0], b[1], b[2], b[3], b[4] = digits2[yh], digits2[yh+1], digits2[yl], digits2[yl+1], '-'
		b[5], b[6], b[7] = digits2[2*m], digits2[2*m+1], '-'
		b[8], b[9], b[10] = digits2[2*d], digits2[2*d+1], 'T'
		b[11], b[12], b[13] = digits2[2*hh], digits2[2*hh+1], ':'
		b[14], b[15], b[16] = digits2[2*mm], digits2[2*mm+1], ':'
		b[17], b[18] = digits2[2*ss], digits2[2*ss+1]
		return dst
	}
	dst = appendDate(dst, day)
	dst = append(dst, 'T')
	return appendClock(dst, sec, ns)
}

// appendTimeOfDay is a Time's text: s seconds and ns nanoseconds after
// midnight (any s: AppendFormat's clock of that instant, as before), and
// the day's end, 24:00:00, as itself: Parquet's TIME and DuckDB hold it,
// and it was written 00:00:00, the day's start (a review found it).
func appendTimeOfDay(dst []byte, s, ns int64) []byte {
	if s == 86400 && ns == 0 {
		return append(dst, "24:00:00"...)
	}
	sec := s % 86400
	if sec < 0 {
		sec += 86400
	}
	return appendClock(dst, sec, ns)
}

// The inverses, for Type.Value: the text the functions above write, read
// back without time.Parse (which takes a string: a copy of the bytes a
// value, and its layout parsed a call, and reads no year beyond
// 0000-9999). Each accepts exactly what its writer writes (a fraction
// without trailing zeros) and reports false for any other text, which
// Value then gives to time.Parse: Value reads what it read before as
// before, and beyond that only the text a value prints as
// (TestTimeValue, FuzzTimeValue).

// num2 is the two decimal digits at b[0:2], or -1.
func num2(b []byte) int {
	d0, d1 := int(b[0])-'0', int(b[1])-'0'
	if uint(d0) > 9 || uint(d1) > 9 {
		return -1
	}
	return 10*d0 + d1
}

// parseDate reads appendDay's text as days since 1970-01-01, by Hinnant's
// days_from_civil: 2006-01-02 for the years 0001-9999 (appendDate), and
// AppendFormat's year beyond them (0000, -0001, 10000: a sign below year
// 0, at least four digits, no leading zero past four), which time.Parse
// does not read (a table's timestamp of year 10000 could not be written
// to a Parquet output).
func parseDate(b []byte) (int64, bool) {
	n := len(b) - 6 // the year's bytes
	if n < 4 || b[n] != '-' || b[n+3] != '-' {
		return 0, false
	}
	neg := b[0] == '-'
	digits := b[:n]
	if neg {
		digits = b[1:n]
	}
	if len(digits) < 4 || len(digits) > 12 || len(digits) > 4 && digits[0] == '0' {
		return 0, false
	}
	var y int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		y = 10*y + int64(c-'0')
	}
	if neg {
		if y == 0 {
			return 0, false // "-0000": AppendFormat writes year 0 as 0000
		}
		y = -y
	}
	m, d := num2(b[n+1:]), num2(b[n+4:])
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era-- // floor division
	}
	yoe := y - era*400
	mp := int64(m+9) % 12 // March is 0
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468, true
}

// daysIn is the days of month m (1-12) of year y (proleptic Gregorian).
func daysIn(y int64, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) { // true of negative years too
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// parseClock reads 15:04:05.999999999 (appendClock's text: no fraction,
// or one of 1-9 digits whose last is not 0) as seconds of the day and
// nanoseconds.
func parseClock(b []byte) (sec, ns int64, ok bool) {
	if len(b) < 8 || b[2] != ':' || b[5] != ':' {
		return 0, 0, false
	}
	h, mi, s := num2(b[0:]), num2(b[3:]), num2(b[6:])
	if h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
		return 0, 0, false
	}
	sec = int64(3600*h + 60*mi + s)
	if len(b) == 8 {
		return sec, 0, true
	}
	f := b[9:]
	if b[8] != '.' || len(f) < 1 || len(f) > 9 || f[len(f)-1] == '0' {
		return 0, 0, false
	}
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		ns = 10*ns + int64(c-'0')
	}
	for range 9 - len(f) {
		ns *= 10
	}
	return sec, ns, true
}

// parseStamp reads appendStamp's text (2006-01-02T15:04:05.999999999) as
// seconds since 1970-01-01 and nanoseconds.
func parseStamp(b []byte) (s, ns int64, ok bool) {
	t := bytes.IndexByte(b, 'T')
	if t < 0 {
		return 0, 0, false
	}
	day, ok := parseDate(b[:t])
	if !ok {
		return 0, 0, false
	}
	sec, ns, ok := parseClock(b[t+1:])
	return day*86400 + sec, ns, ok
}
