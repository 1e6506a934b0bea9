package local

import (
	"context"
	"testing"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestBuildBankSizing: a bank built with no size named sizes its filters for
// bank.DefaultFPP (the library's default, which the bank records); a size
// named is kept as given.
func TestBuildBankSizing(t *testing.T) {
	pat, _ := miniFiles(t)
	cl, err := bank.ParseClassing("value")
	testutil.Check(t, err)
	scan := ClassScan{Keys: pat, KeyCol: "PATENT", ClassCol: "CAT", Classing: cl}
	for _, tc := range []struct {
		sz   filters.Sizing
		want filters.Sizing
	}{
		{filters.Sizing{}, filters.Sizing{FPP: bank.DefaultFPP}},
		{filters.Sizing{BitsPerKey: 16}, filters.Sizing{BitsPerKey: 16}},
		{filters.Sizing{Budget: 4096}, filters.Sizing{Budget: 4096}},
	} {
		b, err := BuildBank(context.Background(), BankBuild{ClassScan: scan, Kind: filters.Bloom, Sizing: tc.sz})
		testutil.Check(t, err)
		if b.Sizing.BitsPerKey != tc.want.BitsPerKey || b.Sizing.FPP != tc.want.FPP || b.Sizing.Budget != tc.want.Budget {
			t.Errorf("Sizing %+v: the bank records %+v, want %+v", tc.sz, b.Sizing, tc.want)
		}
		if b.KeyType != string(b.Scan.KeyType) || len(b.Classes) != len(b.Scan.Classes) || b.Scan.Records == 0 || b.Built < b.Scanned {
			t.Errorf("Sizing %+v: key type %s (scan %s), %d classes (scan %d), %d rows, built %v after scanned %v",
				tc.sz, b.KeyType, b.Scan.KeyType, len(b.Classes), len(b.Scan.Classes), b.Scan.Records, b.Built, b.Scanned)
		}
	}
}

// TestScanBank: the key file is read as the bank was built from it (its
// columns, key type and classing, whatever the caller's scan says of
// them), so that validating the bank on it finds every key.
func TestScanBank(t *testing.T) {
	pat, _ := miniFiles(t)
	path := buildBank(t, t.TempDir(), pat, filters.Bloom, "value")
	b, res, err := ScanBank(context.Background(), path, ClassScan{Keys: pat, KeyCol: "NOPE", ClassCol: "NOPE"})
	testutil.Check(t, err)
	if len(res.Classes) != len(b.Classes) {
		t.Fatalf("%d classes read, the bank has %d", len(res.Classes), len(b.Classes))
	}
	v, err := bank.Validate(b, res.Classes, 2)
	testutil.Check(t, err)
	testutil.Check(t, v.Err())
}
