package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// systemLines renders CPU use per CPU and disk activity, so an idle server
// is plain next to the drops.
// Below 50 columns it drops the idle column and the disk header.
func systemLines(st *styles.Styles, f diagnose.Frame, rows, width int) []string {
	r := f.Rates
	narrow := width < 50
	cpuLine := func(name string, u model.CPUUse) string {
		busy := u.Busy()
		sty := st.Value
		switch {
		case busy >= diagnose.CPUBoundPct:
			sty = st.Crit
		case busy >= 70:
			sty = st.Warn
		}
		detail := fmt.Sprintf(" usr%3.0f sys%3.0f sirq%3.0f iow%3.0f idle%4.0f", u.User, u.System, u.SoftIRQ, u.IOWait, u.Idle)
		if narrow {
			detail = fmt.Sprintf(" usr%3.0f sys%3.0f sirq%3.0f iow%3.0f", u.User, u.System, u.SoftIRQ, u.IOWait)
		}
		return fmt.Sprintf("%-4s", name) + sty.Render(fmt.Sprintf("%4.0f%%", busy)) + st.Dim.Render(detail)
	}
	if r.Elapsed == 0 { // the first frame: nothing to rate against yet
		return []string{st.Dim.Render(fmt.Sprintf("CPU and disk rates from the next sample on (%d CPUs, %d disks)", f.CPUs, f.Disks))}
	}
	if !r.Known(model.PartCPU) && !r.Known(model.PartDisks) {
		var out []string
		for _, l := range wrapN("CPU and disk "+absentText(f), width, 2) {
			out = append(out, st.Dim.Render(l))
		}
		return out
	}
	lines := []string{cpuLine("all", r.CPUAll)}
	cpus := append([]model.CPUUse(nil), r.CPU...)
	if !r.Known(model.PartCPU) {
		lines, cpus = []string{st.Dim.Render("CPU " + absentText(f))}, nil
	}
	diskRows := min(len(r.Disks), 3)
	if !narrow {
		diskRows++
	}
	room := max(0, rows-1-diskRows)
	if len(cpus) > room {
		sort.SliceStable(cpus, func(i, j int) bool { return cpus[i].Busy() > cpus[j].Busy() })
		cpus = cpus[:room]
		sort.SliceStable(cpus, func(i, j int) bool { return cpus[i].CPU < cpus[j].CPU })
	}
	for _, u := range cpus {
		lines = append(lines, cpuLine(fmt.Sprintf("%d", u.CPU), u))
	}
	if !r.Known(model.PartDisks) {
		return append(lines, st.Dim.Render("disks "+absentText(f)))
	}
	if len(r.Disks) == 0 {
		return append(lines, st.Dim.Render("no disks"))
	}
	if !narrow {
		lines = append(lines, st.Label.Render(fmt.Sprintf("%-8s %8s %8s %6s", "disk", "reads/s", "writes/s", "util")))
	}
	disks := append([]model.DiskRate(nil), r.Disks...)
	sort.SliceStable(disks, func(i, j int) bool { return disks[i].Util > disks[j].Util })
	for _, d := range disks[:min(len(disks), 3)] {
		sty := st.Value
		if d.Util >= diagnose.DiskBoundPct {
			sty = st.Crit
		}
		if narrow {
			lines = append(lines, fmt.Sprintf("%-8s", truncate(foreign(d.Name), 8))+st.Label.Render(" r/s ")+units.Num(d.ReadsPS)+
				st.Label.Render(" w/s ")+units.Num(d.WritesPS)+st.Label.Render(" util ")+sty.Render(fmt.Sprintf("%.0f%%", d.Util)))
			continue
		}
		lines = append(lines, fmt.Sprintf("%-8s %8s %8s ", truncate(foreign(d.Name), 8), units.Num(d.ReadsPS), units.Num(d.WritesPS))+sty.Render(fmt.Sprintf("%5.0f%%", d.Util)))
	}
	return lines
}

// absentText says why parts of f are missing: not scraped (a drill-down
// without node_exporter), or not read here.
func absentText(f diagnose.Frame) string {
	for _, n := range f.Sample.Notes {
		if strings.HasPrefix(n, "not scraped") {
			return "not scraped (no node_exporter for this host)"
		}
	}
	return "not read here"
}

