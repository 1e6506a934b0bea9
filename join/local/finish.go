package local

import "context"

// finishStats are what finishing the output measured.
type finishStats struct {
	sortPeakBytes int64 // with Sort: the most its buffers held
}

// finish completes the output: with Sort, the merge of the sorted runs (the
// "sort" progress counts its output bytes), then the sink's flush.
func (x *execution) finish(ctx context.Context, sink Sink) (finishStats, error) {
	var st finishStats
	if s, ok := sink.(*sorted); ok {
		total := s.sorter.OutBytes()
		stop := x.progress("sort", s.written.Load, total)
		defer stop()
		defer func() { st.sortPeakBytes = s.sorter.PeakBytes() }()
	}
	return st, sink.Finish(ctx)
}
