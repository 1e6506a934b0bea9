package beamjoin

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Counters reads the acbfjoin counters of a finished pipeline.
func Counters(pr beam.PipelineResult) map[string]int64 {
	out := map[string]int64{}
	if pr == nil {
		return out
	}
	for _, c := range pr.Metrics().AllMetrics().Counters() {
		if c.Key.Namespace == Namespace {
			out[c.Key.Name] += c.Result()
		}
	}
	return out
}

// Execute builds the pipeline for opt and runs it with run (for example
// prism.Execute or beamx.RunWithMetrics-style runners), returning the counters.
func Execute(ctx context.Context, opt Options, run func(context.Context, *beam.Pipeline) (beam.PipelineResult, error)) (map[string]int64, Header, Header, error) {
	p, s := beam.NewPipelineWithRoot()
	_, kh, ih, err := Build(s, opt)
	if err != nil {
		return nil, kh, ih, err
	}
	pr, err := run(ctx, p)
	if err != nil {
		return nil, kh, ih, err
	}
	return Counters(pr), kh, ih, nil
}
