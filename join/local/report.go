package local

import (
	"bufio"
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/acbfjoin/acbfjoin/join"
)

// newReport is the report of the run itself, before its phases add theirs:
// its settings, timings, memory and bad rows.
func (x *execution) newReport() *join.Report {
	x.stopHeap()
	rep := &join.Report{
		Settings:      join.NewSettings(x.opt),
		TimingsMs:     x.timings,
		PeakHeapBytes: x.peakHeap,
		PeakRSSBytes:  peakRSS(),
		Partitions:    x.parts,
		Grace:         x.grace,
	}
	if x.bad != nil {
		rep.BadRows = x.bad.N
		rep.BadRowExamples = x.bad.Report(map[string]string{x.keys.Name: x.keys.Path, x.input.Name: x.input.Path})
	}
	rep.TimingsMs["total"] = float64(time.Since(x.start).Microseconds()) / 1000
	return rep
}

// derive fills in what follows from the phases' numbers: the shuffle's
// reduction, the measured false positive rate, the ns a row and core.
func (x *execution) derive(rep *join.Report) {
	if rep.ShuffleBytesNoFilter > 0 {
		rep.ShuffleReduction = 1 - float64(rep.ShuffleBytes)/float64(rep.ShuffleBytesNoFilter)
	}
	if nonMembers := rep.TestedNonMembers(); nonMembers > 0 {
		rep.FPPMeasured = float64(rep.FalsePositiveRecords) / float64(nonMembers)
		rep.FPPTested = nonMembers
	}
	rep.NsPerRowCore = map[string]float64{}
	for _, ph := range []struct {
		name    string
		rows    int64
		workers int
	}{{"build", rep.KeysRecords, x.opt.Mappers}, {"map", rep.InputRecords, x.opt.Mappers}, {"reduce", rep.ShuffleRecords, x.opt.Reducers},
		{"total", rep.InputRecords, max(x.opt.Mappers, x.opt.Reducers)}} {
		if ph.rows > 0 {
			rep.NsPerRowCore[ph.name] = rep.TimingsMs[ph.name] * 1e6 * float64(ph.workers) / float64(ph.rows)
		}
	}
}

// skewReport describes what Options.Skew did and how the shuffle's records
// and the join rows fell on the partitions.
func (x *execution) skewReport(smp *skewSample, bs buildStats, ms mapStats, rs reduceStats) join.SkewReport {
	rep := x.skew.report(x.opt.Skew, smp, min(x.opt.Reducers, x.parts), x.joinSpec) // hot above a reducer's share (planSkew)
	all := newPartCounts(x.parts)
	all.add(bs.parts)
	all.add(ms.parts)
	rep.Before = join.NewPartitionBalance(all.plain)
	rep.After = join.NewPartitionBalance(all.actual)
	rep.JoinRows = join.NewPartitionBalance(rs.partRows)
	return rep
}

// peakRSS returns the process's peak resident memory so far in bytes (VmHWM
// of /proc/self/status), or 0 where the kernel does not say.
func peakRSS() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 2 && string(f[1]) == "kB" {
				if kb, err := strconv.ParseUint(string(f[0]), 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// watchHeap samples the heap in use every 20 ms into *peak until stopped:
// runtime.MemStats' HeapInuse, read through runtime/metrics (the heap's
// objects and the unused room of their spans), which does not stop the
// world as runtime.ReadMemStats does: its stops preempted the mappers
// (a signal each) every 20 ms.
func watchHeap(peak *uint64) func() {
	done := make(chan struct{})
	var once sync.Once
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	sample := func() {
		metrics.Read(m)
		var inuse uint64
		for _, s := range m {
			if s.Value.Kind() == metrics.KindUint64 {
				inuse += s.Value.Uint64()
			}
		}
		if inuse > *peak {
			*peak = inuse
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			sample()
		})
	}
}

// ticker calls fn every 100 ms until stopped, and once more at the end.
func ticker(fn func()) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fn()
				return
			case <-t.C:
				fn()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
