package exporter

import (
	"runtime"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// The metrics, documented in docs/exporter.md with the PromQL to use them.
var (
	descEntries   = desc(remote.MetricEntries, "Entries in the conntrack table at the last sample (nf_conntrack_count).")
	descPeak      = desc(remote.MetricPeak, "Highest entry count seen by the fast sampling in the trailing window (--window, default 1m): a burst between two scrapes is not lost, and every scraper reads the same.")
	descLimit     = desc(remote.MetricLimit, "The table's cap (nf_conntrack_max).")
	descBuckets   = desc(remote.MetricBuckets, "Hash buckets (nf_conntrack_buckets).")
	descHold      = desc(remote.MetricHold, "How long a TIME_WAIT entry is held (nf_conntrack_tcp_timeout_time_wait).")
	descCPU       = desc(remote.MetricCPUEvents, "Per-CPU conntrack counter, by name as conntrack -S prints it (read by header name from /proc/net/stat/nf_conntrack, or over ctnetlink). Served only with --per-cpu-series: a series per CPU and counter the kernel reports (up to 8 a CPU, about 3,000 on a 384-CPU host); tablefull_conntrack_events_total is the same summed.", "cpu", "counter")
	descTotal     = desc(remote.MetricEvents, "A conntrack counter summed over all CPUs.", "counter")
	descPinned    = desc(remote.MetricPinned, "Seconds the table spent at its cap (the peak of an interval reached nf_conntrack_max) since the exporter started.")
	descEpisodes  = desc(remote.MetricEpisodes, "Pinned episodes begun since the exporter started.")
	descKLines    = desc(remote.MetricKernelLines, "Kernel log lines \"nf_conntrack: table full, dropping packet\" seen since the exporter started.")
	descSuppress  = desc(remote.MetricSuppressed, "Kernel log callbacks suppressed by its rate limit (\"N callbacks suppressed\") since the exporter started.")
	descNew       = desc(remote.MetricNewEntries, "New conntrack entries by class (tcp-closed, tcp-unanswered, tcp-open, udp, udp-stream, icmp, other), counted from ctnetlink NEW and DESTROY events while the table is near its cap (needs CAP_NET_ADMIN); absent while not counted.", "class")
	descEvicted   = desc(remote.MetricEvicted, "Conntrack entries the kernel ended with time left on their timeout, by class: near the cap, the garbage collector's evictions (which no per-CPU counter counts) and the packet path's early drops; counted from DESTROY events while the table is near its cap; absent while not counted.", "class")
	descLost      = desc(remote.MetricNewEntriesLost, "ctnetlink events the kernel could not deliver to the exporter (its socket overran): the new-entry counts are then lower bounds.")
	descClassHold = desc(remote.MetricClassHold, "How long the kernel holds an entry of the class now (its nf_conntrack_*_timeout); absent when not read.", "class")
	descDeleted   = desc(remote.MetricEntriesDeleted, "Entries deleted through tablefull (tablefull entries --delete, the console's D), from the journal in the state directory; absent where that directory cannot be read.")
	descUserDel   = desc(remote.MetricUserDeleted, "Conntrack entries user space deleted (kube-proxy's cleanup of a gone endpoint, a kube-proxy restart, conntrack -D and -F: DESTROY events that carry a deleter) since the flush watch began; the watch runs where kube-proxy runs, and the series is absent elsewhere. Bursts of 100 a second or more are ENTRIES FLUSHED.")
	descIPVS      = desc(remote.MetricIPVSConns, "Connections IPVS holds for its services (kube-proxy's IPVS mode), each real server's active and inactive ones summed, read at most every 30 s; absent where ip_vs is not loaded.")
	descIPVSSize  = desc(remote.MetricIPVSBuckets, "Buckets of IPVS's connection table (2^ip_vs_conn_tab_bits): more connections than that make long chains, never refusals; absent where ip_vs is not loaded.")
	descVerdictS  = desc(remote.MetricVerdictSeconds, "Seconds each verdict held since the exporter started (by the console's own rules): increase() over any range sees what held, whoever else scrapes.", "kind")
	descVerdict   = desc(remote.MetricVerdict, "1 when the verdict held at any sample in the trailing window (--window, default 1m; every scraper reads the same), by the console's own rules and thresholds, else 0 (kind: "+kindLabels()+").", "kind")
	descUp        = desc(remote.MetricUp, "1 when this part of the host's numbers could be read: conntrack (the table), ctstats (per-CPU counters), cpu, disks and tcp (/proc/stat, diskstats, netstat), kernel_log (/dev/kmsg, with CAP_SYSLOG), namespaces (the host's other network namespaces: 0 when other users' processes could not be read, without CAP_SYS_PTRACE), entries (new entries by class: counted near the cap only, so absent far from it, 0 only when counting failed), stream (samples arriving).", "part")
	descNSEntries = desc(remote.MetricNSEntries, "Entries in another network namespace's conntrack table (the cap is the host's tablefull_conntrack_entries_limit), for the 20 fullest; the rest are in tablefull_netns_others.", "netns", "kind", "inode")
	descNSDrops   = desc(remote.MetricNSDrops, "drop and early_drop of another network namespace's table, summed over CPUs, for the 20 fullest; read once its table is half full (absent before).", "netns", "kind", "inode")
	descNSOthers  = desc(remote.MetricNSOthers, "Network namespaces read beyond the 20 with series of their own.")
	descNSUnread  = desc(remote.MetricNSUnread, "Network namespaces not read at all: over the cap of 4,096 kept between walks (those users made in their own user namespaces are left out first). Absent when the namespaces were not read.")
	descNSOtherEn = desc(remote.MetricNSOthersEntries, "Entries in the namespaces beyond the 20, together.")
	descDrift     = desc(remote.MetricTuningDrift, "1 when a knob tablefull persisted (tune --persist) reads live other than its persisted value: it did not apply at boot (the module loaded late?), or something wrote it since; 0 while it holds; absent for a knob not persisted or not readable.", "knob")
	descLastTime  = desc(remote.MetricLastSample, "When the newest sample was taken (Unix time).")
	descBuildInfo = desc(remote.MetricBuildInfo, "tablefull's version, the commit it was built from, the Go version and platform; always 1.", "version", "revision", "goversion", "goos", "goarch")
)

// verdictKinds are the kinds a tablefull_verdict series exists for:
// every kind but OK, from model's one list.
var verdictKinds = model.ProblemKinds()

// kindLabels lists the kinds' labels for the help text.
func kindLabels() string {
	l := make([]string, len(verdictKinds))
	for i, k := range verdictKinds {
		l[i] = k.Label()
	}
	return strings.Join(l, ", ")
}

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descEntries, descPeak, descLimit, descBuckets, descHold, descCPU, descTotal,
		descNew, descEvicted, descLost, descClassHold, descPinned, descEpisodes, descKLines, descSuppress, descVerdict, descUp, descNSEntries, descNSDrops, descNSOthers, descNSOtherEn, descNSUnread, descDrift, descVerdictS, descLastTime, descBuildInfo,
		descOwner, descOwnerNew, descOwnerDrops, descProbesLost, descListenQueue, descListenBacklog, descDeleted} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: one snapshot, taken under the
