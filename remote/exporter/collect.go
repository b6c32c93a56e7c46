package exporter

import (
	"runtime"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/metrics"
)

// descs are the exporter's descriptions, each made once from its metric's
// one home (metrics.All), documented in docs/exporter.md with the PromQL
// to use them.
var descs = func() map[string]*prometheus.Desc {
	d := make(map[string]*prometheus.Desc, len(metrics.All))
	for _, m := range metrics.All {
		d[m.Name] = prometheus.NewDesc(m.Name, m.Help, m.Labels, nil)
	}
	return d
}()

// descOf is m's description (nil for a metric All does not list, which
// the exporter's tests catch).
func descOf(m metrics.Metric) *prometheus.Desc { return descs[m.Name] }

// verdictKinds are the kinds a tablefull_verdict series exists for:
// every kind but OK, from model's one list.
var verdictKinds = diagnose.ProblemKinds()

// Describe implements prometheus.Collector: every metric of metrics.All.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range metrics.All {
		ch <- descs[m.Name]
	}
}

// Collect implements prometheus.Collector: one snapshot, taken under the
// lock, then written out.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	s := e.take()
	m := emit{ch}
	m.gauge(descOf(metrics.BuildInfo), 1, e.version, e.Revision, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	sample := s.frame.Sample
	tableUp := sample.Conntrack.Status == model.TableTracked || sample.Conntrack.Status == model.TableUntracked
	m.up(s)
	if !s.have {
		return
	}
	m.gauge(descOf(metrics.LastSample), float64(s.at.UnixMilli())/1000)
	if tableUp {
		m.table(sample.Conntrack, s.peak)
	}
	m.totals(s)
	m.perCPU(sample.CTStats, e.PerCPU)
	if ns := sample.Namespaces; ns != nil {
		m.namespaces(ns, e.Owners)
	}
	if d := sample.Drift; d != nil {
		m.drift(d)
	}
	if e.Owners {
		s.attribution.collect(m.gauge)
		s.owners.collect(m.counter, s.probesOn)
	}
	if v := sample.IPVS; v != nil && v.Present {
		m.gauge(descOf(metrics.IPVSConns), float64(v.Conns))
		m.gauge(descOf(metrics.IPVSBuckets), float64(v.Size))
	}
	if f := sample.Flushes; f != nil && f.Watching {
		m.counter(descOf(metrics.UserDeleted), float64(f.Deleted))
	}
	m.verdicts(s, tableUp)
	m.plan(s.plan)
	if e.Journal != nil {
		if n, ok := e.Journal.Deleted(); ok {
			m.counter(descOf(metrics.EntriesDeleted), n)
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
func (m emit) up(s snapshot) {
	for _, p := range partsOf(s.frame.Sample, s.frame.Rates.Entries, s.have, s.streamUp) {
		m.gauge(descOf(metrics.Up), b(p.up), p.name)
	}
}

// table is the table's numbers, when it was read.
func (m emit) table(c model.Conntrack, peak uint64) {
	m.gauge(descOf(metrics.Entries), float64(c.Count))
	m.gauge(descOf(metrics.Peak), float64(peak))
	m.gauge(descOf(metrics.Limit), float64(c.Max))
	m.gauge(descOf(metrics.Buckets), float64(c.Buckets))
	m.gauge(descOf(metrics.Hold), float64(c.TimeWaitHold))
	for _, cl := range model.AllClasses {
		if h := c.Holds[cl]; h > 0 {
			m.gauge(descOf(metrics.ClassHold), float64(h), cl.String())
		}
	}
}

// totals are the counters the exporter sums over its samples; a part
// never read is left out, not counted as zero.
func (m emit) totals(s snapshot) {
	if s.frame.Rates.Entries.Basis == model.BasisEvents {
		for _, cl := range model.AllClasses {
			m.counter(descOf(metrics.NewEntries), s.newEntries[cl], cl.String())
			if !s.evictedUnknown {
				m.counter(descOf(metrics.Evicted), s.evicted[cl], cl.String())
			}
		}
		m.counter(descOf(metrics.NewEntriesLost), s.lost)
	}
	if s.probesRead { // never loaded is not zero lost
		m.counter(descOf(metrics.ProbesLost), s.probesLost)
	}
	m.counter(descOf(metrics.Pinned), s.pinnedSeconds)
	m.counter(descOf(metrics.Episodes), float64(s.episodes))
	if s.frame.Sample.Kernel.Readable { // not read is not zero lines
		m.counter(descOf(metrics.KernelLines), float64(s.kernelLines))
		m.counter(descOf(metrics.Suppressed), float64(s.suppressed))
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
				m.counter(descOf(metrics.CPUEvents), float64(row.Values.Get(c)), cpu, string(c))
			}
		}
		for i := range totals {
			totals[i] += row.Values[i]
		}
	}
	if len(st.PerCPU) > 0 {
		for _, c := range st.Reported {
			m.counter(descOf(metrics.Events), float64(totals.Get(c)), string(c))
		}
	}
}

// namespaces is the other namespaces' tables, bounded:
// model.MaxNamespaceRows, the rest as two series. A pod's or container's
// name says who runs on the host: it is served only where the owners'
// series are (named); elsewhere such a namespace is its inode alone.
func (m emit) namespaces(ns *model.Namespaces, named bool) {
	seen := map[uint64]bool{} // one series per namespace, whatever a stream repeats
	for _, r := range ns.Rows {
		if seen[r.Inode] {
			continue
		}
		seen[r.Inode] = true
		ino, name, kind := strconv.FormatUint(r.Inode, 10), safe.Text(r.Name, 64), safe.Text(r.Kind, 16)
		if !named && (r.Kind == "pod" || r.Kind == "container") {
			name = ""
		}
		m.gauge(descOf(metrics.NSEntries), float64(r.Count), name, kind, ino)
		if r.DropsRead { // read near the cap only: not read is not 0
			m.counter(descOf(metrics.NSDrops), float64(r.TableDrops()), name, kind, ino)
			m.counter(descOf(metrics.NSInsertDrops), float64(min(r.InsertDrops, r.Drops)), name, kind, ino)
		}
	}
	m.gauge(descOf(metrics.NSOthers), float64(ns.Others))
	m.gauge(descOf(metrics.NSOthersEntries), float64(ns.OthersEntries))
	m.gauge(descOf(metrics.NSUnread), float64(ns.Unread))
}

// drift is each checked knob, 1 when its live value left the persisted
// one; a stream's knobs are tablefull's, each once (the stream's boundDrift).
func (m emit) drift(d *knob.Drifts) {
	drifted := map[string]bool{}
	for _, x := range d.Drifted {
		drifted[x.Knob] = true
	}
	seen := map[string]bool{}
	for _, k := range d.Checked {
		if !seen[k] { // a duplicate would fail the whole scrape
			seen[k] = true
			m.gauge(descOf(metrics.TuningDrift), b(drifted[k]), k)
		}
	}
}

// verdicts is each kind held in the window, and its seconds held. A
// verdict judged from a part not read (diagnose.JudgedIn), or from a
// table not read, is neither 1 nor 0: its series is left out. The worst
// held is said once more, alone, for the fleet view's engine.
func (m emit) verdicts(s snapshot, tableUp bool) {
	worst := verdict.OK
	for _, k := range verdictKinds {
		if !diagnose.JudgedIn(k, s.frame.Sample) || (diagnose.KindNeeds(k) == 0 && !tableUp) {
			continue
		}
		m.gauge(descOf(metrics.Verdict), b(s.held[k]), k.Label())
		m.counter(descOf(metrics.VerdictSeconds), s.verdictSeconds[k], k.Label())
		if s.held[k] && worst == verdict.OK {
			worst = k // verdictKinds are most severe first
		}
	}
	if tableUp {
		m.gauge(descOf(metrics.VerdictWorst), 1, worst.Label())
		m.score(s, worst)
	}
}

// score is the host's place in the fleet's order (fleet.Score of its
// worst verdict held, its drops over the window and its count's share of
// the cap), served so that the fleet's engine ranks one series a host
// rather than computing it over every host's counters at each refresh.
// Left out where the drops were not measured: the console then ranks the
// host by its verdict alone, not as a table that never drops.
func (m emit) score(s snapshot, worst verdict.Kind) {
	if !s.dropsRead {
		return
	}
	row := fleet.Row{Count: s.frame.Sample.Conntrack.Count, Limit: s.frame.Sample.Conntrack.Max, DropsPS: s.dropsPS}
	if worst != verdict.OK {
		row.Kinds = []verdict.Kind{worst}
	}
	m.gauge(descOf(metrics.FleetScore), fleet.Score(row))
}

func b(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
