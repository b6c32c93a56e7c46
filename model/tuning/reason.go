package tuning

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// reason builds a change's words a part at a time, each part's words
// from the table of words and its facts.
type reason []verdict.Part

// say adds the part key, its {name}s facts.
func (r *reason) say(key string, facts ...verdict.Fact) {
	*r = append(*r, verdict.Part{Key: key, Facts: facts})
}

// said reports whether r says the part key.
func (r reason) said(key string) bool {
	for _, p := range r {
		if p.Key == key {
			return true
		}
	}
	return false
}

// clause is the reason as the change carries it.
func (r reason) clause(key string) verdict.Clause {
	return words.Compose(verdict.Numbers, key, r...)
}

// otherNote says the other namespaces' entries a size counts with its
// own: " and the other namespaces' 9,000"; nothing with none.
func otherNote(in Inputs, r *reason) {
	if in.OtherEntries == 0 {
		return
	}
	r.say("plan.others", verdict.N("others", in.OtherEntries, verdict.Entries).From("the other namespaces' nf_conntrack_count", "every other namespace"))
}

// rateFrom says where the plan's rate was measured when it is not the
// rate the header and the verdict show now.
func rateFrom(in Inputs, r *reason) {
	if in.RateFrom == "" || in.PeakRate <= 0 {
		return
	}
	r.say("plan.rate-from", verdict.N("peak rate", in.PeakRate, verdict.PerSecond).From("the peak rate of new entries", "this table, the frames measured"),
		verdict.W("measured", in.RateFrom))
}

// standingNote names what holds a table that standing connections fill:
// a timeout frees nothing live, so none is proposed, but the entries idle
// over an hour and those in CLOSE_WAIT are named with the timeout that
// holds them. Nothing when standing connections do not fill it.
func standingNote(in Inputs, r *reason) {
	top, ok := in.Fill.Top()
	if !ok || !top.Class.Standing() {
		return
	}
	r.say("plan.standing")
	c := in.Census
	if c == nil {
		return
	}
	walk := "this table, the census's walk"
	if c.IdleCounted && c.IdleOpen > 0 {
		r.say("plan.standing.idle",
			verdict.N("idle", c.IdleOpen, verdict.Entries).From("the census: established entries idle over an hour", walk),
			verdict.N("established", top.Hold, verdict.Seconds).From("nf_conntrack_tcp_timeout_established", "the host"))
	}
	if cw := c.TCPState[model.TCPStates[model.TCPCloseWait]]; cw > 0 {
		r.say("plan.standing.close-wait",
			verdict.N("close wait", cw, verdict.Entries).From("the census's TCP states", walk))
	}
}
