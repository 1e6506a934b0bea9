package stream

import (
	"context"
	"fmt"
	"os"

	"github.com/acbfjoin/acbfjoin/key"
)

// decideKeyTypes settles the key types by key.Decide's rules (the batch
// join's): a type given is kept, else a table column's type, else the key
// side's text decides. Text is read ahead only from a regular file (read
// once here, before the stream starts); key events on a pipe or standard
// input are read as they come, so their text keys are int, the default
// before auto, and a key event that is no integer is an error as it was
// (give KeyType string for text keys); a probe key that is none meets no
// key, and is left out and counted, as with a type decided from the data.
func (e *engine) decideKeyTypes(ctx context.Context, given []key.Type, probeSpec key.Spec) (key.Decision, error) {
	given = append([]key.Type(nil), given...)
	live := e.ks.types == nil && !regularFile(e.ks.path) // text that cannot be read ahead
	var streamed []int
	if live {
		ksrc, psrc := e.ks.sources(e.keySpec), e.ps.sources(probeSpec)
		for j, g := range given {
			if g == key.Auto && ksrc[j].DataType == "" && psrc[j].DataType == "" {
				given[j] = key.Int
				streamed = append(streamed, j)
			}
		}
	}
	d, err := key.Decide(given, e.ks.sources(e.keySpec), e.ps.sources(probeSpec), func(cols []int) ([]key.Evidence, error) {
		return e.inferText(ctx, cols)
	})
	for _, j := range streamed {
		d.Why[j] = fmt.Sprintf("%s is a stream, read as it comes: int, the default (give the key type string for text keys)", e.keyName)
	}
	e.streamedInt = len(streamed) > 0
	return d, err
}

// regularFile reports whether path is a regular file (not "-", a pipe, a
// FIFO or a device): one that can be read twice.
func regularFile(path string) bool {
	if path == "-" {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// inferText reads the key side's text key columns cols (indexes into the
// key) once, from a second opening of its file, and returns their
// key.Evidence: the first non-empty key that is no canonical integer. Key
// events are read as the stream reads them (an insert's key columns, a
// delete's fields); a record the stream would refuse is left to it.
func (e *engine) inferText(ctx context.Context, cols []int) ([]key.Evidence, error) {
	s, err := openSide(ctx, sideFile{option: "KeyEvents", path: e.ks.path, name: e.keyName, format: "csv"}, "", !e.timed)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ev := make([]key.Evidence, len(cols))
	ks := e.keySpec
	for n := 1; s.r.Next(); n++ {
		if n%(1<<14) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		fields := s.r.Fields()
		op := byte('+')
		if s.ops != nil {
			if op, _ = s.ops.popOp(); op != '+' && op != '-' {
				continue
			}
		}
		for i, j := range cols {
			c := ks.Cols[j]
			if op == '-' {
				c = j // a delete's fields are the key columns in order
			}
			if c >= len(fields) || len(fields[c]) == 0 {
				continue
			}
			ev[i].Keys++
			if !ev[i].Found && !key.CanonicalInt(fields[c]) {
				ev[i].Found, ev[i].Value, ev[i].At = true, string(fields[c]), fmt.Sprintf("line %d", s.r.Line())
			}
		}
	}
	if err := s.r.Err(); err != nil {
		return nil, err
	}
	return ev, nil
}
