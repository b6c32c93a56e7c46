package verdict

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Verdict is one conclusion with the evidence for it: clauses of typed
// facts, rendered per medium.
type Verdict struct {
	Kind     Kind
	Severity Severity
	Clauses  []Clause
	// Table names the table the evidence's numbers are about when it is
	// not the one the chart draws ("netns NAME"); "" for that one. The
	// evidence names it too.
	Table string
	// RulesOut are the knobs the evidence says are not the fix ("not the
	// TIME_WAIT hold", ", not max"): no plan of the same moment proposes
	// them (tuning.Diagnosis.Contradictions).
	RulesOut []string
	// Entries is the filter, in conntrack(8)'s words, of the entries the
	// verdict says to drop ("-p udp --reply-src 10.244.1.7"): the
	// console's E opens on them, and D deletes them. "" for none.
	Entries string
}

// Text is the evidence in plain words, every clause.
func (v Verdict) Text() string { return joined(v.Clauses, Clause.Text) }

// String renders "KIND — evidence".
func (v Verdict) String() string { return string(v.Kind) + " — " + v.Text() }

// joined renders clauses with the words that join them.
func joined(cs []Clause, say func(Clause) string) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			if c.Sep == "" {
				b.WriteString("; ")
			} else {
				b.WriteString(c.Sep)
			}
		}
		b.WriteString(say(c))
	}
	return b.String()
}

// Facts are every fact the evidence prints, in order, each once (two
// clauses that print the cap cite it once); a product's operands are
// facts of their own clause.
func (v Verdict) Facts() []Fact {
	var out []Fact
	for _, c := range v.Clauses {
		for _, f := range c.Facts {
			if !slices.ContainsFunc(out, func(g Fact) bool {
				return g.Name == f.Name && g.Scope == f.Scope && g.Value == f.Value && g.Text == f.Text && g.Unit == f.Unit
			}) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Faults are the ways v's evidence disagrees with itself: a template
// whose fact is missing or never printed, a product that does not
// compute, one name printed with two values in one scope.
func (v Verdict) Faults() []string {
	var out []string
	seen := map[[2]string]Fact{}
	for _, c := range v.Clauses {
		out = append(out, c.Faults()...)
		for _, f := range c.Facts {
			if f.Scope == "" || f.Unit == Name {
				continue
			}
			k := [2]string{f.Name, f.Scope}
			if g, ok := seen[k]; ok && g.Printed() != f.Printed() {
				out = append(out, string(v.Kind)+" prints "+f.Name+" "+g.String()+" and "+f.String()+" of "+f.Scope)
			}
			seen[k] = f
		}
	}
	return out
}

// sentKey is the clause a decoded verdict's words come back as.
const sentKey = "sent"

// said is a verdict as JSON carries it: its kind, severity and table,
// its facts and its words.
type said struct {
	Kind     Kind     `json:"kind"`
	Severity Severity `json:"severity"`
	Table    string   `json:"table,omitempty"`
	Facts    []Fact   `json:"facts"`
	Text     string   `json:"text"`
	RulesOut []string `json:"rules_out,omitempty"`
	Entries  string   `json:"entries,omitempty"`
}

// MarshalJSON writes {kind, severity, table, facts, text}.
func (v Verdict) MarshalJSON() ([]byte, error) {
	facts := v.Facts()
	if facts == nil {
		facts = []Fact{}
	}
	return json.Marshal(said{Kind: v.Kind, Severity: v.Severity, Table: v.Table, Facts: facts, Text: v.Text(), RulesOut: v.RulesOut, Entries: v.Entries})
}

// UnmarshalJSON reads what MarshalJSON writes: the words come back as one
// clause holding the facts, so a reader of a document renders what it
// was sent.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var s said
	if err := DecodeStrict(b, &s); err != nil {
		return err
	}
	*v = Verdict{Kind: s.Kind, Severity: s.Severity, Table: s.Table, RulesOut: s.RulesOut, Entries: s.Entries, Clauses: []Clause{Sent(s.Text, s.Facts)}}
	return nil
}

// DecodeStrict reads one JSON value of ours into v, refusing a field v
// does not have: a document of ours holds only what we write.
func DecodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
