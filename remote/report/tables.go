package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/story"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
)

func (t narrator) episodes() section {
	in := t.in
	sec := section{Title: "Pinned episodes"}
	if len(in.Episodes) == 0 {
		return sec.saying("The table was never pinned at its cap.")
	}
	tb := table{Head: []string{"#", "from", "last pinned", "pinned for", "cap (→ its raises)", "drops"}}
	first := in.EpisodeCount - len(in.Episodes)
	for i, e := range in.Episodes {
		last := t.at(e.Last)
		if e.Open {
			last += " (still pinned at the end)"
		}
		tb.Rows = append(tb.Rows, []string{units.Int(uint64(first + i + 1)), t.at(e.Seen), last, units.Dur(e.Duration()), e.CapsText(), units.Int(e.Drops)})
	}
	if first > 0 {
		tb.Note = fmt.Sprintf("The first %s are not listed.", plural(first, "episode", "episodes"))
	}
	sec.Tables = []table{tb}
	return sec
}

func (t narrator) tuning() section {
	in := t.in
	sec := section{Title: "Tuning"}
	if len(in.Changes) == 0 && len(in.UnseenApplies) == 0 {
		return sec.saying("No knob the samples carry (nf_conntrack_max, hashsize, the TIME_WAIT hold) changed during the recording.")
	}
	if len(in.Changes) > 0 {
		tb := table{Head: []string{"at", "knob", "before", "after", "read back"}}
		cmp := table{Head: []string{"change", "window", "drops/s", "new conns/s", "pinned", "SYN retrans/s", "listen overflows/s"}}
		for _, c := range in.Changes {
			tb.Rows = append(tb.Rows, []string{t.at(c.At), knobName(c.Key), units.Int(number(c.Before)), units.Int(number(c.After)), readBack(c)})
			b, a := c.WindowBefore, c.WindowAfter
			name := knob.Name(c.Key) + " at " + t.at(c.At)
			cmp.Rows = append(cmp.Rows,
				[]string{name, "before, " + units.Dur(b.To.Sub(b.From)), units.Num(b.DropsPS), units.Num(b.NewConnsPS), units.Dur(b.Pinned), units.Num(b.SynRetransPS), units.Num(b.ListenOverflowsPS)},
				[]string{name, "after, " + units.Dur(a.To.Sub(a.From)), units.Num(a.DropsPS), units.Num(a.NewConnsPS), units.Dur(a.Pinned), units.Num(a.SynRetransPS), units.Num(a.ListenOverflowsPS)})
		}
		if in.SkippedChanges > 0 {
			tb.Note = fmt.Sprintf("%s more changes are not listed.", units.Int(uint64(in.SkippedChanges)))
		}
		cmp.Note = fmt.Sprintf("Each window is at most %s, and no longer after a change than the recording goes on.", spanWords(story.CompareSpan))
		sec.Tables = append(sec.Tables, tb, cmp)
	}
	if len(in.UnseenApplies) > 0 {
		tb := table{Head: []string{"knob", "before", "wanted", "after", "verified"},
			Note: "Applied from the console; the samples do not carry these knobs, so this is the apply's own read-back."}
		for _, r := range in.UnseenApplies {
			tb.Rows = append(tb.Rows, []string{r.Key, r.Before, r.Wanted, r.After, yesNo(r.Verified)})
		}
		sec.Tables = append(sec.Tables, tb)
	}
	return sec
}

// deletions lists the deletions of entries the recording kept (the
// console's D); nil when none.
func (t narrator) deletions() *section {
	in := t.in
	if len(in.Deletions) == 0 {
		return nil
	}
	tb := table{Head: []string{"at", "filter", "matched", "deleted", "still matching after", "error"},
		Note: fmt.Sprintf("%s entries deleted in all, over ctnetlink, as tablefull entries --delete does; each is in the journal of the state directory too.", units.Int(in.DeletedEntries))}
	for _, d := range in.Deletions {
		still := units.Int(uint64(max(0, d.StillMatch)))
		if d.StillMatch < 0 {
			still = "not read back"
		}
		tb.Rows = append(tb.Rows, []string{t.at(d.At), d.Filter, units.Int(uint64(max(0, d.Matched))), units.Int(uint64(max(0, d.Deleted))), still, d.Error})
	}
	if in.SkippedDeletions > 0 {
		tb.Note += fmt.Sprintf(" %s more deletions are not listed.", units.Int(uint64(in.SkippedDeletions)))
	}
	return &section{Title: "Entries deleted", Tables: []table{tb}}
}

