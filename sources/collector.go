package sources

import (
	"errors"
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/cilium"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/ipvs"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/namespaces"
	"github.com/tablefull/tablefull/sources/nic"
	"github.com/tablefull/tablefull/sources/owners"
	"github.com/tablefull/tablefull/sources/pods"
	"github.com/tablefull/tablefull/sources/probes"
	"github.com/tablefull/tablefull/sources/ruleset"
	"github.com/tablefull/tablefull/sources/tune"
)

// Collector takes whole samples of the host from all collectors.
type Collector struct {
	table   *counters.Table
	ctFile  *counters.CTStatFile
	ctNL    ctStatReader
	cpu     *counters.CPU
	disk    *counters.Disk
	tcp     *counters.TCP
	kmsg    *counters.Kmsg
	peak    *counters.PeakSampler
	events  ctnetlink.EventsSwitch
	host    model.Host
	hostErr error // said once, in the first sample's notes
	// pods names the pods the sample knows by UID (a census Live adds
	// later is named there).
	pods *pods.Names
	ipvs *ipvs.Reader
	// flushes watches for entries user space deletes at once, in a live
	// feed where kube-proxy runs.
	flushes *flushSwitch
	// namespaces reads the host's other network namespaces (nil in a
	// child namespace: its agent reports its own table only).
	namespaces *namespaces.Namespaces
	// drift checks the persisted tuning against the live knobs (nil in a
	// child namespace: its own knobs are not the host's persisted ones).
	drift *tune.DriftCheck
	// procRoot is where the census finds the owners of entries.
	procRoot string
	// listen names the pressed listeners when listen queues overflow;
	// ports counts the local ports by destination near the port range.
	listen owners.ListenWatch
	ports  owners.PortWatch
	// insert reads the ruleset's source NAT when entries fail to insert.
	insert insertWatch
	// nic reads the cloud NICs' own connection tracking (ENA); cilium
	// Cilium's conntrack maps, where it runs.
	nic    *nic.Reader
	cilium *cilium.Reader
	// who loads the eBPF probes near the cap (Live drives it).
	who attribution
	// The attribution runs beside the sample (offPath): what a local user
	// can slow down never holds the count back.
	listenRun offPath[*model.Listeners]
	portsRun  offPath[*model.PortUse]
	whoRun    offPath[*model.Who]
	nsRun     offPath[*model.Namespaces]
	driftRun  offPath[*knob.Drifts]
	// DrainKernelLog makes each sample read the kernel log to its end,
	// for one-shot samples (snapshot); a live feed takes the backlog in
	// bounded steps so the first frame is not delayed.
	DrainKernelLog bool
}

// ctStatReader is the ctnetlink fallback; tests replace it.
type ctStatReader interface {
	Read() (model.CTStats, error)
}

// NewCollector builds every collector over roots.
func NewCollector(roots kernelfs.Roots) (*Collector, error) {
	c := &Collector{table: counters.NewTable(roots.Proc), ctFile: counters.NewCTStatFile(roots.Proc), events: ctnetlink.NewEventsSwitch(ctnetlink.NewEntryEvents(roots.Proc)),
		ctNL: ctnetlink.CTStatNetlink{Timeout: 2 * time.Second}, kmsg: counters.NewKmsg(roots), procRoot: roots.Proc,
		listen: owners.NewListenWatch(roots.Proc), ports: owners.NewPortWatch(roots.Proc), who: probes.NewSwitch(roots.Proc), insert: insertWatch{nat: ruleset.NewReader()},
		nic: nic.NewReader(roots.Sys), cilium: cilium.NewReader(roots.Sys), ipvs: ipvs.NewReader(roots.Proc), pods: pods.OnNode(roots.Proc),
		flushes: newFlushSwitch(roots.Proc)}
	var err error
	if c.cpu, err = counters.NewCPU(roots.Proc); err != nil {
		return nil, err
	}
	if c.disk, err = counters.NewDisk(roots.Proc, roots.Sys); err != nil {
		return nil, err
	}
	if c.tcp, err = counters.NewTCP(roots.Proc); err != nil {
		return nil, err
	}
	c.host, c.hostErr = counters.ReadHost(roots.Proc)
	if !(&tune.Sysctls{Proc: roots.Proc}).InChildNamespace() { // the host's collector sees every namespace
		c.namespaces = namespaces.NewNamespaces(roots)
		if roots.Etc != "" { // no configuration root, no drift to check
			c.drift = &tune.DriftCheck{Pers: tune.PersisterAt(roots), Sysctls: tune.NewSysctls(roots), Proc: roots.Proc}
		}
	}
	return c, nil
}

// Host describes the host; read once at construction.
func (c *Collector) Host() model.Host { return c.host }

// OpenPeak opens the peak sampler of nf_conntrack_count, which PollPeak
// then reads between samples. Without it each sample's peak is its own
// count.
func (c *Collector) OpenPeak() {
	if c.peak != nil {
		return
	}
	p, err := counters.NewPeakSampler(c.table.CountPath())
	if err != nil {
		return // module not loaded: the sample says so
	}
	c.peak = p
}

// WatchFlushes lets the samples watch for flushes (where kube-proxy
// runs): a live feed's, which has a past to watch.
func (c *Collector) WatchFlushes() { c.flushes.live = true }

