package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// section is one part of the document, in plain text: the HTML and the
// Markdown writers only format and escape it, so both say the same.
type section struct {
	Title  string
	Paras  []string
	Charts []Chart
	Tables []table
}

// saying is the section with one sentence: what a section with nothing
// to show says instead.
func (s section) saying(sentence string) section {
	s.Paras = []string{sentence}
	return s
}

// table is a table of plain text cells.
type table struct {
	Head []string
	Rows [][]string
	Note string
}

// narrator formats the incident's times and numbers the same way everywhere.
type narrator struct {
	in *incident.Incident
	// days is set when the recording spans more than one date: times
	// then carry their date.
	days bool
}

func (t narrator) at(x time.Time) string {
	if t.days {
		return x.UTC().Format("2006-01-02 15:04:05")
	}
	return x.UTC().Format("15:04:05")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%s %s", units.Int(uint64(n)), many)
}

// sections are the document, in order.
func (r *Report) sections() []section {
	in := r.Incident
	t := narrator{in: in, days: in.From.UTC().Format("20060102") != in.To.UTC().Format("20060102")}
	out := []section{
		{Title: "What happened", Paras: t.whatHappened(r)},
		{Title: "Each verdict, in its words", Paras: t.evidence()},
		{Title: "Charts", Charts: r.Charts},
		t.episodes(),
		t.tuning(),
	}
	if f := t.fix(r.Fix); f != nil {
		out = append(out, *f)
	}
	if d := t.deletions(); d != nil {
		out = append(out, *d)
	}
	out = append(out, t.kernel())
	if in.Census != nil {
		out = append(out, t.census())
	}
	if in.PeakWho != nil {
		out = append(out, t.who())
	}
	out = append(out, t.arithmetic(), t.about(r))
	return out
}

