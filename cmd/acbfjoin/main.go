// Command acbfjoin joins a small key file with a large file through a
// Bloom-family filter (the paper's ACBF, a CBF, Bloom, blocked, cuckoo,
// fuse, exact and more), compares the filters and reproduces the paper's
// figures: go install github.com/acbfjoin/acbfjoin/cmd/acbfjoin, then
// acbfjoin help. The same program as cmd/join (cmd/internal/app).
package main

import "github.com/acbfjoin/acbfjoin/cmd/internal/app"

func main() { app.Main() }
