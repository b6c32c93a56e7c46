package report

import (
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/units"
)

// who is the probes' busiest window: who opened the connections, to
// where, how long they lived, and whose packets the table dropped. Every
// name is foreign text.
func (t narrator) who() section {
	w, secs := t.in.PeakWho, t.in.PeakWhoSecs
	sec := section{Title: "Who opened the connections"}
	// The window is the one the counts are over: the probes' trailing
	// window, or what of it the recording had run by then.
	p := fmt.Sprintf("The eBPF probes' busiest %s (ending at %s) counted the new connections below as the processes made them.",
		units.Dur(time.Duration(secs*float64(time.Second))), t.at(t.in.PeakWhoAt))
	if d := w.DominantText(secs); d != "" {
		p += " " + safe.Text(d, 400) + "."
	}
	sec.Paras = []string{p}
	conns := table{Head: []string{"owner (process, unit / container / pod)", "destination", "new/s", "median life", "finding"}}
	for _, c := range w.Conns {
		life, finding := "none closed", ""
		if m, ok := c.MedianLife(); ok {
			life = "under " + model.LifeText(m)
		}
		if c.Churning(secs) {
			finding = model.OnePerRequest
		}
		conns.Rows = append(conns.Rows, []string{safe.Text(c.Owner.String(), 120), safe.Text(c.DestText(), 64),
			units.Num(c.PerSec(secs)), life, finding})
	}
	if w.OtherOpened > 0 {
		conns.Note = fmt.Sprintf("%s more new connections from other owners are not listed.", units.Int(w.OtherOpened))
	}
	if w.Lost > 0 {
		conns.Note += fmt.Sprintf(" %s were not counted (the probes' maps were full): the counts are lower bounds.", units.Int(w.Lost))
	}
	sec.Tables = []table{conns}
	if len(w.Drops) > 0 {
		drops := table{Head: []string{"dropped by the table, from", "source", "destination", "packets"}}
		for _, d := range w.Drops {
			drops.Rows = append(drops.Rows, []string{safe.Text(d.Owner.String(), 120), safe.Text(d.Src, 64),
				safe.Text(d.Dest, 64), units.Int(d.N)})
		}
		drops.Note = "Packets netfilter dropped before conntrack could give them an entry; a firewall's own DROP rules are not in it."
		sec.Tables = append(sec.Tables, drops)
	}
	return sec
}
