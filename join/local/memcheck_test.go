package local

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/join"
)

// TestKeySideTooLarge: a key side whose rows would not fit in the memory
// available is refused after the build with the numbers, nothing written;
// the same join with room runs.
func TestKeySideTooLarge(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "k.csv")
	input := filepath.Join(dir, "i.csv")
	var kb, ib strings.Builder
	kb.WriteString("K,PAY\n")
	ib.WriteString("ID,K\n")
	for range 1000 {
		kb.WriteString(strings.Repeat("x", 10) + "," + strings.Repeat("p", 50) + "\n")
	}
	for range 100 {
		ib.WriteString("1,xxxxxxxxxx\n")
	}
	if err := os.WriteFile(keys, []byte(kb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, []byte(ib.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Resources: join.Resources{Mappers: 2, Reducers: 2, MemAvailable: 50_000}}
	var buf bytes.Buffer
	_, err := Run(context.Background(), opt, NewCSV(&buf))
	if !errors.Is(err, join.ErrKeySideTooLarge) || !strings.Contains(err.Error(), "1000 rows") {
		t.Fatalf("1000 key rows in 50 KB: %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("the refused join wrote %d bytes", buf.Len())
	}
	opt.MemAvailable = 1 << 30
	rep, err := Run(context.Background(), opt, NewCSV(&buf))
	if err != nil || rep.JoinRows != 100*1000 {
		t.Fatalf("with room: %v, %v rows", err, rep)
	}
}
