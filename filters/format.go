package filters

import (
	"encoding"
	"io"
)

// ownFormat gives a family the encode, decode and paramsOf of a filter
// type T that writes and reads its own versioned format (io.WriterTo,
// encoding.BinaryUnmarshaler: cbf, acbf, blocked, cuckoo, scalable), with
// params reading the parameters (of type R) of one.
type ownFormat[T any, P interface {
	*T
	Filter
	io.WriterTo
	encoding.BinaryUnmarshaler
}, R Params] struct {
	params func(P) R
}

func (o ownFormat[T, P, R]) encode(f Filter, w io.Writer) error {
	_, err := f.(P).WriteTo(w)
	return err
}

func (o ownFormat[T, P, R]) decode(data []byte) (Filter, Params, error) {
	f := P(new(T))
	if err := f.UnmarshalBinary(data); err != nil {
		return nil, nil, err
	}
	return f, o.params(f), nil
}

func (o ownFormat[T, P, R]) paramsOf(f Filter) Params { return o.params(f.(P)) }
