package promread

import (
	"strconv"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/metrics"
)

// What a drill-down's samples lack (the parts node_exporter did not give)
// and what they carry besides the table (the host's other namespaces).

// markAbsent marks the parts node_exporter did not give at t as absent,
// not zero: no CPU series, no TCP series; no disk series when there was
// no CPU either (with CPU, no disks is a diskless host).
func (h *history) markAbsent(t int64, s *model.Sample) {
	if len(h.cpus[t]) == 0 {
		s.Absent = s.Absent.With(model.PartCPU)
	}
	if !h.tcpAt[t] {
		s.Absent = s.Absent.With(model.PartTCP)
	}
	if !h.disksAt[t] && len(h.cpus[t]) == 0 {
		s.Absent = s.Absent.With(model.PartDisks)
	}
	if s.Absent != 0 {
		s.Notes = append(s.Notes, NotScraped+" ("+s.Absent.String()+")")
	}
}

// NotScraped says why a drill-down lacks parts.
const NotScraped = "not scraped: no node_exporter for this host in Prometheus"

// netns reads one namespace series of the exporter into its rows.
func (h *history) netns(ss *pmodel.SampleStream) {
	ino := string(ss.Metric["inode"])
	n, err := strconv.ParseUint(ino, 10, 64)
	if err != nil {
		return
	}
	for _, p := range ss.Values {
		t := int64(p.Timestamp)
		if h.ns == nil {
			h.ns = map[int64]map[string]*model.NetNS{}
		}
		if h.ns[t] == nil {
			h.ns[t] = map[string]*model.NetNS{}
		}
		if h.ns[t][ino] == nil {
			if len(h.ns[t]) >= 2*model.MaxNamespaceRows { // bounded whatever Prometheus holds
				continue
			}
			h.ns[t][ino] = &model.NetNS{Inode: n, Name: bound(string(ss.Metric["netns"])), Kind: bound(string(ss.Metric["kind"]))}
		}
		v := uint64(max(0, float64(p.Value)))
		if string(ss.Metric[pmodel.MetricNameLabel]) == metrics.NSDrops.Name {
			h.ns[t][ino].Drops, h.ns[t][ino].DropsRead = v, true
		} else {
			h.ns[t][ino].Count = v
		}
	}
}
