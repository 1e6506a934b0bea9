package stream

import (
	"bytes"
	"strings"
	"testing"
)

// TestText: a batch's line sits under its header column by column, with
// the time range in a window; the report's lines say its counts, whether
// false negatives were counted, and the hot keys only when there are some.
func TestText(t *testing.T) {
	for _, timed := range []bool{false, true} {
		h := BatchHeader(timed)
		l := BatchReport{Batch: 3, Inserts: 10, LiveKeys: 7, ProbeRows: 100, TimeFrom: 5, TimeTo: 9, Hot: []HotKey{{Key: "a", Count: 4}}}.Line(timed)
		// (the time range is wider than its header: the columns after it
		// shift by as much)
		shift := len("5..9") - len("time")
		if len(strings.Fields(l)) != 13+btoi(timed) || strings.Index(h, "hot keys")+btoi(timed)*shift != strings.Index(l, "a:4") || strings.Contains(l, "5..9") != timed {
			t.Errorf("timed %v:\n%s%s", timed, h, l)
		}
	}
	r := &Report{Mode: "window", Batches: 2, Params: "acbf(m=4,k=1,m1=12,room=1)", Capacity: 1024, Deletes: 3}
	var b bytes.Buffer
	r.WriteText(&b)
	out := b.String()
	for _, want := range []string{"stream (window): 2 batches", "3 expired", "filter acbf(m=4,k=1,m1=12,room=1), sized for 1024 live keys", "false negatives: not counted"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "hot probe keys") {
		t.Errorf("hot keys without any:\n%s", out)
	}
	r.Verified, r.Hot = true, []HotKey{{Key: "x", Count: 9}}
	b.Reset()
	r.WriteText(&b)
	if out := b.String(); !strings.Contains(out, "false negatives: 0") || !strings.Contains(out, "x:9") {
		t.Errorf("verified, with hot keys:\n%s", out)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
