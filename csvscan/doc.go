// Package csvscan reads CSV files with a header fast and exactly: RFC 4180
// quotes (separators, quotes and line breaks inside quoted fields), empty
// fields, LF or CRLF line ends, a UTF-8 byte order mark before the header,
// blank lines skipped, every record as many fields as the header.
//
// # Separators
//
// The field separator is a comma unless set otherwise (Reader.SetSep,
// InputOptions.Sep, ParseRecordSep): a tab reads tab-separated files (TSV,
// such as IMDb's title.ratings.tsv), and SepFor picks it from a name ending
// in .tsv or .tab. Quoting does not change with the separator: RFC 4180
// double quotes, so a quoted field may hold tabs, quotes and line breaks, as
// Python's csv module and DuckDB read TSV with a tab delimiter; a comma in a
// TSV field is plain data. A quote inside an unquoted field is an error
// naming the line, as in CSV: such a file (TSV that does not quote) is
// refused, never silently misread. Any byte but '"', '\n', '\r' and NUL
// may separate fields; the comma and the tab are read equally fast.
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
// # CPU-specific code
//
// On amd64 with AVX2, NextBatch takes the separator and line-break masks of
// 8 KiB at a time from one assembly call (VEX encodings only, so that Intel
// CPUs charge no SSE/AVX transition); elsewhere the portable Go code scans
// 8 bytes at a time. The results are the same. ACBFJOIN_CPU, read once when
// the program starts, chooses without a rebuild: unset, "" or "native" for
// the CPU's fastest code, "portable" for the Go code on every CPU; any other
// value is taken as "portable" and said so once on standard error. CPUPath
// tells which is in use.
//
// # Concurrency
//
// A Reader or Part is for one goroutine; Input.Next is safe for concurrent
// use.
package csvscan
