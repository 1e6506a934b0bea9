// Package cli is what acbfjoin's command lines (join, beamjoin) share, and
// no library API: the flag of every library option name (Rewrite,
// RewriteText), the sizing flags with one flag a filter kind's option
// (SizingFlags), flag parsing (once-only flags, one-line errors,
// Repeated, Count), sizes of bytes (ParseSize), the signals that stop a
// run and their grace period (Signals), and a writer that keeps its
// first error. It sits above the library (it imports filters and join)
// and below the commands.
package cli
