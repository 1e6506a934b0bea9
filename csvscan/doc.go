// Package csvscan reads CSV files with a header fast and exactly: RFC 4180
// quotes (commas, quotes and line breaks inside quoted fields), empty fields,
// LF or CRLF line ends, a UTF-8 byte order mark before the header, blank lines
// skipped, every record as many fields as the header.
//
// # Reading
//
// Reader streams the records of one file without allocating per record:
// unquoted lines are split a word at a time, quoted ones take a byte-by-byte
// path. Open reads plain, gzip and zip content alike, recognised by its first
// bytes; "-" is standard input. ParseInt parses an integer field without
// allocating. Malformed input gives a ParseError (wrapping ErrSyntax) naming
// the file and the line, or, in a byte range, the record's offset (WithLine
// turns it into a line on the error path).
//
// # Reading in parallel
//
// OpenInput opens a file once and hands out Parts that start at proven record
// boundaries: byte ranges of a regular file, in-memory chunks of a stream
// (standard input, a pipe, a FIFO, compressed content), or the rest of a
// stream for one reader when no boundary can be proven. The proofs (a
// quote-free window of a record's maximum length, or an even count of quotes)
// are in Input's documentation; the result equals one sequential Reader's on
// every input, errors included (FirstError). A regular file that changes
// while it is read is reported (Unchanged, ErrChanged).
//
// # Concurrency
//
// A Reader or Part is for one goroutine; Input.Next is safe for concurrent
// use.
package csvscan