// lock, then written out.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	s := e.take()
	m := emit{ch}
	m.gauge(descBuildInfo, 1, e.version, e.Revision, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	sample := s.frame.Sample
	tableUp := sample.Conntrack.Status == model.TableTracked || sample.Conntrack.Status == model.TableUntracked
	m.up(s, tableUp)
	if !s.have {
		return
	}
	m.gauge(descLastTime, float64(s.at.UnixMilli())/1000)
	if tableUp {
		m.table(sample.Conntrack, s.peak)
	}
	m.totals(s)
	m.perCPU(sample.CTStats, e.PerCPU)
	if ns := sample.Namespaces; ns != nil {
		m.namespaces(ns)
	}
	if d := sample.Drift; d != nil {
		m.drift(d)
	}
	if e.Owners {
		s.attribution.collect(m.gauge)
		s.owners.collect(m.counter, s.probesOn)
	}
	if v := sample.IPVS; v != nil && v.Present {
		m.gauge(descIPVS, float64(v.Conns))
		m.gauge(descIPVSSize, float64(v.Size))
	}
	if f := sample.Flushes; f != nil && f.Watching {
		m.counter(descUserDel, float64(f.Deleted))
	}
	m.verdicts(s, tableUp)
	if e.Journal != nil {
		if n, ok := e.Journal.Deleted(); ok {
			m.counter(descDeleted, n)
		}
	}
}

// emit sends one scrape's metrics.
type emit struct{ ch chan<- prometheus.Metric }

