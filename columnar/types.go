package columnar

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/key"
)

// Kind is a column type's family.
type Kind int

const (
	// Text is a CSV column: text without a type, the Kind of every
	// column of a CSV side.
	Text      Kind = iota
	Int            // signed integers of Width bits
	Uint           // unsigned integers of Width bits
	Float          // floats of Width bits (32, 64)
	Bool           // true, false
	String         // UTF-8 text
	Binary         // bytes
	Date           // days since 1970-01-01
	Timestamp      // Unit since 1970-01-01 00:00:00, UTC or local time
	Time           // Unit since midnight
	Decimal        // an unscaled integer of Precision digits and Scale
	// Nested is a list, struct or map column (Desc says which): a join
	// neither reads nor writes one, and allows it where it does neither
	// (Table.Refuse, Table.SkipNested).
	Nested
)

// TimeUnit is the unit of a Timestamp or Time: a second is 10^Digits
// of them.
type TimeUnit int

const (
	Second TimeUnit = 0
	Milli  TimeUnit = 3
	Micro  TimeUnit = 6
	Nano   TimeUnit = 9
)

// Type is a column's type, as the data declares it: Parquet's physical and
// logical types, Arrow's data types. A column's values are rendered as
// canonical text (Column.AppendText) and written back to Parquet as the
// same type (join/local's Parquet sink).
type Type struct {
	Kind  Kind
	Width int      // Int, Uint, Float: bits
	Unit  TimeUnit // Timestamp, Time
	UTC   bool     // Timestamp: adjusted to UTC (an instant, rendered with Z); Time: adjusted to UTC (TIMETZ), rendered as the time
	// Decimal: precision and scale.
	Precision, Scale int
	Desc             string // Nested: the type as the file declares it ("list<item: utf8>", "struct")
}

// String names the type as messages and reports do: "int64", "uint8",
// "float64", "bool", "string", "binary", "date", "timestamp[us, UTC]",
// "time[ms]", "decimal(10,2)", "text" (CSV), a nested column's Desc.
func (t Type) String() string {
	switch t.Kind {
	case Int:
		return fmt.Sprintf("int%d", t.Width)
	case Uint:
		return fmt.Sprintf("uint%d", t.Width)
	case Float:
		return fmt.Sprintf("float%d", t.Width)
	case Bool:
		return "bool"
	case String:
		return "string"
	case Binary:
		return "binary"
	case Date:
		return "date"
	case Timestamp:
		if t.UTC {
			return fmt.Sprintf("timestamp[%s, UTC]", t.Unit)
		}
		return fmt.Sprintf("timestamp[%s]", t.Unit)
	case Time:
		if t.UTC {
			return fmt.Sprintf("time[%s, UTC]", t.Unit)
		}
		return fmt.Sprintf("time[%s]", t.Unit)
	case Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case Nested:
		return t.Desc
	}
	return "text"
}

func (u TimeUnit) String() string {
	switch u {
	case Milli:
		return "ms"
	case Micro:
		return "us"
	case Nano:
		return "ns"
	}
	return "s"
}

// KeyType is how join keys of a column of type t compare: integers of any
// width by value (key.Int; a uint64's values beyond int64, which no int key
// holds, are Wide's matter: key.Decide), strings and bytes as bytes
// (key.String); ok is false for the other types, which are no join keys (a
// float, a date, a timestamp: join on an integer or a string column), and
// for Text, whose type the caller decides.
func (t Type) KeyType() (kt key.Type, ok bool) {
	switch t.Kind {
	case Int, Uint:
		return key.Int, true
	case String, Binary:
		return key.String, true
	}
	return "", false
}

// Wide reports whether t is an integer type with values beyond int64
// (uint64): key.Source's Wide.
func (t Type) Wide() bool { return t.Kind == Uint && t.Width >= 64 }

// Typed reports whether t comes from the data (not Text).
func (t Type) Typed() bool { return t.Kind != Text }
