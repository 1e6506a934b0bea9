package stream

import (
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/sketch/cms"
	"github.com/acbfjoin/acbfjoin/sketch/topk"
)

// sketches are the stream's count-min sketches and its hot-key summary:
//   - live counts the live key rows by key: inserts are added as they are
//     applied, deletes (and expiries) gathered in del and subtracted at the
//     end of each apply (cms.Sketch.Subtract), so that live is always the
//     sketch of the live rows, bitwise (a windowed sketch);
//   - each probe batch gets its own sketch of its keys, built by the probe
//     reader as it reads, so that the estimate of the batch's output rows,
//     live · batch (the inner product, Cormode and Muthukrishnan 2005,
//     Theorem 3: never below the truth, above it by at most eps·|live|·|batch|
//     with probability 1-delta), is known before the batch is joined;
//   - hot, a HeavyKeeper summary of every probe key so far (sketch/topk),
//     updated by the probe reader; each batch carries a copy of its top.
//
// live and del belong to the goroutine that calls Run; the batch sketches
// and hot to the probe reader until a batch is handed over.
type sketches struct {
	cfg       cms.Config
	live, del *cms.Sketch
	hotK      int
	top       *topk.TopK
	probeSpec key.Spec
	last      []HotKey // the top after the last batch read
}

// hotMemory is the hot-key summary's memory: 64 KiB holds a HeavyKeeper
// whose top-100 recall on Zipf 1.1 is measured in bench/results/stream.md.
const hotMemory = 64 << 10

func newSketches(opt Options, probeSpec key.Spec) (*sketches, error) {
	cfg, err := cms.ForError(opt.CMSEps, opt.CMSDelta)
	if err != nil {
		return nil, optionError("CMSEps", opt.CMSEps, "%v", err)
	}
	s := &sketches{cfg: cfg, hotK: opt.TopK, probeSpec: probeSpec}
	if s.live, err = cms.New(cfg); err != nil {
		return nil, err
	}
	if s.del, err = cms.New(cfg); err != nil {
		return nil, err
	}
	tc := topk.ForMemory(opt.TopK, max(hotMemory, uint64(opt.TopK)*256))
	if s.top, err = topk.New(tc); err != nil {
		return nil, optionError("TopK", opt.TopK, "%v", err)
	}
	return s, nil
}

func (s *sketches) width() int { return s.cfg.Width }
func (s *sketches) depth() int { return s.cfg.Depth }

func (s *sketches) insert(key []byte) { s.live.Add(key, 1) }
func (s *sketches) delete(key []byte) { s.del.Add(key, 1) }

// endApply subtracts the deletes gathered since the last call.
func (s *sketches) endApply() error {
	if s.del.Total() == 0 {
		return nil
	}
	if err := s.live.Subtract(s.del); err != nil {
		return err // a delete of a row never added: the table refuses those first, so a bug
	}
	s.del.Reset()
	return nil
}

// observe sketches a probe batch's keys (its own count-min and the hot
// summary); called by the probe reader.
func (s *sketches) observe(b *probeBatch) {
	if b.sketch == nil {
		b.sketch, _ = cms.New(s.cfg) // cfg was validated by newSketches
	} else {
		b.sketch.Reset()
	}
	for i := range b.recs {
		if b.recs[i].null {
			continue // an anti join's NULL key: no key
		}
		k := b.recs[i].key
		b.sketch.Add(k, 1)
		s.top.Add(k, 1)
	}
	b.hot = s.format(s.top.Top())
}

func (s *sketches) format(items []topk.Item) []HotKey {
	out := make([]HotKey, len(items))
	for i, it := range items {
		out[i] = HotKey{Key: s.probeSpec.Format(it.Key), Count: it.Count}
	}
	s.last = out
	return out
}

// estimate is the count-min estimate of the batch's output rows.
func (s *sketches) estimate(b *probeBatch) uint64 {
	v, err := s.live.InnerProduct(b.sketch)
	if err != nil {
		return 0 // same configuration by construction
	}
	return v
}

// hot is the final top (after the probe reader ended).
func (s *sketches) hot() []HotKey { return s.last }

func (s *sketches) bytes() int64 {
	return int64(s.live.MemoryBytes() + s.del.MemoryBytes() + 2*s.live.MemoryBytes() + s.top.MemoryBytes())
}
