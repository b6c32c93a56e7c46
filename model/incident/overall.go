package incident

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
)

// Overall is the workload over the whole recording, what a comparison of
// two recordings sets side by side: each rate averaged over the frames
// that read what it is counted from, and the seconds it is over (0: no
// frame read it, so it is missing, not zero).
type Overall struct {
	// Tracked is the time of frames whose table was read: drops/s are
	// over it.
	Tracked float64
	DropsPS float64
	// Entries is the time of frames that counted new entries (events or
	// the TCP opens); NewEntriesPS the entries admitted a second then.
	Entries      float64
	NewEntriesPS float64
	// TCP is the time of frames that read the TCP counters, the rates'
	// of SYN retransmits, listen overflows and resets sent.
	TCP                                       float64
	SynRetransPS, ListenOverflowsPS, ResetsPS float64
	// CPU and Disks are the time of frames that read them.
	CPU, BusyPct, Disks, DiskUtilPct float64
	// First is the table at the first tracked frame (End, the last, is
	// the incident's).
	First     model.Conntrack
	firstSeen bool
}

// average folds v, over secs, into the average *avg of *over seconds.
func average(avg, over *float64, v, secs float64) {
	w := *over
	*over += secs
	*avg = (*avg*w + v*secs) / *over
}

// add folds one frame, over secs, into the averages of what it read.
func (o *Overall) add(f diagnose.Frame, secs float64) {
	s, r := f.Sample, f.Rates
	if s.Conntrack.Status == model.TableTracked && !o.firstSeen {
		o.First, o.firstSeen = s.Conntrack, true
	}
	if secs <= 0 {
		return
	}
	if s.Conntrack.Status == model.TableTracked {
		average(&o.DropsPS, &o.Tracked, float64(r.Drops())/secs, secs)
	}
	if r.Entries.Known() {
		average(&o.NewEntriesPS, &o.Entries, r.NewEntriesPS(), secs)
	}
	if r.Known(model.PartTCP) {
		w := o.TCP
		average(&o.SynRetransPS, &o.TCP, r.SynRetransPS, secs)
		o.TCP = w
		average(&o.ListenOverflowsPS, &o.TCP, r.ListenOverflowsPS, secs)
		o.TCP = w
		average(&o.ResetsPS, &o.TCP, r.ResetsPS, secs)
	}
	if r.Known(model.PartCPU) {
		average(&o.BusyPct, &o.CPU, r.CPUAll.Busy(), secs)
	}
	if r.Known(model.PartDisks) {
		average(&o.DiskUtilPct, &o.Disks, r.MaxDiskUtil(), secs)
	}
}
