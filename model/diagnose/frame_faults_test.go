package diagnose

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// timeline turns fuzz bytes into samples a second apart: each byte pair
// is the new entries wanted (in tens) and the classes' hold, the cap and
// what the table admits following from them as the kernel would — a
// table that fills, pins, drops, is raised, and drains.
func timeline(b []byte) []model.Sample {
	var out []model.Sample
	var count, newTCP, newUDP, ended, drops, synRetrans uint64
	capV := uint64(512) << (len(b) % 4)
	t0 := time.Unix(1_700_000_000, 0)
	for i := 0; i+1 < len(b) && i < 240; i += 2 {
		want, hold := uint64(b[i])*10, uint64(b[i+1]%120)+1
		leave := count / hold
		if b[i+1] == 255 { // an operator raised the cap
			capV *= 2
		}
		count -= leave
		in := min(want, capV-count)
		count += in
		ended += leave
		drops += want - in
		synRetrans += (want - in) / 2
		if b[i]%2 == 0 {
			newTCP += in
		} else {
			newUDP += in
		}
		e := model.Entries{Source: model.EntriesEvents, Epoch: 1}
		e.New[model.ProtoTCP], e.New[model.ProtoUDP] = newTCP, newUDP
		e.Ended[model.ClassTCPDone] = ended
		var holds model.ClassCounts
		for c := range holds {
			holds[c] = hold
		}
		out = append(out, model.Sample{Time: t0.Add(time.Duration(i/2+1) * time.Second), Interval: time.Second, Entries: e,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: count, Peak: count, Max: capV, Buckets: capV, TimeWaitHold: hold, Holds: holds},
			CTStats:   model.CTStats{Reported: []model.Counter{model.Drop}, PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops})}}},
			TCP:       model.TCP{SynRetrans: synRetrans, ActiveOpens: newTCP}})
	}
	return out
}

// FuzzFramesAgreeWithTheirFacts: over generated timelines, every frame's
// verdicts agree with the frame (Frame.Faults) and render at 40 to 200
// columns in lines no wider than asked.
func FuzzFramesAgreeWithTheirFacts(f *testing.F) {
	f.Add([]byte{8, 119, 8, 119, 8, 119, 8, 119, 8, 119, 8, 119, 8, 119, 8, 119})
	f.Add([]byte{200, 29, 200, 29, 200, 29, 255, 255, 1, 29, 1, 29, 0, 0})
	f.Add([]byte{3, 10, 250, 5, 250, 5, 250, 5, 0, 1, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		a := NewAnalyzer(64)
		for _, s := range timeline(b) {
			fr := a.Add(s)
			if faults := fr.Faults(); len(faults) > 0 {
				t.Fatalf("%s: %s\n%s", s.Time.Format("15:04:05"), strings.Join(faults, "; "), fr.Verdict())
			}
			for _, v := range fr.Verdicts {
				for _, w := range []int{40, 80, 200} {
					for _, l := range v.Lines(w, 3) {
						if n := utf8.RuneCountInString(l); n > w {
							t.Fatalf("%s at %d: a line of %d: %q", v.Kind, w, n, l)
						}
					}
				}
			}
		}
	})
}

// TestFrameFaults: each way a frame's verdicts can disagree with it is
// caught on their facts.
func TestFrameFaults(t *testing.T) {
	c := model.Conntrack{Status: model.TableTracked, Count: 3839, Peak: 3839, Max: 4096}
	full := verdict.Verdict{Kind: verdict.TableFull, Clauses: []verdict.Clause{sayTest(verdict.Lead, "count {count} of max {max}", model.FactCount(model.Conntrack{Count: 4000}), model.FactMax(c))}}
	ns := verdict.Verdict{Kind: verdict.TableFull, Table: "netns web-1", Clauses: []verdict.Clause{(model.FullNS{NS: model.NetNS{Name: "web-1", Kind: "netns", Count: 3839, Peak: 3839}}).Clause(4096)}}
	empty := verdict.Verdict{Kind: verdict.OK, Clauses: []verdict.Clause{sayTest(verdict.Lead, "by {owner}", verdict.W("owner", ""))}}
	for _, tc := range []struct {
		name string
		f    Frame
		want string
	}{
		{"a count not read, full with no drop", Frame{Sample: model.Sample{Conntrack: c}, Verdicts: []verdict.Verdict{full}}, "prints count 4,000, and count read 3,839"},
		{"full with no drop", Frame{Sample: model.Sample{Conntrack: c}, Verdicts: []verdict.Verdict{full}}, "TABLE FULL with count 3839"},
		{"a namespace at 94 % with no drop", Frame{Sample: model.Sample{Conntrack: c}, Verdicts: []verdict.Verdict{ns}}, "TABLE FULL of netns web-1 at 3,839 of 4,096 with no drop"},
		{"an empty name", Frame{Verdicts: []verdict.Verdict{empty}}, "prints owner empty"},
		{"demand below what it admits", Frame{Pinned: true, Demand: Demand{AtLeast: 3}, Rates: model.Rates{Entries: model.EntryRates{Basis: model.BasisEvents, Total: 13}}}, "demand ≥ 3.0/s below the 13.0/s"},
	} {
		if got := strings.Join(tc.f.Faults(), " | "); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// sayTest is a clause of the words t, for a test's own verdicts.
func sayTest(w verdict.Weight, t string, facts ...verdict.Fact) verdict.Clause {
	return verdict.Words{"test": t}.Say(w, "test", facts...)
}
