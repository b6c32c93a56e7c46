package oneshot

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
)

// SnapshotSchema and CensusSchema name the JSON documents snapshot and
// census print, with their versions (docs/json.md).
const (
	SnapshotSchema = "tablefull.snapshot/2"
	CensusSchema   = "tablefull.census/1"
)

// Snapshot is what `tablefull snapshot --json` prints.
type Snapshot struct {
	Schema string       `json:"schema"`
	Host   model.Host   `json:"host"`
	Sample model.Sample `json:"sample"`
}

// CensusDoc is what `tablefull census --json` prints: the census's
// fields beside its schema.
type CensusDoc struct {
	Schema string `json:"schema"`
	model.Census
}

// WriteSnapshot prints one sample of a host: JSON (schema
// SnapshotSchema) or text, with per-CPU counters as conntrack -S prints them.
func WriteSnapshot(w io.Writer, d Snapshot, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	h, s := d.Host, d.Sample
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "host\t%s\tkernel %s, %d CPUs, %s RAM\n", h.Name, h.Kernel, h.CPUs, units.Bytes(h.MemTotal))
	c := s.Conntrack
	fmt.Fprintf(tw, "conntrack\t%s\tcount %s / max %s (%.0f %%), buckets %s, TIME_WAIT hold %d s, ceiling %s new/s\n",
		c.Status, units.Int(c.Count), units.Int(c.Max), arith.Percent(c.Count, c.Max), units.Int(c.Buckets),
		c.TimeWaitHold, units.Num(arith.Ceiling(c.Max, c.TimeWaitHold)))
	t := s.TCP
	fmt.Fprintf(tw, "tcp\tsince boot\tSYN retransmits %s, listen overflows %s, listen drops %s, active opens %s, passive opens %s, resets %s\n",
		units.Int(t.SynRetrans), units.Int(t.ListenOverflows), units.Int(t.ListenDrops), units.Int(t.ActiveOpens), units.Int(t.PassiveOpens), units.Int(t.OutRsts))
	ports := "not read"
	if t.PortRange[1] > 0 {
		ports = fmt.Sprintf("%d-%d", t.PortRange[0], t.PortRange[1])
	}
	fmt.Fprintf(tw, "tcp\tnow\tTIME_WAIT %s, established %s, local ports %s\n", units.Int(t.TimeWait), units.Int(t.Established), ports)
	for _, d := range s.Disks {
		fmt.Fprintf(tw, "disk\t%s\treads %s, writes %s, busy %s since boot\n", d.Name, units.Int(d.Reads), units.Int(d.Writes), units.Dur(time.Duration(d.BusyMillis)*time.Millisecond))
	}
	if s.Kernel.Readable {
		fmt.Fprintf(tw, "kernel log\t\t%s \"table full\" lines in the ring buffer, %s suppressed\n", units.Int(uint64(len(s.Kernel.Lines))), units.Int(s.Kernel.Suppressed))
	} else {
		fmt.Fprintf(tw, "kernel log\t\t%s\n", s.Kernel.Note)
	}
	if s.IPVS != nil {
		fmt.Fprintf(tw, "ipvs\t\t%s\n", s.IPVS.Text(h.Kernel))
		for _, r := range s.IPVS.Rows {
			fmt.Fprintf(tw, "\t\t%s %s → %s → %s %s, %d s left\n", safe.Text(r.Proto, 8), safe.Text(r.From, 64), safe.Text(r.To, 64),
				safe.Text(r.Dest, 64), safe.Text(r.State, 16), r.Expires)
		}
	}
	if s.Cilium != nil { // only where Cilium pins its maps
		for _, m := range s.Cilium.Maps {
			fmt.Fprintf(tw, "cilium\t%s\t%s of %s entries (%.0f %%): sized by %s%s\n", safe.Text(m.Name, 64),
				units.Int(m.Entries), units.Int(m.Max), arith.Percent(m.Entries, m.Max), model.CiliumKnob(m.Name), m.FilledBy())
		}
		fmt.Fprintf(tw, "cilium\tdrops\t%s\n", s.Cilium.DropsText())
	}
	for _, n := range s.Notes {
		fmt.Fprintf(tw, "note\t\t%s\n", n)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printCTStats(w, s.CTStats)
}