// whatHappened is the story in one paragraph and its verdicts.
func (t narrator) whatHappened(r *Report) []string {
	in := t.in
	h := in.Host
	var s []string
	s = append(s, fmt.Sprintf("%s (kernel %s, %s, %s of RAM) was recorded from %s to %s UTC: %s, %s.",
		safe.Text(h.Name, 64), safe.Text(h.Kernel, 64), plural(h.CPUs, "CPU", "CPUs"), memory(h.MemTotal),
		in.From.UTC().Format("2006-01-02 15:04:05"), t.at(in.To), units.Dur(in.To.Sub(in.From)), plural(in.Samples, "sample", "samples")))
	switch {
	case in.Start.Status != model.TableTracked && len(in.FullNamespaces) > 0:
		s = append(s, "This namespace tracked nothing during the recording; the table that filled was another namespace's, told below.")
	case in.Start.Status != model.TableTracked:
		s = append(s, "Nothing tracked connections in this namespace during the recording: there was no table to fill.")
	case !in.FirstPinned.IsZero():
		climb := ""
		if ttp := in.TimeToPin(); ttp > 0 {
			climb = fmt.Sprintf("The count climbed from %s to the cap in %s; ", units.Int(in.ClimbCount), units.Dur(ttp))
		}
		drops := ", and no packet was counted as dropped"
		if in.Drops > 0 {
			drops = fmt.Sprintf(", and %s packets were dropped, the first at %s", units.Int(in.Drops), t.at(in.FirstDrop))
		}
		pinned := fmt.Sprintf("the table was pinned at nf_conntrack_max = %s from %s", units.Int(in.Start.Max), t.at(in.FirstPinned))
		switch {
		case in.FirstPinned.Equal(in.From): // the climb, if any, was before the recording
			climb, pinned = "", fmt.Sprintf("the table was already pinned at nf_conntrack_max = %s when the recording began", units.Int(in.Start.Max))
		case in.ClimbFrom.Equal(in.From) && arith.Percent(in.ClimbCount, in.Start.Max) > model.EvictPct && in.TimeToPin() <= 2*in.Interval:
			// Near a full table the kernel evicts to make room: a first
			// sample a few entries short of the cap was at it already.
			climb, pinned = "", fmt.Sprintf("the table was already pinned at nf_conntrack_max = %s when the recording began (its first sample read %s: near a full table the kernel evicts to make room, so the count touches the cap rather than resting on it)",
				units.Int(in.Start.Max), units.Int(in.ClimbCount))
		}
		s = append(s, capitalise(fmt.Sprintf("%s%s, %s at the cap in all (%s)%s.",
			climb, pinned, units.Dur(in.Pinned), plural(in.EpisodeCount, "episode", "episodes"), drops)))
	case in.Drops > 0:
		s = append(s, fmt.Sprintf("The table never pinned at its cap, but %s packets were dropped, the first at %s.", units.Int(in.Drops), t.at(in.FirstDrop)))
	default:
		s = append(s, fmt.Sprintf("The table never reached its cap (peak %s of %s) and dropped nothing.", units.Int(in.PeakCount), units.Int(in.End.Max)))
	}
	s = append(s, t.whilePinned()...)
	for i, c := range in.Changes {
		if i == 3 {
			s = append(s, fmt.Sprintf("%s more changes are listed under Tuning.", units.Int(uint64(len(in.Changes)-3))))
			break
		}
		// changes at one moment share one window: its before and after once
		last := i+1 == len(in.Changes) || i == 2 || !in.Changes[i+1].At.Equal(c.At)
		s = append(s, t.changeSentence(c, last))
	}
	para := strings.Join(s, " ")
	out := []string{para}
	if sets := in.HeldSets(); len(sets) > 0 {
		var held []string
		for _, hs := range sets { // verdicts that held at once are said together: their times add up to the recording
			var names []string
			for _, k := range hs.Kinds {
				names = append(names, string(k))
			}
			held = append(held, fmt.Sprintf("%s for %s", strings.Join(names, " with "), units.Dur(hs.For)))
		}
		if in.OtherHeld > 0 {
			held = append(held, fmt.Sprintf("other verdicts for %s", units.Dur(in.OtherHeld)))
		}
		out = append(out, "Verdicts: "+strings.Join(held, ", ")+".")
	}
	if in.Gaps > 0 {
		out = append(out, fmt.Sprintf("The stream was down %s: the charts leave a gap there.", plural(in.Gaps, "time", "times")))
	}
	for _, n := range in.FullNamespaces {
		out = append(out, fmt.Sprintf("The table of %s, another network namespace of this host, was full from %s to %s (peak %s entries, %s drops): its new connections were dropped whatever this namespace's own table said.",
			n.Label, t.at(n.First), t.at(n.Last), units.Int(n.PeakCount), units.Int(n.Drops)))
	}
	if in.FullNamespacesOther > 0 {
		out = append(out, fmt.Sprintf("%s more namespaces were full.", units.Int(uint64(in.FullNamespacesOther))))
	}
	if in.Absent != 0 {
		out = append(out, "Not in the recording for all of it: "+in.Absent.String()+" (not read when it was recorded, or not scraped); what this report says of them covers only the samples that had them, and no verdict was judged from them.")
	}
	return out
}

// evidence is each verdict that held, most severe first, with how long
// and what it said the last time it held: its evidence and its fix, as
// the console said them.
func (t narrator) evidence() []string {
	in := t.in
	var out []string
	for _, k := range in.HeldKinds() {
		if k == verdict.OK {
			continue
		}
		v := in.Last[k]
		out = append(out, fmt.Sprintf("%s, held %s: %s.%s", k, units.Dur(in.Held[k]), safe.Text(v.Text(), verdictText), readFrom(v.Facts())))
	}
	if len(out) == 0 {
		return []string{"No verdict but OK held: nothing in the recording called for one."}
	}
	return out
}

// verdictText bounds a verdict's words in the report: its names are each
// bounded where its facts were made and its templates are ours, so this
// only guards; a report never cuts a sentence.
const verdictText = 8 * safe.MaxText

