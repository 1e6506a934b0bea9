package repro

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestTable1RealSample (issue 46 item 6): Table 1 on the real NBER sample
// works with its defaults: where the paper's sizing cannot be inferred
// (too few rows), both runs the default sizing alone and table1.md says
// why; asked for alone, the paper's sizing is refused with the reason;
// Table1Keys sets the keys sampled.
func TestTable1RealSample(t *testing.T) {
	data := testutil.NBERMini(t)
	out := t.TempDir()
	opt := Options{Quick: true, Data: data, Out: out, Seed: 1, Log: func(string, ...any) {}}
	if err := table1(context.Background(), opt); err != nil {
		t.Fatalf("both, the default: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "table1.md"))
	if !strings.Contains(string(md), "## At our default sizing") || !strings.Contains(string(md), "Not inferred: no sizing of the grid") {
		t.Errorf("table1.md:\n%s", md)
	}
	opt.Table1Sizing = Table1Paper
	err := table1(context.Background(), opt)
	var oe *option.Error
	if !errors.As(err, &oe) || oe.Name != "Table1Sizing" || !strings.Contains(oe.Reason, "the paper's sizing cannot be inferred: no sizing of the grid") || strings.Contains(oe.Reason, "the default,") {
		t.Errorf("paper alone: %v", err)
	}
	opt.Table1Sizing, opt.Table1Keys = Table1Default, 300
	if err := table1(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(out, "table1.md"))
	if !strings.Contains(string(md), " with 300 keys sampled") {
		t.Errorf("Table1Keys 300:\n%.600s", md)
	}
}