// printCTStats prints per-CPU counters like conntrack -S: one line per CPU.
func printCTStats(w io.Writer, s model.CTStats) error {
	if len(s.PerCPU) == 0 {
		_, err := fmt.Fprintf(w, "per-CPU stats: %s\n", s.Note)
		return err
	}
	fmt.Fprintf(w, "per-CPU conntrack stats since boot (via %s):\n", s.Source)
	for _, row := range s.PerCPU {
		var b strings.Builder
		fmt.Fprintf(&b, "cpu=%-3d", row.CPU)
		for _, c := range s.Reported {
			fmt.Fprintf(&b, " %s=%d", c, row.Values.Get(c))
		}
		if _, err := fmt.Fprintln(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// WriteCensus prints a census that took took: JSON, or text a section
// per count.
func WriteCensus(w io.Writer, c model.Census, took time.Duration, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(CensusDoc{Schema: CensusSchema, Census: c})
	}
	approx := ""
	if c.Approximate {
		approx = " (approximate: the table changed during the dump, or many addresses)"
	}
	fmt.Fprintf(w, "%s entries in %s%s\n", units.Int(uint64(c.Total)), took.Round(time.Millisecond), approx)
	printMap(w, "protocol", c.ByProto)
	printMap(w, "tcp state", c.TCPState)
	fmt.Fprintf(w, "open connections: %s\n", c.IdleText())
	fmt.Fprintf(w, "garbage collector: %s\n", c.CountText())
	printTop(w, "top destination ports", c.TopPorts)
	printTop(w, "top sources", c.TopSources)
	dests := make([]tally.Count, len(c.TopDests))
	for i, d := range c.TopDests {
		if dests[i] = d; c.DestServices[d.Key] != "" {
			dests[i].Key += " (Service " + safe.Text(c.DestServices[d.Key], 120) + ")"
		}
	}
	printTop(w, "top destinations", dests)
	if c.TopZones != nil { // only where entries carry zones
		printTop(w, "conntrack zones", c.TopZones)
		printZoneLimits(w, c)
	}
	printStaleDNAT(w, c)
	printOwners(w, c.Owners)
	return nil
}

// printZoneLimits says OVS's limits for the zones listed, or why they
// were not read.
func printZoneLimits(w io.Writer, c model.Census) {
	if c.ZoneLimits == nil {
		if c.ZoneLimitsNote != "" {
			fmt.Fprintf(w, "  zone limits: %s\n", safe.Text(c.ZoneLimitsNote, 200))
		}
		return
	}
	var parts []string
	for _, z := range c.TopZones {
		if id, ok := model.ZoneOf(z.Key); ok {
			limit := "none"
			if l := c.ZoneLimits.Of(id); l > 0 {
				limit = units.Int(uint64(l))
			}
			parts = append(parts, fmt.Sprintf("zone %d: %s", id, limit))
		}
	}
	fmt.Fprintf(w, "  OVS limits: %s\n", strings.Join(parts, ", "))
}

// printStaleDNAT lists the DNAT targets to doubt: before the ruleset is
// read, those that answered none of their UDP entries; after, every one
// it no longer names, with the Service its clients asked for.
func printStaleDNAT(w io.Writer, c model.Census) {
	if len(c.StaleDNAT) == 0 {
		return
	}
	fmt.Fprintln(w, "UDP entries DNAT'd to a target that is gone or never answered:")
	for _, t := range c.StaleDNAT {
		state := "never answered; ruleset not read"
		switch {
		case c.DNATChecked && t.Gone:
			state = "gone from the ruleset: conntrack -D -p udp --reply-src " + t.TargetAddr().String()
		case c.DNATChecked:
			state = "never answered; still in the ruleset"
		}
		if t.Service != "" {
			state = "Service " + safe.Text(t.Service, 120) + ", " + state
		}
		fmt.Fprintf(w, "  %-40s %10s  %s\n", safe.Text(t.Target, 64), units.Int(uint64(t.Count())), state)
	}
}

// printOwners lists who holds the entries; every name is foreign text.
func printOwners(w io.Writer, o *model.Owners) {
	if o == nil {
		return
	}
	fmt.Fprintln(w, "owners (who holds them):")
	if o.Error != "" {
		fmt.Fprintf(w, "  not attributed: %s\n", safe.Text(o.Error, 200))
		return
	}
	for _, c := range o.Top {
		fmt.Fprintf(w, "  %-40s %10s  %s\n", safe.Text(c.Owner.String(), 80), units.Int(uint64(c.N)), safe.Text(c.PeerText(), 80))
	}
	fmt.Fprintf(w, "  %s\n", o.UnownedText())
	if o.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", safe.Text(o.Note, 200))
	}
}

func printMap(w io.Writer, title string, m map[string]int) { printTop(w, title, model.SortedCounts(m)) }

func printTop(w io.Writer, title string, cs []tally.Count) {
	fmt.Fprintf(w, "%s:\n", title)
	if len(cs) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, c := range cs {
		fmt.Fprintf(w, "  %-40s %10s\n", c.Key, units.Int(uint64(c.N)))
	}
}
