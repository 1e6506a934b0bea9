package join

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// TestCSVToParquet: the Parquet file holds the CSV's columns and values.
func TestCSVToParquet(t *testing.T) {
	var rows strings.Builder
	rows.WriteString("\"CITING\",\"CITED\",GYEAR,COUNTRY\n")
	for i := 0; i < 70000; i++ { // more than one row group
		rows.WriteString("4000001,3858241,1975,")
		if i%3 == 0 {
			rows.WriteString("\"JP\"\n")
		} else {
			rows.WriteString("\n")
		}
	}
	var pq bytes.Buffer
	if err := CSVToParquet(strings.NewReader(rows.String()), &pq); err != nil {
		t.Fatal(err)
	}
	rdr, err := file.NewParquetReader(bytes.NewReader(pq.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 70000 || tbl.NumCols() != 4 || tbl.Schema().Field(0).Name != "CITING" || tbl.Schema().Field(3).Name != "COUNTRY" {
		t.Fatalf("table %d rows x %d cols, schema %v", tbl.NumRows(), tbl.NumCols(), tbl.Schema())
	}
	country := tbl.Column(3).Data().Chunk(0).(*array.String)
	if country.Value(0) != "JP" || country.Value(1) != "" || tbl.Column(1).Data().Chunk(0).(*array.String).Value(5) != "3858241" {
		t.Fatalf("values: %q %q", country.Value(0), country.Value(1))
	}
}
