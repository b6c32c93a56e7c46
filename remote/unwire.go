package remote

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model"
)

func fromMS(v int64) time.Time { return time.UnixMilli(v) }

// fromWire turns a decoded sample back into a model.Sample, checking every
// array's shape so that a damaged line is an error, not a panic.
func fromWire(w wireSample) (model.Sample, error) {
	s := model.Sample{Time: fromMS(w.T), Interval: time.Duration(w.IV) * time.Millisecond, Notes: w.Notes, Census: w.Cen}
	if w.CT != nil {
		c := w.CT
		s.Conntrack = model.Conntrack{Status: c.S, Count: c.N, Peak: c.PK, Max: c.Max, Buckets: c.B, TimeWaitHold: c.TW}
	}
	if w.CS != nil {
		s.CTStats = model.CTStats{Source: w.CS.Src, Note: w.CS.Note}
		for i, ctr := range model.AllCounters {
			if w.CS.Rep&(1<<i) != 0 {
				s.CTStats.Reported = append(s.CTStats.Reported, ctr)
			}
		}
		for _, r := range w.CS.CPU {
			if len(r) < 1+len(model.AllCounters) {
				return s, fmt.Errorf("per-CPU stats row has %d values, want %d", len(r), 1+len(model.AllCounters))
			}
			row := model.CPUCounters{CPU: int(r[0]), Values: model.CounterValues{}}
			for i, ctr := range model.AllCounters {
				if w.CS.Rep&(1<<i) != 0 {
					row.Values.Set(ctr, r[1+i])
				}
			}
			s.CTStats.PerCPU = append(s.CTStats.PerCPU, row)
		}
	}
	for _, r := range w.CPU {
		if len(r) < 9 {
			return s, fmt.Errorf("cpu row has %d values, want 9", len(r))
		}
		c := func(i int) float64 { return float64(r[i]) / 100 }
		s.CPU = append(s.CPU, model.CPUTimes{CPU: int(r[0]), User: c(1), Nice: c(2), System: c(3), Idle: c(4),
			IOWait: c(5), IRQ: c(6), SoftIRQ: c(7), Steal: c(8)})
	}
	for _, r := range w.Disk {
		if len(r) < 4 {
			return s, fmt.Errorf("disk row has %d values, want 4", len(r))
		}
		name, ok := r[0].(string)
		if !ok {
			return s, fmt.Errorf("disk name is not a string")
		}
		var d = model.DiskIO{Name: name}
		var err error
		if d.Reads, err = num(r[1]); err != nil {
			return s, err
		}
		if d.Writes, err = num(r[2]); err != nil {
			return s, err
		}
		if d.BusyMillis, err = num(r[3]); err != nil {
			return s, err
		}
		s.Disks = append(s.Disks, d)
	}
	if len(w.TCP) > 0 {
		if len(w.TCP) < 10 {
			return s, fmt.Errorf("tcp has %d values, want 10", len(w.TCP))
		}
		t := w.TCP
		s.TCP = model.TCP{SynRetrans: t[0], ListenOverflows: t[1], ListenDrops: t[2], ActiveOpens: t[3],
			PassiveOpens: t[4], OutRsts: t[5], TimeWait: t[6], Established: t[7], PortRange: [2]uint64{t[8], t[9]}}
	}
	if k := w.KLog; k != nil {
		s.Kernel = model.KernelLog{Readable: k.R, Note: k.Note, Suppressed: k.Sup}
		for _, l := range k.Lines {
			if len(l) < 4 {
				return s, fmt.Errorf("kernel line has %d values, want 4", len(l))
			}
			at, err := num(l[0])
			if err != nil {
				return s, err
			}
			text, _ := l[1].(string)
			netns, err := num(l[2])
			if err != nil {
				return s, err
			}
			name, _ := l[3].(string)
			s.Kernel.Lines = append(s.Kernel.Lines, model.KernelLine{Time: fromMS(int64(at)), Text: text, NetNS: netns, NetNSName: name})
		}
	}
	return s, nil
}

// num reads a JSON number decoded with UseNumber.
func num(v any) (uint64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	u, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", n, err)
	}
	return u, nil
}
