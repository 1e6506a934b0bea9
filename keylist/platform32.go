//go:build 386 || arm || mips || mipsle

package keylist

// acbfjoin needs a 64-bit platform (README.md): files, rows and key lists
// are sized with int, and their constants overflow a 32-bit int. This
// undefined name makes the build say so before the overflows it causes.
var _ = acbfjoinNeedsA64BitPlatform
