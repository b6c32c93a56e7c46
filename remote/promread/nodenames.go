package promread

import (
	"sort"
	"strings"

	"github.com/tablefull/tablefull/model"
)

// nodeTCP are the node_exporter series a drill-down reads TCP from, each
// with the field of model.TCP it sets: the one list the query and the
// reading both use.
var nodeTCP = map[string]func(t *model.TCP, v uint64){
	"node_netstat_TcpExt_ListenOverflows": func(t *model.TCP, v uint64) { t.ListenOverflows = v },
	"node_netstat_TcpExt_ListenDrops":     func(t *model.TCP, v uint64) { t.ListenDrops = v },
	"node_netstat_TcpExt_TCPSynRetrans":   func(t *model.TCP, v uint64) { t.SynRetrans = v },
	"node_netstat_Tcp_ActiveOpens":        func(t *model.TCP, v uint64) { t.ActiveOpens = v },
	"node_netstat_Tcp_PassiveOpens":       func(t *model.TCP, v uint64) { t.PassiveOpens = v },
	"node_netstat_Tcp_OutRsts":            func(t *model.TCP, v uint64) { t.OutRsts = v },
	"node_netstat_Tcp_CurrEstab":          func(t *model.TCP, v uint64) { t.Established = v },
	"node_sockstat_TCP_tw":                func(t *model.TCP, v uint64) { t.TimeWait = v },
}

// nodeDisk are the node_exporter disk series, each with what it sets.
var nodeDisk = map[string]func(d *model.DiskIO, v float64){
	"node_disk_reads_completed_total":  func(d *model.DiskIO, v float64) { d.Reads = uint64(v) },
	"node_disk_writes_completed_total": func(d *model.DiskIO, v float64) { d.Writes = uint64(v) },
	"node_disk_io_time_seconds_total":  func(d *model.DiskIO, v float64) { d.BusyMillis = uint64(v * 1000) },
}

// namesOf is the names of m as a PromQL regular expression, sorted so
// that a query is the same text every time.
func namesOf[F any](m map[string]F) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

// nodeCPU is node_exporter's CPU time series.
const nodeCPU = "node_cpu_seconds_total"
