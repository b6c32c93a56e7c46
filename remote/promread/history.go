package promread

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/metrics"
	"github.com/tablefull/tablefull/remote/stream"
)

// MaxHistoryPoints bounds one drill-down: an instance's span at its step
// is cut to this many samples (6 h at 15 s is 1,440).
const MaxHistoryPoints = 11000

// History is instance's span up to end at step (0: the scrape
// resolution), as the samples the
// stream carries: the table and per-CPU counters from its exporter, and
// TCP, CPU and disk from node_exporter when one runs on the same host
// (an instance label with the same host and any port).
func (r *Reader) History(ctx context.Context, instance string, end time.Time, span, step time.Duration) (model.Host, []model.Sample, error) {
	inst := `instance=` + strconv.Quote(instance)
	if step <= 0 {
		step = r.scrapeInterval(ctx, inst, end)
	}
	if n := span / step; n > MaxHistoryPoints {
		span = MaxHistoryPoints * step
	}
	rng := queryRange{Start: end.Add(-span), End: end, Step: step}
	r.cut = 0
	host := `instance=~` + strconv.Quote(regexp.QuoteMeta(hostOf(instance))+`:[0-9]+`)
	h := history{step: step, at: map[int64]*model.Sample{}}
	queries := []struct {
		q    string
		into func(pmodel.Matrix)
	}{
		{r.with(inst + `,__name__=~"` + metrics.AnyOf(metrics.Entries.Name, metrics.Limit.Name, metrics.Peak.Name, metrics.Buckets.Name, metrics.Hold.Name) + `"`), h.table},
		{r.with(inst + `,__name__=~"` + metrics.AnyOf(metrics.CPUEvents.Name, metrics.Events.Name) + `"`), h.perCPU},
		{r.with(inst + `,__name__=~"` + metrics.AnyOf(metrics.NewEntries.Name, metrics.Evicted.Name, metrics.ClassHold.Name, metrics.NSEntries.Name, metrics.NSDrops.Name) + `"`), h.classes},
		{`{` + host + `,__name__=~"` + namesOf(nodeTCP) + `"}`, h.tcp},
		{`sum by (cpu, mode) (` + nodeCPU + `{` + host + `})`, h.cpu},
		{`{` + host + `,__name__=~"` + namesOf(nodeDisk) + `"}`, h.disks},
	}
	for _, q := range queries {
		m, err := r.ranged(ctx, q.q, rng)
		if err != nil {
			return model.Host{}, nil, err
		}
		q.into(m)
	}
	samples := h.samples()
	if r.cut > 0 && len(samples) > 0 {
		samples[0].Notes = append(samples[0].Notes, fmt.Sprintf("Prometheus answered %d points the drill-down did not ask for (off its steps or range): left out", r.cut))
	}
	return model.Host{Name: instance, Source: "prometheus " + r.where}, samples, nil
}