// readFrom says where a verdict's numbers were read: " Read from:
// count 4,096 (nf_conntrack_count; this table), …"; "" when it cites
// none.
func readFrom(facts []verdict.Fact) string {
	if len(facts) == 0 {
		return ""
	}
	var said []string
	seen := map[string]bool{}
	for _, f := range facts {
		if c := f.Cited(); f.Unit != verdict.Name && !seen[c] {
			seen[c] = true
			said = append(said, c)
		}
	}
	if len(said) == 0 {
		return ""
	}
	return " Read from: " + strings.Join(said, "; ") + "."
}

// whilePinned is what the server and its clients did while the table was
// pinned: idle or working, and the SYN retransmits (none if it never was).
func (t narrator) whilePinned() []string {
	in := t.in
	if in.Pinned == 0 {
		return nil
	}
	var s []string
	l := in.WhilePinned
	cpu, disk := fmt.Sprintf("CPU %.0f %% busy", l.BusyPct), fmt.Sprintf("disk %s IO/s and %.0f %% utilised", units.Num(l.DiskIOPS), l.DiskUtilPct)
	if l.Absent.Has(model.PartCPU) {
		cpu = "CPU not recorded throughout"
	}
	if l.Absent.Has(model.PartDisks) {
		disk = "disk not recorded throughout"
	}
	load := cpu + ", " + disk
	switch {
	case l.Idle():
		s = append(s, "Meanwhile the server was idle ("+load+"): "+t.droppedWhat()+" never reached it.")
	case l.Absent.Has(model.PartCPU) || l.Absent.Has(model.PartDisks):
		s = append(s, "Whether the server was idle meanwhile is not known ("+load+").")
	default:
		s = append(s, "Meanwhile the server was working ("+load+").")
	}
	if l.SynRetransPS > 0 && !l.Absent.Has(model.PartTCP) {
		s = append(s, fmt.Sprintf("Clients retransmitted %s SYNs a second while the table was pinned: each one waiting out the 1, 2, 4, 8 s backoff.", units.Num(l.SynRetransPS)))
	}
	return s
}

// changeSentence says a knob change and, with window, how the table did
// before and after its moment (said once for the changes of one moment).
func (t narrator) changeSentence(c incident.KnobChange, window bool) string {
	verb := "raised"
	if number(c.After) < number(c.Before) {
		verb = "lowered"
	}
	s := fmt.Sprintf("At %s %s was %s from %s to %s", t.at(c.At), knobName(c.Key), verb, units.Int(number(c.Before)), units.Int(number(c.After)))
	if c.Held {
		s += " and every later sample read it back"
	}
	s += "."
	b, a := c.WindowBefore, c.WindowAfter
	if span := a.To.Sub(a.From); span > 0 && window {
		s += fmt.Sprintf(" In the %s before, the table dropped %s packets/s at %s new connections/s, pinned %s; in the %s after, %s/s at %s/s, pinned %s.",
			units.Dur(b.To.Sub(b.From)), units.Num(b.DropsPS), units.Num(b.NewConnsPS), units.Dur(b.Pinned),
			units.Dur(span), units.Num(a.DropsPS), units.Num(a.NewConnsPS), units.Dur(a.Pinned))
	}
	return s
}

// droppedWhat names what the full table dropped by what filled it: SYNs
// for TCP, requests for UDP, packets when it is not known.
func (t narrator) droppedWhat() string {
	switch p, ok := t.in.Filler(); {
	case ok && p == model.ProtoTCP:
		return "the dropped SYNs"
	case ok && p == model.ProtoUDP:
		return "the dropped requests (UDP)"
	}
	return "the dropped packets"
}

// knobName is how the story names a knob: its name (knob.Name),
// with what hashsize counts.
func knobName(key string) string {
	if key == knob.Hashsize {
		return knob.Name(key) + " (the bucket count)"
	}
	return knob.Name(key)
}

// number is a knob value seen in a sample (always one number).
func number(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

func capitalise(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// memory is the host's RAM, "unknown" when the stream did not say.
func memory(b uint64) string {
	if b == 0 {
		return "unknown"
	}
	return units.Bytes(b)
}