func (m emit) gauge(d *prometheus.Desc, v float64, labels ...string) {
	m.ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func (m emit) counter(d *prometheus.Desc, v float64, labels ...string) {
	m.ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

// up says which parts were read at the last sample.
func (m emit) up(s snapshot, tableUp bool) {
	sample := s.frame.Sample
	m.gauge(descUp, b(s.streamUp), "stream")
	m.gauge(descUp, b(s.have && tableUp), "conntrack")
	m.gauge(descUp, b(s.have && sample.CTStats.Source != ""), "ctstats")
	m.gauge(descUp, b(s.have && sample.Kernel.Readable), "kernel_log")
	m.gauge(descUp, b(s.have && sample.Namespaces != nil && !sample.Namespaces.Denied), "namespaces")
	for _, p := range []struct {
		part model.Part
		name string
	}{{model.PartCPU, "cpu"}, {model.PartDisks, "disks"}, {model.PartTCP, "tcp"}} {
		m.gauge(descUp, b(s.have && !sample.Absent.Has(p.part)), p.name)
	}
}

// table is the table's numbers, when it was read.
func (m emit) table(c model.Conntrack, peak uint64) {
	m.gauge(descEntries, float64(c.Count))
	m.gauge(descPeak, float64(peak))
	m.gauge(descLimit, float64(c.Max))
	m.gauge(descBuckets, float64(c.Buckets))
	m.gauge(descHold, float64(c.TimeWaitHold))
	for _, cl := range model.AllClasses {
		if h := c.Holds[cl]; h > 0 {
			m.gauge(descClassHold, float64(h), cl.String())
		}
	}
}

// totals are the counters the exporter sums over its samples; a part
// never read is left out, not counted as zero.
func (m emit) totals(s snapshot) {
	if !s.frame.Sample.Entries.OffByDesign() { // far from the cap they are not counted: not a failure
		m.gauge(descUp, b(s.frame.Rates.Entries.Basis == model.BasisEvents), "entries")
	}
	if s.frame.Rates.Entries.Basis == model.BasisEvents {
		for _, cl := range model.AllClasses {
			m.counter(descNew, s.newEntries[cl], cl.String())
			m.counter(descEvicted, s.evicted[cl], cl.String())
		}
		m.counter(descLost, s.lost)
	}
	if s.probesRead { // never loaded is not zero lost
		m.counter(descProbesLost, s.probesLost)
	}
	m.counter(descPinned, s.pinnedSeconds)
	m.counter(descEpisodes, float64(s.episodes))
	if s.frame.Sample.Kernel.Readable { // not read is not zero lines
		m.counter(descKLines, float64(s.kernelLines))
		m.counter(descSuppress, float64(s.suppressed))
	}
}

// perCPU is conntrack's counters per CPU and summed.
// perCPU is the conntrack counters summed over CPUs, and with rows each
// CPU's.
func (m emit) perCPU(st model.CTStats, rows bool) {
	var totals model.CounterValues
	for _, row := range st.PerCPU {
		cpu := strconv.Itoa(row.CPU)
		for _, c := range st.Reported {
			if rows {
				m.counter(descCPU, float64(row.Values.Get(c)), cpu, string(c))
			}
		}
		for i := range totals {
			totals[i] += row.Values[i]
		}
	}
	if len(st.PerCPU) > 0 {
		for _, c := range st.Reported {
			m.counter(descTotal, float64(totals.Get(c)), string(c))
		}
	}
}

// namespaces is the other namespaces' tables, bounded:
// model.MaxNamespaceRows, the rest as two series.
func (m emit) namespaces(ns *model.Namespaces) {
	seen := map[uint64]bool{} // one series per namespace, whatever a stream repeats
	for _, r := range ns.Rows {
		if seen[r.Inode] {
			continue
		}
		seen[r.Inode] = true
		ino, name, kind := strconv.FormatUint(r.Inode, 10), model.Sanitize(r.Name, 64), model.Sanitize(r.Kind, 16)
		m.gauge(descNSEntries, float64(r.Count), name, kind, ino)
		if r.DropsRead { // read near the cap only: not read is not 0
			m.counter(descNSDrops, float64(r.Drops), name, kind, ino)
		}
	}
	m.gauge(descNSOthers, float64(ns.Others))
	m.gauge(descNSOtherEn, float64(ns.OthersEntries))
	m.gauge(descNSUnread, float64(ns.Unread))
}

// drift is each checked knob, 1 when its live value left the persisted
// one; a stream's knobs are tablefull's, each once (remote.boundDrift).
func (m emit) drift(d *model.Drifts) {
	drifted := map[string]bool{}
	for _, x := range d.Drifted {
		drifted[x.Knob] = true
	}
	seen := map[string]bool{}
	for _, k := range d.Checked {
		if !seen[k] { // a duplicate would fail the whole scrape
			seen[k] = true
			m.gauge(descDrift, b(drifted[k]), k)
		}
	}
}

// verdicts is each kind held in the window, and its seconds held. A
// verdict judged from a part not read (model.Kind.JudgedIn), or from a
// table not read, is neither 1 nor 0: its series is left out.
func (m emit) verdicts(s snapshot, tableUp bool) {
	for _, k := range verdictKinds {
		if !k.JudgedIn(s.frame.Sample) || (k.Needs() == 0 && !tableUp) {
			continue
		}
		m.gauge(descVerdict, b(s.held[k]), k.Label())
		m.counter(descVerdictS, s.verdictSeconds[k], k.Label())
	}
}

func b(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