// scrapeInterval is how often Prometheus scrapes the instance: the
// spacing of its newest raw samples (one query), 15 s when unknown.
func (r *Reader) scrapeInterval(ctx context.Context, inst string, at time.Time) time.Duration {
	r.meter.queries.Add(1)
	v, err := r.api.query(ctx, metrics.Limit.Name+r.with(inst)+"[5m]", at)
	m, ok := v.(pmodel.Matrix)
	if err != nil || !ok || len(m) == 0 || len(m[0].Values) < 2 {
		return 15 * time.Second
	}
	pts := m[0].Values
	gaps := make([]time.Duration, 0, len(pts)-1)
	for i := 1; i < len(pts); i++ {
		gaps = append(gaps, pts[i].Timestamp.Time().Sub(pts[i-1].Timestamp.Time()))
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	return max(time.Second, gaps[len(gaps)/2].Round(time.Second))
}

// hostOf is an instance label's host: "web-3:9874" → "web-3".
func hostOf(instance string) string {
	if i := strings.LastIndexByte(instance, ':'); i > 0 && !strings.HasSuffix(instance, "]") {
		return instance[:i]
	}
	return instance
}

// history gathers range results into one sample per timestamp.
type history struct {
	step time.Duration
	at   map[int64]*model.Sample
	cpus map[int64]map[int]*model.CPUTimes
	// ns are the other namespaces' rows by timestamp and inode (the
	// exporter's 20 fullest at each scrape).
	ns map[int64]map[string]*model.NetNS
	// tcpAt and disksAt are the timestamps node_exporter's TCP and disk
	// series had a value at: elsewhere those parts were not scraped.
	tcpAt, disksAt map[int64]bool
	// summedCPUs says the conntrack counters came summed over CPUs (the
	// exporter serves no per-CPU series): their one row is all of them.
	summedCPUs bool
}

// sample is the sample at t, created with the table's numbers.
func (h *history) sample(t pmodel.Time) *model.Sample {
	s := h.at[int64(t)]
	if s == nil {
		s = &model.Sample{Time: t.Time(), Interval: h.step,
			Kernel: model.KernelLog{Note: "its lines are counted in " + metrics.KernelLines.Name + "; Prometheus keeps no text"}}
		h.at[int64(t)] = s
	}
	return s
}

func (h *history) table(m pmodel.Matrix) {
	for _, ss := range m {
		for _, p := range ss.Values {
			s, v := h.sample(p.Timestamp), uint64(p.Value) // in range: boundMatrix
			c := &s.Conntrack
			c.Status = model.TableTracked
			switch string(ss.Metric[pmodel.MetricNameLabel]) {
			case metrics.Entries.Name:
				c.Count = v
			case metrics.Limit.Name:
				c.Max = v
			case metrics.Peak.Name:
				c.Peak = v
			case metrics.Buckets.Name:
				c.Buckets = v
			case metrics.Hold.Name:
				c.TimeWaitHold = v
			}
		}
	}
}

// classes reads the new entries and holds by class. A drill-down is one
// subscription: the per-class counts stand for NEW events by protocol
// and DESTROY events by class, which split back into the same rates.
func (h *history) classes(m pmodel.Matrix) {
	for _, ss := range m {
		if name := string(ss.Metric[pmodel.MetricNameLabel]); name == metrics.NSEntries.Name || name == metrics.NSDrops.Name {
			h.netns(ss)
			continue
		}
		cl, ok := model.ClassNamed(string(ss.Metric["class"]))
		if !ok {
			continue
		}
		for _, p := range ss.Values {
			s, v := h.sample(p.Timestamp), uint64(p.Value) // in range: boundMatrix
			switch string(ss.Metric[pmodel.MetricNameLabel]) {
			case metrics.ClassHold.Name:
				s.Conntrack.Holds[cl] = v
			case metrics.NewEntries.Name:
				e := &s.Entries
				e.Source, e.Epoch, e.Note = model.EntriesEvents, 1, ""
				e.Ended[cl] = v
				e.New[cl.Proto()] += v
			case metrics.Evicted.Name:
				s.Entries.Evicted[cl] = v
			}
		}
	}
}

// perCPU reads the per-CPU counters; where the exporter serves none (its
// per-CPU series are opt-in), the counters summed over CPUs, as one row
// that a note on the first sample names.
func (h *history) perCPU(m pmodel.Matrix) {
	summed := true
	for _, ss := range m {
		if string(ss.Metric[pmodel.MetricNameLabel]) == metrics.CPUEvents.Name {
			summed = false
		}
	}
	rows := map[int64]map[int]*model.CPUCounters{}
	seen := map[model.Counter]bool{}
	for _, ss := range m {
		cpu, err := strconv.Atoi(string(ss.Metric["cpu"]))
		if name := string(ss.Metric[pmodel.MetricNameLabel]); name == metrics.Events.Name && summed {
			cpu, err = 0, nil
		} else if name != metrics.CPUEvents.Name {
			continue
		}
		ctr := model.Counter(ss.Metric["counter"])
		if err != nil || cpu < 0 || cpu >= stream.MaxCPUs {
			continue
		}
		seen[ctr] = true
		for _, p := range ss.Values {
			t := int64(p.Timestamp)
			if rows[t] == nil {
				rows[t] = map[int]*model.CPUCounters{}
			}
			if rows[t][cpu] == nil {
				rows[t][cpu] = &model.CPUCounters{CPU: cpu}
			}
			rows[t][cpu].Values.Set(ctr, uint64(max(0, float64(p.Value))))
		}
	}
	var reported []model.Counter
	for _, c := range model.AllCounters {
		if seen[c] {
			reported = append(reported, c)
		}
	}
	for t, byCPU := range rows {
		s := h.sample(pmodel.Time(t))
		s.CTStats = model.CTStats{Source: "prometheus", Reported: reported}
		h.summedCPUs = summed
		for _, r := range byCPU {
			s.CTStats.PerCPU = append(s.CTStats.PerCPU, *r)
		}
		sort.Slice(s.CTStats.PerCPU, func(i, j int) bool { return s.CTStats.PerCPU[i].CPU < s.CTStats.PerCPU[j].CPU })
	}
}

func (h *history) tcp(m pmodel.Matrix) {
	for _, ss := range m {
		for _, p := range ss.Values {
			s, v := h.sample(p.Timestamp), uint64(p.Value) // in range: boundMatrix
			if h.tcpAt == nil {
				h.tcpAt = map[int64]bool{}
			}
			h.tcpAt[int64(p.Timestamp)] = true
			if set := nodeTCP[string(ss.Metric[pmodel.MetricNameLabel])]; set != nil {
				set(&s.TCP, v)
			}
		}
	}
}

func (h *history) cpu(m pmodel.Matrix) {
	for _, ss := range m {
		cpu, err := strconv.Atoi(string(ss.Metric["cpu"]))
		mode := slices.Index(model.CPUModes[:], string(ss.Metric["mode"]))
		if err != nil || cpu < 0 || cpu >= stream.MaxCPUs || mode < 0 {
			continue
		}
		for _, p := range ss.Values {
			if h.cpus == nil {
				h.cpus = map[int64]map[int]*model.CPUTimes{}
			}
			t := int64(p.Timestamp)
			if h.cpus[t] == nil {
				h.cpus[t] = map[int]*model.CPUTimes{}
			}
			c := h.cpus[t][cpu]
			if c == nil {
				c = &model.CPUTimes{CPU: cpu}
				h.cpus[t][cpu] = c
			}
			times := c.Times()
			times[mode] = float64(p.Value)
			*c = model.CPUTimesOf(cpu, times)
		}
	}
}

func (h *history) disks(m pmodel.Matrix) {
	byDisk := map[int64]map[string]*model.DiskIO{}
	for _, ss := range m {
		dev := string(ss.Metric["device"])
		if dev == "" || len(dev) > stream.MaxString {
			continue
		}
		for _, p := range ss.Values {
			t := int64(p.Timestamp)
			if byDisk[t] == nil {
				byDisk[t] = map[string]*model.DiskIO{}
			}
			d := byDisk[t][dev]
			if d == nil {
				d = &model.DiskIO{Name: dev}
				byDisk[t][dev] = d
			}
			if set := nodeDisk[string(ss.Metric[pmodel.MetricNameLabel])]; set != nil {
				set(d, max(0, float64(p.Value)))
			}
		}
	}
	for t, ds := range byDisk {
		if h.disksAt == nil {
			h.disksAt = map[int64]bool{}
		}
		h.disksAt[t] = true
		if s := h.at[t]; s != nil && len(ds) <= stream.MaxDisks {
			for _, d := range ds {
				s.Disks = append(s.Disks, *d)
			}
			sort.Slice(s.Disks, func(i, j int) bool { return s.Disks[i].Name < s.Disks[j].Name })
		}
	}
}

// samples are the gathered samples in time order: only timestamps where
// the exporter had the table (node_exporter alone makes no sample).
func (h *history) samples() []model.Sample {
	var out []model.Sample
	for t, s := range h.at {
		if s.Conntrack.Status != model.TableTracked {
			continue
		}
		for _, c := range h.cpus[t] {
			s.CPU = append(s.CPU, *c)
		}
		sort.Slice(s.CPU, func(i, j int) bool { return s.CPU[i].CPU < s.CPU[j].CPU })
		h.markAbsent(t, s)
		if rows := h.ns[t]; len(rows) > 0 {
			var list []model.NetNS
			for _, r := range rows {
				list = append(list, *r)
			}
			ns := model.SortNamespaces(list)
			s.Namespaces = &ns
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	if h.summedCPUs && len(out) > 0 {
		out[0].Notes = append(out[0].Notes, "the exporter serves no per-CPU conntrack series (--per-cpu-series): row 0 is every CPU summed")
	}
	return out
}
