package shuffle_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/acbfjoin/acbfjoin/shuffle"
)

// The exchange between the map and reduce phases: a map goroutine adds
// records to their partitions through its Writer; after Seal each
// partition is read back as Arrow record batches (key, tag, seq, row), in
// the order they were added. The report's shuffle bytes are Stats().Bytes.
func Example() {
	s, err := shuffle.New(shuffle.Options{Partitions: 2, MemBudget: shuffle.MinBudget(1, 2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	w := s.NewWriter()
	w.Add(0, shuffle.Record{Key: []byte("a"), Tag: 0, Seq: 1, Row: []byte("a,1999")})
	w.Add(1, shuffle.Record{Key: []byte("b"), Tag: 1, Seq: 7, Row: []byte("10,b")})
	w.Add(0, shuffle.Record{Key: []byte("a"), Tag: 1, Seq: 9, Row: []byte("11,a")})
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Seal(); err != nil {
		fmt.Println(err)
		return
	}
	for p := range 2 {
		s.Partition(p, func(rec arrow.Record) error {
			rows := rec.Column(3).(*array.Binary)
			for i := range int(rec.NumRows()) {
				fmt.Printf("partition %d: %s\n", p, rows.Value(i))
			}
			return nil
		})
	}
	fmt.Println(s.Stats().Records, "records")
	// Output:
	// partition 0: a,1999
	// partition 0: 11,a
	// partition 1: 10,b
	// 3 records
}
