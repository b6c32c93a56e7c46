package verdict

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestFactsPrintByUnit: each unit prints one way, and a lower bound says
// so.
func TestFactsPrintByUnit(t *testing.T) {
	for _, c := range []struct {
		f    Fact
		want string
	}{
		{N("count", 4096, Entries), "4,096"},
		{N("rate", 80.4, PerSecond), "80"},
		{N("rate", 3.33, PerSecond), "3.3"},
		{N("hold", 120, Seconds), "120 s"},
		{D("pinned", 125*time.Second), "2 m 5 s"},
		{D("life", 8*time.Millisecond), "8 ms"},
		{N("full", 93.7, Percent), "94 %"},
		{N("memory", 2<<20, Bytes), "2 MiB"},
		{N("depth", 1, Ratio), "1.0"},
		{N("demand", 80, PerSecond).Lower(), "≥ 80"},
		{W("class", "tcp-closed"), "tcp-closed"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%s %v %s: %q, want %q", c.f.Name, c.f.Value, c.f.Unit, got, c.want)
		}
	}
}

// TestProductsComputeAsPrinted: a product is of its operands as printed,
// so what is read computes; one forged past Times is a fault.
func TestProductsComputeAsPrinted(t *testing.T) {
	rate, hold := N("rate", 80.4, PerSecond), N("hold", 120, Seconds)
	c := sayTest(Numbers, "{rate}/s × {hold} = {needs}", rate, hold, Times("needs", Entries, rate, hold))
	if got := c.Text(); got != "80/s × 120 s = 9,600" {
		t.Errorf("product: %q", got)
	}
	if f := c.Faults(); len(f) > 0 {
		t.Errorf("a product of Times: %v", f)
	}
	forged := Fact{Name: "needs", Value: 9648, Unit: Entries, Of: []Fact{rate, hold}, Op: "×"}
	if f := sayTest(Numbers, "{rate}/s × {hold} = {needs}", rate, hold, forged).Faults(); len(f) != 1 || !strings.Contains(f[0], "9,600") {
		t.Errorf("a forged product: %v", f)
	}
	if f := Times("needs", Entries, N("rate", 0, PerSecond), hold).faults(); len(f) != 1 || !strings.Contains(f[0], "a rate not counted") {
		t.Errorf("a product of 0/s: %v", f)
	}
	ceiling := Over("ceiling", PerSecond, N("max", 4096, Entries), hold)
	if ceiling.String() != "34" || len(sayTest(Numbers, "{ceiling}", ceiling).Faults()) > 0 {
		t.Errorf("quotient %s: %v", ceiling, sayTest(Numbers, "{ceiling}", ceiling).Faults())
	}
}

// TestClauseFaults: a {name} with no fact and a fact never printed are
// faults; one name printed with two values in one scope is the verdict's.
func TestClauseFaults(t *testing.T) {
	if f := sayTest(Lead, "count {count} of {max}", N("count", 1, Entries)).Faults(); len(f) != 1 || !strings.Contains(f[0], "{max} has no fact") {
		t.Errorf("missing: %v", f)
	}
	if f := sayTest(Lead, "count", N("count", 1, Entries)).Faults(); len(f) != 1 || !strings.Contains(f[0], "never printed") {
		t.Errorf("unused: %v", f)
	}
	v := Verdict{Kind: TableFull, Clauses: []Clause{
		sayTest(Lead, "max {max}", N("max", 4096, Entries).From("nf_conntrack_max", "this table")),
		sayTest(Numbers, "of max {max}", N("max", 8192, Entries).From("nf_conntrack_max", "this table")),
	}}
	if f := v.Faults(); len(f) != 1 || !strings.Contains(f[0], "max 4,096 and 8,192") {
		t.Errorf("two values of one fact: %v", f)
	}
}

// whoVerdict is a full table whose explanation is long and whose owner
// comes last, as a namespace's clients filled one.
func whoVerdict() Verdict {
	return Verdict{Kind: TableFull, Clauses: []Clause{
		sayTest(Lead, "count pinned at max {max} for {pinned}", N("max", 300, Entries), D("pinned", 40*time.Second)),
		sayTest(Numbers, "{drops} drops", N("drops", 1200, Packets)).After(", "),
		sayTest(Explain, "early_drop stays 0 though {closing} of the census's {census} entries are closing TCP: the garbage collector evicts those near the cap without counting them, only down to {to} (max ÷ 100 × 95) and at its next run, and their hold is what frees the table",
			N("closing", 280, Entries), N("census", 300, Entries), N("to", 285, Entries)),
		sayTest(Who, "{share} of new connections from {owner} to {dest}", N("share", 91, Percent), W("owner", "churn-app (pid 4242, churn-app.scope)"), W("dest", "127.0.0.1:18320")),
	}}
}

