package tuning

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestDiagnosisContradictions: each way a moment's verdicts and plan can
// disagree is caught, and a diagnosis that agrees with itself has none.
func TestDiagnosisContradictions(t *testing.T) {
	full := verdict.Verdict{Kind: verdict.TableFull, Severity: verdict.SevCrit, Clauses: []verdict.Clause{verdict.Prose("test", "400 of 400 entries tcp-open: nothing to evict … not the TIME_WAIT hold")},
		RulesOut: []string{knob.TimeWait}}
	listen := verdict.Verdict{Kind: verdict.ListenOverflow, Severity: verdict.SevCrit, Clauses: []verdict.Clause{verdict.Prose("test", "the listen queue of :80 overflowed")}}
	ok := verdict.Verdict{Kind: verdict.OK, Clauses: []verdict.Clause{verdict.Prose("test", "count 319 of max 400 (80 %)")}}
	ns := verdict.Verdict{Kind: verdict.TableFull, Severity: verdict.SevCrit, Table: "netns full",
		Clauses: []verdict.Clause{sayTest(verdict.Lead, "in {netns} (1 process) — 300 / 300 entries", verdict.W("netns", "netns full"))}}
	// A product forged past verdict.Times: its operands do not make it.
	rate, hold := verdict.N("rate", 80, verdict.PerSecond), verdict.N("hold", 120, verdict.Seconds)
	zeroRate := verdict.N("rate", 0, verdict.PerSecond)
	forged := verdict.Fact{Name: "needs", Value: 710, Unit: verdict.Entries, Of: []verdict.Fact{rate, hold}, Op: "×"}
	maxUp := Change{Key: knob.Max, Current: "400", Proposed: "1024", Why: verdict.Prose("test", "peak working set 400 (the peak count) × 1.5, next power of two")}
	twDown := Change{Key: knob.TimeWait, Current: "120", Proposed: "30", Why: verdict.Prose("test", "80/s held 120 s each need 9,600 entries; at 30 s, 2,400")}
	for _, c := range []struct {
		name string
		d    Diagnosis
		want string // "" none
	}{
		{"agrees", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{full}}, Plan: Plan{Changes: []Change{maxUp}}}, ""},
		{"a knob ruled out, proposed", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{full}}, Plan: Plan{Changes: []Change{maxUp, twDown}}}, "rules net.netfilter.nf_conntrack_tcp_timeout_time_wait out"},
		{"ruled out, proposed from the host", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{full}}, Plan: Plan{FromHost: []Change{twDown}}}, "rules"},
		{"a knob the kind may not change", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{listen}}, Plan: Plan{Changes: []Change{maxUp}}}, "none of the moment's verdicts (LISTEN OVERFLOW)"},
		{"headroom on a quiet moment", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{ok}}, Plan: Plan{Changes: []Change{maxUp}}}, ""},
		{"the way back down", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{listen}}, Plan: Plan{Changes: []Change{maxUp}}, Loop: LoopStatus{State: LoopSettle}}, ""},
		{"another table, named", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{ns}}}, ""},
		{"another table, unnamed", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{{Kind: verdict.TableFull, Severity: verdict.SevCrit, Clauses: []verdict.Clause{verdict.Prose("test", "300 / 300 entries")}, Table: "netns full"}}}}, "is about netns full and does not say so"},
		{"a product that does not compute", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{{Kind: verdict.TableFull, Severity: verdict.SevCrit, Clauses: []verdict.Clause{sayTest(verdict.Lead, "fills tcp-closed {needs} ({rate}/s × {hold} = {needs})", forged, rate, hold)}}}}}, "needs prints 710, and 80 × 120 s is 9,600"},
		{"a plan's product of a rate not counted", Diagnosis{Now: diagnose.Frame{Verdicts: []verdict.Verdict{full}}, Plan: Plan{Changes: []Change{{Key: knob.Max, Current: "400", Proposed: "512", Why: sayTest(verdict.Numbers, "peak working set {ws} ({rate}/s × {hold} + 0 open)", zeroRate, hold, verdict.Times("ws", verdict.Entries, zeroRate, hold))}}}}, "a rate not counted"},
	} {
		got := strings.Join(c.d.Contradictions(), " | ")
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s: %s", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: %q, want one saying %q", c.name, got, c.want)
		}
	}
}

// sayTest is a clause of the words t, for a test's own verdicts.
func sayTest(w verdict.Weight, t string, facts ...verdict.Fact) verdict.Clause {
	return verdict.Words{"test": t}.Say(w, "test", facts...)
}
