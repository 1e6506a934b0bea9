// Command join is acbfjoin's command line under the short name this
// repository's examples run it by (go run ./cmd/join demo). Installed, it
// would shadow coreutils' join: install cmd/acbfjoin, the same program.
package main

import "github.com/acbfjoin/acbfjoin/cmd/internal/app"

func main() { app.Main() }
