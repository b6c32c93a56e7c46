// Command bighost writes a synthetic agent stream of a big host to stdout:
// -cpus CPUs and -disks disks sampled every second for -samples samples,
// the table climbing to its cap and pinning there with drops spread over
// a quarter of the CPUs. The bench replays and streams it to measure what
// an hour of a 384-CPU host costs the console.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/stream"
)

func main() {
	cpus := flag.Int("cpus", 384, "CPUs")
	disks := flag.Int("disks", 24, "disks")
	samples := flag.Int("samples", 3600, "samples, one a second")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	start := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	enc, err := stream.NewEncoder(w, model.Host{Name: "bighost", Kernel: "6.18.0", CPUs: *cpus, MemTotal: 512 << 30, Source: "agent"}, start)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i := range *samples {
		if err := enc.Sample(sample(start, i, *cpus, *disks)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// sample is second i of the big host: cumulative counters that grow at
// a steady rate, drops once the table pins at 262,144.
func sample(start time.Time, i, cpus, disks int) model.Sample {
	const limit = 262144
	n := uint64(i)
	count := min(limit, 40000+n*400)
	s := model.Sample{Time: start.Add(time.Duration(i) * time.Second), Interval: time.Second,
		Conntrack: model.Conntrack{Status: model.TableTracked, Count: count, Peak: count, Max: limit, Buckets: limit, TimeWaitHold: 120},
		CTStats:   model.CTStats{Source: "procfs", Reported: model.AllCounters},
		TCP: model.TCP{SynRetrans: n * 3, ActiveOpens: n * 10, PassiveOpens: n * 2000, TimeWait: 200000,
			Established: 5000, PortRange: [2]uint64{32768, 60999}},
		Kernel: model.KernelLog{Readable: true}}
	for c := range cpus {
		var v model.CounterValues
		v.Set(model.SearchRestart, n*uint64(c%7))
		v.Set(model.ClashResolve, n*uint64(c%3))
		if count == limit && c%4 == 0 {
			v.Set(model.Drop, n*uint64(1+c%5))
			v.Set(model.EarlyDrop, n*uint64(c%2))
		}
		s.CTStats.PerCPU = append(s.CTStats.PerCPU, model.CPUCounters{CPU: c, Values: v})
		t := float64(i)
		s.CPU = append(s.CPU, model.CPUTimes{CPU: c, User: t * 0.05, System: t * 0.02, SoftIRQ: t * 0.01, Idle: t * 0.92})
	}
	for d := range disks {
		s.Disks = append(s.Disks, model.DiskIO{Name: fmt.Sprintf("nvme%dn1", d), Reads: n * uint64(d+1), Writes: n * 3, BusyMillis: n * 10})
	}
	if count == limit && i%5 == 0 {
		s.Kernel.Lines = []model.KernelLine{{Time: s.Time, Text: "nf_conntrack: nf_conntrack: table full, dropping packet"}}
	}
	return s
}