// tcpLines renders the TCP signals of stalling connections, with shorter
// labels below 60 columns.
func tcpLines(st *styles.Styles, f diagnose.Frame, width int) []string {
	r, t := f.Rates, f.Sample.TCP
	hot := func(v float64) string {
		if v > 0 {
			return st.Crit.Render(units.Num(v))
		}
		return st.Value.Render(units.Num(v))
	}
	if !r.Known(model.PartTCP) {
		var out []string
		for _, l := range wrapN("TCP "+absentText(f), width, 2) {
			out = append(out, st.Dim.Render(l))
		}
		return out
	}
	ports := st.Dim.Render(fmt.Sprintf("%d-%d", t.PortRange[0], t.PortRange[1]))
	if t.PortRange[1] == 0 {
		ports = st.Dim.Render("not read")
	}
	if width < 60 {
		return []string{
			pairs(st, "SYN retrans/s", hot(r.SynRetransPS), "listen ovf/drop/s", hot(r.ListenOverflowsPS)+"/"+hot(r.ListenDropsPS)),
			pairs(st, "opens/s", st.Value.Render(units.Num(r.ActiveOpensPS))+st.Dim.Render(" out ")+
				st.Value.Render(units.Num(r.PassiveOpensPS))+st.Dim.Render(" in"), "resets/s", st.Value.Render(units.Num(r.ResetsPS))),
			pairs(st, "TIME_WAIT", st.Value.Render(units.Int(t.TimeWait)), "established", st.Value.Render(units.Int(t.Established))),
		}
	}
	return []string{
		pairs(st, "SYN retrans/s", hot(r.SynRetransPS), "listen overflows/s", hot(r.ListenOverflowsPS), "drops/s", hot(r.ListenDropsPS)),
		pairs(st, "opens/s active", st.Value.Render(units.Num(r.ActiveOpensPS)), "passive", st.Value.Render(units.Num(r.PassiveOpensPS)),
			"resets/s", st.Value.Render(units.Num(r.ResetsPS))),
		pairs(st, "TIME_WAIT", st.Value.Render(units.Int(t.TimeWait)), "established", st.Value.Render(units.Int(t.Established)),
			"ports", ports),
	}
}

// suppression is how many kernel callbacks the rate limit suppressed,
// counted since a time (the first sample: console and report alike).
type suppression struct {
	n     uint64
	since time.Time
}

// kernelPanel remembers the kernel log panel: it changes only when a line
// arrives, and grouping a busy log's lines by second is not free.
type kernelPanel struct {
	key kernelKey
	out []string
}

// kernelKey is what the kernel log panel depends on.
type kernelKey struct {
	n, rows    int
	last       time.Time
	suppressed suppression
	readable   bool
	note       string
}

// lines is kernelLines, recomputed only when its inputs change. The
// caller gets its own copy.
func (p *kernelPanel) lines(st *styles.Styles, f diagnose.Frame, lines []model.KernelLine, suppressed suppression, rows int) []string {
	k := kernelKey{n: len(lines), rows: rows, suppressed: suppressed, readable: f.Sample.Kernel.Readable, note: f.Sample.Kernel.Note}
	if len(lines) > 0 {
		k.last = lines[len(lines)-1].Time
	}
	if p.out == nil || k != p.key {
		p.key, p.out = k, kernelLines(st, f, lines, suppressed, rows)
	}
	return slices.Clone(p.out)
}

// kernelLines renders the kernel's "table full" lines, newest first, with
// lines of the same second and namespace folded into one with a count.
func kernelLines(st *styles.Styles, f diagnose.Frame, lines []model.KernelLine, suppressed suppression, rows int) []string {
	if !f.Sample.Kernel.Readable {
		note := foreign(f.Sample.Kernel.Note)
		if note == "" {
			note = "kernel log not read"
		}
		return []string{st.Dim.Render(note)}
	}
	var out []string
	if len(lines) == 0 {
		out = append(out, st.Dim.Render("no \"table full\" lines"))
	}
	for i := len(lines) - 1; i >= 0 && len(out) < rows; {
		l := lines[i]
		n := 0
		for ; i >= 0 && lines[i].NetNS == l.NetNS && lines[i].Time.Truncate(time.Second).Equal(l.Time.Truncate(time.Second)); i-- {
			n++
		}
		text := "table full"
		if n > 1 {
			text = fmt.Sprintf("%d× table full", n)
		}
		where := ""
		switch {
		case l.NetNSName == model.NetNSGone:
			where = fmt.Sprintf(" netns %d %s", l.NetNS, model.NetNSGone)
		case l.NetNSName != "":
			where = " netns " + foreign(l.NetNSName)
		case l.NetNS != 0:
			where = fmt.Sprintf(" netns %d", l.NetNS)
		}
		out = append(out, st.Dim.Render(l.Time.Local().Format("15:04:05")+" ")+st.Crit.Render(text)+st.Dim.Render(where))
	}
	if suppressed.n > 0 { // a row of its own, never the cut end of another: the number keeps its noun
		line := st.Warn.Render("+"+units.Int(suppressed.n)) + st.Dim.Render(" suppressed since "+suppressed.since.Local().Format("15:04:05"))
		switch {
		case rows <= 1 && len(out) > 0: // one row: the newest line keeps it, the count its noun
			out = []string{out[0] + "  " + st.Warn.Render("+"+units.Int(suppressed.n)) + st.Dim.Render(" suppressed")}
		case len(out) >= rows:
			out = append(out[:rows-1], line)
		default:
			out = append(out, line)
		}
	}
	return out
}
