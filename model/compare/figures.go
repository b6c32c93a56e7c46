package compare

import (
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/verdict"
)

// Better says which way a figure moving is a gain for the workload.
type Better int

// The directions a figure may be better in.
const (
	// Neither: a figure that describes, not judges (CPU may rise because
	// the server finally works).
	Neither Better = iota
	Lower
	Higher
)

// Figure is one number a comparison sets side by side: its key (JSON),
// its name, its unit and which way is better.
type Figure struct {
	Key    string       `json:"key"`
	Name   string       `json:"name"`
	Unit   verdict.Unit `json:"unit"`
	Better Better       `json:"-"`
	// Source says where the number is read in a recording.
	Source string `json:"source"`
	get    func(in *incident.Incident) (float64, bool)
}

// figures are the numbers that matter to a table's incident, in the
// order they are printed. Each is missing from a pass that did not read
// what it is counted from: missing is not zero.
var figures = []Figure{
	{Key: "drops", Name: "drops", Unit: verdict.Packets, Better: Lower, Source: "conntrack -S drop, summed over the CPUs",
		get: func(in *incident.Incident) (float64, bool) { return float64(in.Drops), in.Overall.Tracked > 0 }},
	{Key: "drops_per_second", Name: "drops/s", Unit: verdict.PerSecond, Better: Lower, Source: "conntrack -S drop over the recording's time",
		get: func(in *incident.Incident) (float64, bool) { return in.Overall.DropsPS, in.Overall.Tracked > 0 }},
	{Key: "pinned", Name: "time pinned at the cap", Unit: verdict.Duration, Better: Lower, Source: "nf_conntrack_count at nf_conntrack_max",
		get: func(in *incident.Incident) (float64, bool) { return in.Pinned.Seconds(), in.Overall.Tracked > 0 }},
	{Key: "pinned_percent", Name: "share of the time pinned", Unit: verdict.Percent, Better: Lower, Source: "time pinned ÷ the recording's time",
		get: func(in *incident.Incident) (float64, bool) {
			span := in.To.Sub(in.From).Seconds()
			return 100 * in.Pinned.Seconds() / max(span, 1e-9), in.Overall.Tracked > 0 && span > 0
		}},
	{Key: "episodes", Name: "episodes at the cap", Unit: verdict.Number, Better: Lower, Source: "pinned stretches",
		get: func(in *incident.Incident) (float64, bool) { return float64(in.EpisodeCount), in.Overall.Tracked > 0 }},
	{Key: "new_per_second", Name: "new connections admitted/s", Unit: verdict.PerSecond, Better: Higher, Source: "new entries (ctnetlink events, or the TCP opens)",
		get: func(in *incident.Incident) (float64, bool) { return in.Overall.NewEntriesPS, in.Overall.Entries > 0 }},
	{Key: "syn_retransmits_per_second", Name: "SYN retransmits/s", Unit: verdict.PerSecond, Better: Lower, Source: "TcpExtTCPSynRetrans",
		get: func(in *incident.Incident) (float64, bool) { return in.Overall.SynRetransPS, in.Overall.TCP > 0 }},
	{Key: "listen_overflows_per_second", Name: "listen overflows/s", Unit: verdict.PerSecond, Better: Lower, Source: "TcpExtListenOverflows",
		get: func(in *incident.Incident) (float64, bool) { return in.Overall.ListenOverflowsPS, in.Overall.TCP > 0 }},
	{Key: "resets_per_second", Name: "resets sent/s", Unit: verdict.PerSecond, Better: Lower, Source: "Tcp OutRsts",
		get: func(in *incident.Incident) (float64, bool) { return in.Overall.ResetsPS, in.Overall.TCP > 0 }},
	{Key: "cpu_busy_percent", Name: "CPU busy", Unit: verdict.Percent, Source: "/proc/stat, all CPUs",
		get: func(in *incident.Incident) (float64, bool) { return in.Overall.BusyPct, in.Overall.CPU > 0 }},
	{Key: "disk_util_percent", Name: "busiest disk's utilisation", Unit: verdict.Percent, Source: "/proc/diskstats",
		get: func(in *incident.Incident) (float64, bool) { return in.Overall.DiskUtilPct, in.Overall.Disks > 0 }},
}

// heldFigure is the figure of how long kind k held over a pass: judged
// on every frame, so a pass where it never held held it 0 s.
func heldFigure(k verdict.Kind) Figure {
	better := Lower
	if sev, _ := diagnose.KindSeverity(k); sev == verdict.SevOK {
		better = Higher
	}
	return Figure{Key: "held:" + string(k), Name: string(k) + " held", Unit: verdict.Duration, Better: better, Source: "the verdicts of every frame",
		get: func(in *incident.Incident) (float64, bool) { return in.Held[k].Seconds(), in.Samples > 0 }}
}
