package local

import (
	"context"
	"time"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/key"
)

// BankBuild is a bank to build from a key file (join bank build): how its
// classes are read, and the kind and sizing of every class's filter. A
// Sizing that names no size (no bits per key, FPP or budget) sizes each
// class's filter for bank.DefaultFPP.
type BankBuild struct {
	ClassScan
	Kind   filters.Kind
	Sizing filters.Sizing
}

// BuiltBank is a bank built from its key file, with what the scan read and
// how long the scan and the scan with the build took.
type BuiltBank struct {
	*bank.Bank
	Scan           *ClassScanResult
	Scanned, Built time.Duration
}

// BuildBank reads the key file once (ScanClasses) and builds one filter a
// class (bank.BuildShared), the key type the scan decided recorded in the
// bank.
func BuildBank(ctx context.Context, bb BankBuild) (*BuiltBank, error) {
	start := time.Now()
	res, err := ScanClasses(ctx, bb.ClassScan)
	if err != nil {
		return nil, err
	}
	scanned := time.Since(start)
	sz := bb.Sizing
	if sz.BitsPerKey == 0 && sz.FPP == 0 && sz.Budget == 0 {
		sz.FPP = bank.DefaultFPP
	}
	meta := bank.Meta{Kind: bb.Kind, Sizing: sz, KeyCol: bb.KeyCol, ClassCol: bb.ClassCol, KeyType: string(res.KeyType), Classing: bb.Classing}
	b, err := bank.BuildShared(meta, res.Classes, res.Shared)
	if err != nil {
		return nil, err
	}
	return &BuiltBank{Bank: b, Scan: res, Scanned: scanned, Built: time.Since(start)}, nil
}

// ScanBank reads the bank at path (ReadBank) and the classes of its key
// file as the bank was built from it (its key and class columns, key type
// and classing; the rest from scan), for bank.Validate (join bank
// validate).
func ScanBank(ctx context.Context, path string, scan ClassScan) (*bank.Bank, *ClassScanResult, error) {
	b, err := ReadBank(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	scan.KeyCol, scan.ClassCol, scan.KeyType, scan.Classing = b.KeyCol, b.ClassCol, key.Type(b.KeyType), b.Classing
	res, err := ScanClasses(ctx, scan)
	if err != nil {
		return nil, nil, err
	}
	return b, res, nil
}