// readBack says what confirms a change: every later sample, and the
// apply's own read-back when the recording has it.
func readBack(c incident.KnobChange) string {
	s := "changed again later"
	if c.Held {
		s = "every later sample"
	}
	if a := c.Applied; a != nil {
		s += fmt.Sprintf("; the apply asked %s and read back %s (%s)", a.Wanted, a.After, map[bool]string{true: "verified", false: "not verified"}[a.Verified])
	}
	return s
}

// spanWords says a span in words: "a minute", "5 minutes", "90 s".
func spanWords(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "a minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return units.Dur(d)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (t narrator) kernel() section {
	in := t.in
	sec := section{Title: "Kernel log"}
	if in.KernelLines == 0 {
		return sec.saying("No \"table full\" line was recorded (the kernel log may not have been readable: it needs root).")
	}
	tb := table{Head: []string{"lines", "first", "last", "namespace", "text"}}
	for _, l := range in.Kernel {
		ns := "this one"
		if l.NetNSName != "" {
			ns = safe.Text(l.NetNSName, 64)
		}
		tb.Rows = append(tb.Rows, []string{units.Int(uint64(l.Count)), t.at(l.First), t.at(l.Last), ns, model.KernelLine{Text: l.Text}.Said(200)})
	}
	var notes []string
	if in.KernelOther > 0 {
		notes = append(notes, fmt.Sprintf("%s lines of other texts are not listed.", units.Int(uint64(in.KernelOther))))
	}
	if in.Suppressed > 0 {
		notes = append(notes, fmt.Sprintf("The kernel's rate limit suppressed %s more (\"callbacks suppressed\") after the first sample, as the console counts them.", units.Int(in.Suppressed)))
	}
	tb.Note = strings.Join(notes, " ")
	sec.Tables = []table{tb}
	return sec
}

func (t narrator) census() section {
	c := t.in.Census
	sec := section{Title: "Census: what filled the table"}
	p := fmt.Sprintf("The largest census recorded walked %s entries at %s.", units.Int(uint64(c.Total)), t.at(c.At))
	if c.Approximate {
		p += " It is approximate: the table changed during the walk, or there were more addresses than the sketch holds."
	}
	sec.Paras = []string{p}
	for _, tb := range []table{
		countTable("protocol", model.SortedCounts(c.ByProto)),
		countTable("TCP state", model.SortedCounts(c.TCPState)),
		countTable("destination port", c.TopPorts),
		countTable("source address", c.TopSources),
		countTable("destination address", c.TopDests),
	} {
		if len(tb.Rows) > 0 { // a table of UDP entries has no TCP states to list
			sec.Tables = append(sec.Tables, tb)
		}
	}
	if c.Owners != nil {
		sec.Tables = append(sec.Tables, ownersTable(c.Owners))
	}
	return sec
}

// ownersTable lists who held the census's entries; every name is foreign.
func ownersTable(o *model.Owners) table {
	tb := table{Head: []string{"owner (process, unit / container / pod)", "entries", "peer"}}
	if o.Error != "" {
		tb.Note = "Not attributed: " + safe.Text(o.Error, 200) + "."
		return tb
	}
	for _, c := range o.Top {
		tb.Rows = append(tb.Rows, []string{safe.Text(c.Who(), 120), units.Int(uint64(max(0, c.N))), safe.Text(c.PeerText(), 80)})
	}
	tb.Note = o.UnownedText() + "."
	if o.Note != "" {
		tb.Note += " " + safe.Text(o.Note, 200) + "."
	}
	return tb
}

// maxCensusRows bounds each census table.
const maxCensusRows = 10

func countTable(what string, cs []tally.Count) table {
	tb := table{Head: []string{what, "entries"}}
	for i, c := range cs {
		if i == maxCensusRows {
			tb.Note = fmt.Sprintf("%s more are not listed.", units.Int(uint64(len(cs)-maxCensusRows)))
			break
		}
		tb.Rows = append(tb.Rows, []string{safe.Text(c.Key, 64), units.Int(uint64(max(0, c.N)))})
	}
	return tb
}