// PollPeak reads the count once for the next sample's peak; without
// OpenPeak it does nothing.
func (c *Collector) PollPeak() (count uint64, ok bool) {
	if c.peak != nil {
		count, ok = c.peak.Poll()
	}
	if c.namespaces != nil {
		c.namespaces.PollPeaks()
	}
	return count, ok
}

// Close releases the peak sampler, the events, the table files and the
// kernel log, once the attribution under way is done.
func (c *Collector) Close() error {
	c.listenRun.wait()
	c.whoRun.wait()
	c.nsRun.wait()
	c.driftRun.wait()
	c.events.Stop()
	c.flushes.close()
	c.who.Stop()
	if c.peak != nil {
		c.peak.Close()
	}
	c.table.Close()
	c.ctFile.Close()
	c.tcp.Close()
	c.cpu.Close()
	c.disk.Close()
	if c.namespaces != nil {
		c.namespaces.Close()
	}
	return c.kmsg.Close()
}

// Sample reads everything once. Parts that fail are noted in the sample;
// the rest is still returned.
func (c *Collector) Sample(now time.Time, interval time.Duration) model.Sample {
	s := model.Sample{Time: now, Interval: interval, KernelRelease: c.host.Kernel}
	var notes []string
	note := func(err error) {
		if err != nil {
			notes = append(notes, err.Error())
		}
	}
	var err error
	s.Conntrack, err = c.table.Read()
	note(err)
	if c.peak != nil && s.Conntrack.Status == model.TableTracked {
		s.Conntrack.Peak = c.peak.Take(s.Conntrack.Count)
	}
	s.Conntrack = s.Conntrack.CutToCap(uint64(max(1, c.host.CPUs))) // at most one refused allocation a CPU
	s.CTStats = c.readCTStats(s.Conntrack.Status)
	s.NAT = c.insert.read(s.CTStats, now)
	s.Allowance = c.nic.Read(now)
	s.IPVS = c.ipvs.Read(now)
	s.Flushes = c.flushes.read(now)
	if s.Cilium = c.cilium.Read(now); s.Cilium != nil && s.Cilium.Note != "" {
		note(fmt.Errorf("cilium: %s", s.Cilium.Note)) // pinned but not read: unknown, not empty
	}
	if s.Conntrack.Status == model.TableTracked && s.Conntrack.Peak == 0 && untouched(s.CTStats) && !s.Flushes.Any() {
		s.Conntrack.Status = model.TableUntracked
	}
	// A part that could not be read is absent, not zero: its rows would
	// read as an idle CPU, a quiet disk, a calm TCP stack.
	absent := func(p model.Part, err error) {
		if err != nil {
			note(err)
			s.Absent = s.Absent.With(p)
		}
	}
	s.CPU, err = c.cpu.Read()
	absent(model.PartCPU, err)
	s.Disks, err = c.disk.Read()
	absent(model.PartDisks, err)
	s.TCP, err = c.tcp.Read()
	absent(model.PartTCP, err)
	started := c.startOffPath(now, s, err == nil)
	s.Entries = c.events.Read(s.Conntrack.Status)
	c.takeOffPath(started, &s, &notes)
	s.Kernel = c.kmsg.Poll(now)
	for c.DrainKernelLog && c.kmsg.More { // a one-shot sample reads the whole backlog
		more := c.kmsg.Poll(now)
		s.Kernel.Lines = append(s.Kernel.Lines, more.Lines...)
		s.Kernel.Suppressed += more.Suppressed
	}
	if c.hostErr != nil {
		notes = append(notes, c.hostErr.Error())
		c.hostErr = nil
	}
	s.Notes = notes
	s.NamePods(c.pods.Of)
	return s
}

// lateAs notes an attribution past its budget.
func lateAs(notes *[]string, what string, late time.Duration) {
	if late > 0 {
		*notes = append(*notes, lateNote(what, late))
	}
}

// readCTStats prefers /proc/net/stat/nf_conntrack and falls back to
// ctnetlink when the file is absent.
func (c *Collector) readCTStats(status model.TableStatus) model.CTStats {
	if status == model.TableNoModule {
		return model.CTStats{Note: "nf_conntrack is not loaded"}
	}
	s, err := c.ctFile.Read()
	if err == nil {
		return s
	}
	if !errors.Is(err, kernelfs.ErrUnavailable) {
		return model.CTStats{Note: err.Error()}
	}
	s, nlErr := c.ctNL.Read()
	switch {
	case nlErr == nil:
		return s
	case errors.Is(nlErr, kernelfs.ErrPermission):
		return model.CTStats{Note: "per-CPU stats need root here: /proc/net/stat/nf_conntrack is absent and ctnetlink needs CAP_NET_ADMIN"}
	}
	return model.CTStats{Note: "per-CPU stats unavailable: " + nlErr.Error()}
}

// untouched reports whether no conntrack counter ever moved: with a zero
// count this means nothing in the namespace uses conntrack.
func untouched(s model.CTStats) bool {
	if len(s.PerCPU) == 0 {
		return true
	}
	for _, row := range s.PerCPU {
		for _, v := range row.Values {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// attribution counts connections and drops by owner as they happen: the
// eBPF probes (probes.Switch), loaded by the fast-sampling rule.
type attribution interface {
	Set(now time.Time, want bool)
	Read() *model.Who
	Stop()
}
