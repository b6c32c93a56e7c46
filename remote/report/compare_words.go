package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model/compare"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/units"
)

// comparePage is a comparison as lines and a table, every foreign string
// sanitised, before a medium escapes and lays it out.
type comparePage struct {
	lead  []string // what differs across hosts and kernels: said first
	sides []string
	knobs []string
	said  []string // incidence, classes, what moved
	head  []string
	rows  [][]string
}

// pageOf words c.
func pageOf(c compare.Comparison) comparePage {
	var p comparePage
	for _, d := range c.Across {
		p.lead = append(p.lead, fmt.Sprintf("A and B differ in %s: A on %s, B on %s. The figures below compare different %ss, not one change alone.",
			d.What, list(d.A), list(d.B), d.What))
	}
	p.sides = []string{sideLine("A", c.A), sideLine("B", c.B)}
	var same []string
	for _, k := range c.Knobs {
		if !k.Changed() {
			same = append(same, fmt.Sprintf("%s %s", k.Name, nums(k.ABegan)))
			continue
		}
		p.knobs = append(p.knobs, fmt.Sprintf("%s: A began %s, ended %s; B began %s, ended %s", k.Name, nums(k.ABegan), nums(k.AEnded), nums(k.BBegan), nums(k.BEnded)))
	}
	if len(same) > 0 {
		p.knobs = append(p.knobs, "the same throughout: "+strings.Join(same, ", "))
	}
	p.said = append(p.said, incidence(c))
	if cl := classes(c); cl != "" {
		p.said = append(p.said, cl)
	}
	p.said = append(p.said, movedLine(c))
	p.head = []string{"figure", "A", "B", "change", "against the spread"}
	for _, r := range c.Rows {
		p.rows = append(p.rows, []string{r.Figure.Name, summary(r, r.A, "A"), summary(r, r.B, "B"), change(r), string(r.Judgement)})
	}
	return p
}

// sideLine says who a side's passes are and how long.
func sideLine(name string, s compare.Side) string {
	if len(s.Passes) == 0 {
		return name + ": no pass"
	}
	var srcs, hosts []string
	var secs float64
	for _, p := range s.Passes {
		srcs = append(srcs, safe.Text(p.Source, 120))
		if h := safe.Text(p.Host.Name, 80) + " (kernel " + safe.Text(p.Host.Kernel, 80) + ")"; !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
		secs += p.Span().Seconds()
	}
	what, long := "1 pass", "long"
	if len(srcs) > 1 {
		what, long = units.Int(uint64(len(srcs)))+" passes", "each on average"
	}
	if len(srcs) > 3 {
		srcs = []string{srcs[0], "…", srcs[len(srcs)-1]}
	}
	return fmt.Sprintf("%s: %s, %s, on %s, %s %s", name, what, strings.Join(srcs, ", "), strings.Join(hosts, ", "),
		units.Dur(time.Duration(secs/float64(len(s.Passes))*float64(time.Second))), long)
}

// incidence is the passes that dropped on each side, per pass.
func incidence(c compare.Comparison) string {
	side := func(s compare.Side) string {
		if s.DropsRead == 0 {
			return "drops not read"
		}
		return fmt.Sprintf("%d of %s", s.Dropped, plural(s.DropsRead, "pass", "passes"))
	}
	return fmt.Sprintf("dropped in (incidence per pass): A %s, B %s", side(c.A), side(c.B))
}

// classes says what filled the table on each side.
func classes(c compare.Comparison) string {
	side := func(s compare.Side) string {
		if len(s.Classes) == 0 {
			return "not counted"
		}
		var out []string
		for _, cp := range s.Classes {
			out = append(out, fmt.Sprintf("%s (%d of %s)", safe.Text(cp.Class, 40), cp.Passes, plural(len(s.Passes), "pass", "passes")))
		}
		return strings.Join(out, ", ")
	}
	if len(c.A.Classes) == 0 && len(c.B.Classes) == 0 {
		return ""
	}
	return "what filled the table most: A " + side(c.A) + "; B " + side(c.B)
}

// movedLine is the comparison's conclusion, drawn from its rows.
func movedLine(c compare.Comparison) string {
	if c.Same {
		return "nothing moved: every figure read the same on both sides"
	}
	var moved []string
	for _, r := range c.MovedRows() {
		moved = append(moved, r.Figure.Name+" "+change(r))
	}
	switch {
	case !c.SpreadKnown:
		return "the spread between passes is unknown (one pass a side): no change can be told from noise; give --passes N with N recordings a side"
	case len(moved) == 0:
		return "nothing moved beyond the spread between passes"
	}
	return "moved beyond the spread between passes: " + strings.Join(moved, "; ")
}

// summary is a side's median of r, with its range over several passes.
func summary(r compare.Row, s compare.Summary, name string) string {
	if s.Passes == 0 {
		return "not read"
	}
	out := r.Fact(s.Median, name).String()
	if s.Passes > 1 && s.Min != s.Max {
		out += " (" + r.Fact(s.Min, name).String() + "–" + r.Fact(s.Max, name).String() + ")"
	}
	if s.Unread > 0 {
		out += fmt.Sprintf(", %d unread", s.Unread)
	}
	return out
}

// change says how r's median moved from A to B.
func change(r compare.Row) string {
	a, b := r.Fact(r.A.Median, "A"), r.Fact(r.B.Median, "B")
	switch {
	case r.Judgement == compare.Missing:
		return "–"
	case a.String() == b.String():
		return "no change"
	case b.Printed() == 0:
		return "fell to 0"
	case a.Printed() == 0:
		return "rose from 0"
	}
	verb := "rose"
	if r.Change < 0 {
		verb = "fell"
	}
	f, _ := r.FactorFact()
	return verb + " ×" + f.String()
}

func list(vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = safe.Text(v, 80)
	}
	return strings.Join(out, " and ")
}

func nums(vs []uint64) string {
	if len(vs) == 0 {
		return "unread"
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = units.Int(v)
	}
	return strings.Join(out, " or ")
}
