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

// fold folds vs, over secs, into their averages avgs over *over seconds
// (one part's frames), then counts secs in *over.
func fold(over *float64, secs float64, avgs []*float64, vs ...float64) {
	w := *over
	*over += secs
	for i, avg := range avgs {
		*avg = (*avg*w + vs[i]*secs) / *over
	}
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
		fold(&o.Tracked, secs, []*float64{&o.DropsPS}, float64(r.Drops())/secs)
	}
	if r.Entries.Known() {
		fold(&o.Entries, secs, []*float64{&o.NewEntriesPS}, r.NewEntriesPS())
	}
	if r.Known(model.PartTCP) {
		fold(&o.TCP, secs, []*float64{&o.SynRetransPS, &o.ListenOverflowsPS, &o.ResetsPS}, r.SynRetransPS, r.ListenOverflowsPS, r.ResetsPS)
	}
	if r.Known(model.PartCPU) {
		fold(&o.CPU, secs, []*float64{&o.BusyPct}, r.CPUAll.Busy())
	}
	if r.Known(model.PartDisks) {
		fold(&o.Disks, secs, []*float64{&o.DiskUtilPct}, r.MaxDiskUtil())
	}
}
