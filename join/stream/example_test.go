package stream_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/stream"
)

// A key side that changes: two patents are inserted, one deleted, a
// third inserted; the citations probed after all of them meet the live
// ones only (KeyBatch holds every event, so all apply before the first
// probe batch).
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	events, probe := filepath.Join(dir, "events.csv"), filepath.Join(dir, "citations.csv")
	os.WriteFile(events, []byte("PATENT,YEAR\n+1,1999\n+2,2000\n-1\n+3,2001\n"), 0o644)
	os.WriteFile(probe, []byte("CITED\n1\n2\n3\n4\n"), 0o644)

	var out bytes.Buffer
	rep, err := stream.Run(context.Background(), stream.Options{Keying: join.Keying{KeyCol: "PATENT", JoinCol: "CITED"}, KeyEvents: events, Probe: probe, KeyBatch: 100, Workers: 1}, &out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out.String())
	fmt.Printf("%s: %d inserts, %d deletes, %d of %d probe rows out\n", rep.Filter, rep.Inserts, rep.Deletes, rep.RowsOut, rep.ProbeRows)
	// Output:
	// CITED,YEAR
	// 2,2000
	// 3,2001
	// acbf: 3 inserts, 1 deletes, 2 of 4 probe rows out
}
