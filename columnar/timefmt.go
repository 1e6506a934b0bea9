package columnar

import "time"

// The text of dates, timestamps and times without time.Time.AppendFormat,
// which parses its layout on every call (17% of a Parquet join's map phase
// whose survivors carry a timestamp: issue 44). Each writes exactly what
// AppendFormat writes with the layouts AppendText names
// (TestTimeText, FuzzTimeText), digit pairs from a table, the date from
// the day count by Hinnant's civil_from_days ("chrono-Compatible Low-Level
// Date Algorithms", 2013). Years outside 0001-9999 go to AppendFormat.

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
	// civil_from_days: eras of 400 years (146,097 days) from 0000-03-01.
	z := day + 719468
	era := z / 146097 // z >= 0 in the range
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	dst = append2(dst, int(y/100))
	dst = append2(dst, int(y%100))
	dst = append(dst, '-')
	dst = append2(dst, int(m))
	dst = append(dst, '-')
	return append2(dst, int(d))
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

// appendDay is a Date's text: day days since 1970-01-01.
func appendDay(dst []byte, day int64) []byte {
	if day < minDay || day > maxDay {
		return time.Unix(day*86400, 0).UTC().AppendFormat(dst, "2006-01-02")
	}
	return appendDate(dst, day)
}

// appendStamp is a Timestamp's text (without its Z): s seconds and ns
// (0 <= ns < 1e9) nanoseconds since 1970-01-01 UTC.
func appendStamp(dst []byte, s, ns int64) []byte {
	day, sec := s/86400, s%86400
	if sec < 0 {
		day, sec = day-1, sec+86400
	}
	if day < minDay || day > maxDay {
		return time.Unix(s, ns).UTC().AppendFormat(dst, "2006-01-02T15:04:05.999999999")
	}
	dst = appendDate(dst, day)
	dst = append(dst, 'T')
	return appendClock(dst, sec, ns)
}

// appendTimeOfDay is a Time's text: s seconds and ns nanoseconds after
// midnight (any s: AppendFormat's clock of that instant, as before).
func appendTimeOfDay(dst []byte, s, ns int64) []byte {
	sec := s % 86400
	if sec < 0 {
		sec += 86400
	}
	return appendClock(dst, sec, ns)
}
