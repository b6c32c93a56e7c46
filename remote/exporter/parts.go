package exporter

import (
	"fmt"
	"io"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
)

// partUp is one part of a sample as tablefull_up says it: whether it was
// read, and why not when it was not. A part off by design is left out,
// not served as 0 (entries far from the cap).
type partUp struct {
	name string
	up   bool
	why  string
}

// partsOf is every part of the sample read at the last observation, in
// the one order tablefull_up serves them; have says a sample was read at
// all, streamUp that samples arrive.
func partsOf(sample model.Sample, entries model.EntryRates, have, streamUp bool) []partUp {
	c := sample.Conntrack
	tableUp := c.Status == model.TableTracked || c.Status == model.TableUntracked
	parts := []partUp{
		{"stream", streamUp, "no sample arrives"},
		{"conntrack", have && tableUp, "the table is " + string(c.Status)},
		{"ctstats", have && sample.CTStats.Source != "", sample.CTStats.Note},
		{"kernel_log", have && sample.Kernel.Readable, sample.Kernel.Note},
		{"namespaces", have && sample.Namespaces != nil && !sample.Namespaces.Denied, namespacesWhy(sample.Namespaces)},
	}
	for _, p := range []struct {
		part model.Part
		name string
	}{{model.PartCPU, "cpu"}, {model.PartDisks, "disks"}, {model.PartTCP, "tcp"}} {
		up := have && !sample.Absent.Has(p.part)
		why := ""
		if !up { // said only when down: no join on the sample path
			why = strings.Join(sample.Notes, "; ")
		}
		parts = append(parts, partUp{p.name, up, why})
	}
	if !sample.Entries.OffByDesign() { // far from the cap they are not counted: not a failure
		parts = append(parts, partUp{"entries", entries.Basis == model.BasisEvents, sample.Entries.Note})
	}
	return parts
}

// namespacesWhy says why the other namespaces were not read.
func namespacesWhy(ns *model.Namespaces) string {
	if ns == nil {
		return "not read"
	}
	return ns.Note
}

// partsLog says on its writer when a part goes down, with why, and when
// it comes back: tablefull_up reads 0 only for a read that failed, and
// the log says which and why once, not at every sample.
type partsLog struct {
	w    io.Writer
	down map[string]bool
}

// observe logs the changes of parts since the last sample.
func (l *partsLog) observe(parts []partUp) {
	if l.w == nil {
		return
	}
	if l.down == nil {
		l.down = map[string]bool{}
	}
	for _, p := range parts {
		switch {
		case !p.up && !l.down[p.name]:
			why := safe.Text(p.why, 200)
			if why == "" {
				why = "no reason given"
			}
			fmt.Fprintf(l.w, "tablefull exporter: tablefull_up{part=%q} is 0: %s\n", p.name, why)
		case p.up && l.down[p.name]:
			fmt.Fprintf(l.w, "tablefull exporter: tablefull_up{part=%q} is 1 again\n", p.name)
		}
		l.down[p.name] = !p.up
	}
}
