package acbf

import (
	"io"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

func newTestWriter(w io.Writer) *wire.Writer { return wire.NewWriter(w) }