// TestLinesKeepWhoBeforeTheExplanation: where the lines do not hold the
// whole evidence, the explanation goes first and who stays; " …" says
// something was left out. With room, every clause is there.
func TestLinesKeepWhoBeforeTheExplanation(t *testing.T) {
	v := whoVerdict()
	got := strings.Join(v.Lines(140, 2), "\n")
	if !strings.Contains(got, "churn-app") || strings.Contains(got, "early_drop") || !strings.HasSuffix(got, " …") {
		t.Errorf("at 140×2:\n%s", got)
	}
	if all := strings.Join(v.Lines(140, 6), " "); !strings.Contains(all, "early_drop") || !strings.Contains(all, "churn-app") || strings.Contains(all, "…") {
		t.Errorf("at 140×6:\n%s", all)
	}
	one := v.Lines(30, 1)
	if len(one) != 1 || !strings.HasPrefix(one[0], "TABLE FULL — count pinned") || !strings.HasSuffix(one[0], " …") {
		t.Errorf("a lead cut to one line: %q", one)
	}
}

// TestLinesNeverSplitANumberFromItsUnit: at every width, each fact's
// printed value and the word after it are on one line.
func TestLinesNeverSplitANumberFromItsUnit(t *testing.T) {
	v := whoVerdict()
	for width := 20; width <= 140; width++ {
		lines := v.Lines(width, 40)
		for _, l := range lines {
			if n := len([]rune(l)); n > width {
				t.Fatalf("width %d: a line of %d: %q", width, n, l)
			}
		}
		text := strings.Join(lines, "\n")
		for _, pair := range []string{"300 of", "40 s", "1,200 drops", "280 of", "91 %", "285 (max"} {
			if !strings.Contains(text, pair) && strings.Contains(strings.ReplaceAll(text, "\n", " "), pair) {
				t.Errorf("width %d: %q split across lines:\n%s", width, pair, text)
			}
		}
	}
}

// TestVerdictJSON: a verdict is {kind, severity, table, facts, text} with
// snake_case keys, and reads back to the same words and facts.
func TestVerdictJSON(t *testing.T) {
	v := whoVerdict()
	v.Severity, v.Table = SevCrit, "netns web-1"
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kind", "severity", "table", "facts", "text"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Text() != v.Text() || len(back.Facts()) != len(v.Facts()) || back.Severity != SevCrit || back.Kind != TableFull {
		t.Errorf("round trip: %q %d facts, want %q %d", back.Text(), len(back.Facts()), v.Text(), len(v.Facts()))
	}
}

// TestSumsAddAsPrinted: a sum is of its terms as printed; one forged is
// a fault.
func TestSumsAddAsPrinted(t *testing.T) {
	a := Times("a", Entries, N("rate", 122.4, PerSecond), N("hold", 30, Seconds))
	s := Sum("ws", Entries, a, N("open", 1, Entries))
	if s.String() != "3,661" || len(s.faults()) > 0 {
		t.Errorf("sum %s: %v", s, s.faults())
	}
	s.Value = 13560
	if len(s.faults()) != 1 {
		t.Errorf("a forged sum passes")
	}
}

// TestVerdictJSONRefusesUnknownFields: a verdict read back holds only
// what one is written with.
func TestVerdictJSONRefusesUnknownFields(t *testing.T) {
	var v Verdict
	if err := json.Unmarshal([]byte(`{"kind":"OK","severity":"ok","facts":[],"text":"x","Evidence":"y"}`), &v); err == nil {
		t.Errorf("an unknown field read")
	}
	if err := json.Unmarshal([]byte(`{"kind":"OK","severity":"ok","facts":[{"name":"count","value":1,"unit":"entries","bogus":1}],"text":"x"}`), &v); err == nil {
		t.Errorf("an unknown field of a fact read")
	}
}

// TestFactsCitedOnce: a fact two clauses print is cited once.
func TestFactsCitedOnce(t *testing.T) {
	max := N("max", 4096, Entries).From("nf_conntrack_max", "this table")
	v := Verdict{Kind: NearCap, Clauses: []Clause{sayTest(Lead, "of max {max}", max), sayTest(Numbers, "({max} ÷ 120 s)", max)}}
	if got := v.Facts(); len(got) != 1 {
		t.Errorf("facts %v, want max once", got)
	}
}

// sayTest is a clause of the words t, for a test's own verdicts.
func sayTest(w Weight, t string, facts ...Fact) Clause {
	return Words{"test": t}.Say(w, "test", facts...)
}
