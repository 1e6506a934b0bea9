package local

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/textfmt"
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
	// Validate also validates the bank on the keys just read
	// (bank.Validate, without reading the key file again): BuiltBank.Validation.
	Validate bool
}

// BuiltBank is a bank built from its key file, with what the scan read and
// how long the scan and the scan with the build took.
type BuiltBank struct {
	*bank.Bank
	Scan           *ClassScanResult
	Scanned, Built time.Duration
	// Validation, with BankBuild.Validate, is the bank validated on its
	// keys, in Validated; its Err says whether it holds every key.
	Validation *bank.Validation
	Validated  time.Duration
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
	bb2 := &BuiltBank{Bank: b, Scan: res, Scanned: scanned, Built: time.Since(start)}
	if bb.Validate {
		start := time.Now()
		if bb2.Validation, err = bank.Validate(b, res.Classes, bb.Mappers); err != nil {
			return nil, err
		}
		bb2.Validated = time.Since(start)
	}
	return bb2, nil
}

// WriteText writes what b is, as bank build prints it: the file's name
// (path), its classes, the key rows read, the filters' size and the times;
// how the key type was decided, the rows left out or skipped; then its
// validation, or else its classes.
func (b *BuiltBank) WriteText(w io.Writer, path string) {
	mem, ser := b.Bytes()
	res := b.Scan
	fmt.Fprintf(w, "wrote %s: %d classes of %s over %s (%s), %d key rows, %s of filters (%d bytes on disk); read in %s, built in %s\n",
		path, len(b.Classes), b.Kind, b.ClassCol, b.Classing, res.Records, textfmt.Bytes(mem), ser, b.Scanned.Round(time.Millisecond), (b.Built - b.Scanned).Round(time.Millisecond))
	res.writeKeyText(w)
	if v := b.Validation; v != nil {
		fmt.Fprintln(w)
		v.WriteMarkdown(w, b.Bank)
		fmt.Fprintf(w, "\n%d distinct keys, %d probes, validated in %s\n", v.Keys, v.Probes, b.Validated.Round(time.Millisecond))
		return
	}
	b.WriteClasses(w)
}

// writeKeyText writes how the scan's key type was decided and the rows
// it left out or skipped.
func (res *ClassScanResult) writeKeyText(w io.Writer) {
	for _, why := range res.Why {
		fmt.Fprintf(w, "key type %s: %s\n", res.KeyType, why)
	}
	if res.Null+res.Unmatchable > 0 {
		fmt.Fprintf(w, "left out: %d rows of a NULL key, %d of a key that is no %s\n", res.Null, res.Unmatchable, res.KeyType)
	}
	if res.BadRows > 0 {
		fmt.Fprintf(w, "skipped %d bad rows, the first: %s\n", res.BadRows, strings.Join(res.BadRowExamples, "; "))
	}
}

// BankValidation is a bank validated on its key file (ValidateBank): the
// validation, with what the scan read and how long it took. Its JSON is
// join bank validate --json's.
type BankValidation struct {
	*bank.Validation
	Path       string  `json:"bank"`
	KeyRows    int64   `json:"key_rows"`
	BadRows    int64   `json:"bad_rows"`
	ReadSecs   float64 `json:"read_seconds"`
	TotalSecs  float64 `json:"total_seconds"`
	FilterByte uint64  `json:"filter_bytes"`

	bank *bank.Bank
	scan *ClassScanResult
}

// ValidateBank reads the bank at path and its key file (ScanBank) and
// validates it on the keys (bank.Validate, scan.Mappers goroutines).
// Cost: one read of the key file and a probe of every key.
func ValidateBank(ctx context.Context, path string, scan ClassScan) (*BankValidation, error) {
	start := time.Now()
	b, res, err := ScanBank(ctx, path, scan)
	if err != nil {
		return nil, err
	}
	scanned := time.Since(start)
	v, err := bank.Validate(b, res.Classes, scan.Mappers)
	if err != nil {
		return nil, err
	}
	return &BankValidation{Validation: v, Path: path, KeyRows: res.Records, BadRows: res.BadRows, ReadSecs: scanned.Seconds(),
		TotalSecs: time.Since(start).Seconds(), FilterByte: b.MemoryBytes(), bank: b, scan: res}, nil
}

// WriteText writes the validation as bank validate prints it: a Markdown
// table of the classes, then the counts and times, and the rows skipped.
func (v *BankValidation) WriteText(w io.Writer) {
	v.WriteMarkdown(w, v.bank)
	fmt.Fprintf(w, "\n%d key rows, %d distinct keys, %d probes; read and checked in %s, validated in %s\n",
		v.KeyRows, v.Keys, v.Probes, secs(v.ReadSecs), secs(v.TotalSecs-v.ReadSecs))
	if v.BadRows > 0 {
		fmt.Fprintf(w, "skipped %d bad rows, the first: %s\n", v.BadRows, strings.Join(v.scan.BadRowExamples, "; "))
	}
}

// secs is s seconds as a duration to the millisecond.
func secs(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond)
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
