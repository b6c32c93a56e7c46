package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestInstanceAllowance: packets an ENA refused for the instance's own
// connection tracking are INSTANCE ALLOWANCE while nf_conntrack is
// healthy (never TABLE FULL); a NIC's first sample, or one gone, counts
// nothing.
func TestInstanceAllowance(t *testing.T) {
	at := func(s model.Sample, sec int, als ...model.Allowance) model.Sample {
		s.Time = time.Unix(int64(1000+sec), 0)
		s.Allowance = als
		return s
	}
	base := table(3000, 3000, 262144)
	prev := at(base, 0, model.Allowance{Iface: "ens5", Driver: "ena", Exceeded: 100, Available: 20, AvailableRead: true})
	cur := at(base, 1, model.Allowance{Iface: "ens5", Driver: "ena", Exceeded: 412, Available: 0, AvailableRead: true}, model.Allowance{Iface: "ens6", Driver: "ena", Exceeded: 9000})
	got := Judge(Inputs{Sample: cur, Rates: model.Delta(prev, cur)})
	if got[0].Kind != verdict.InstanceAllowance || hasVerdict(got, verdict.TableFull) {
		t.Fatalf("verdicts %v", got)
	}
	want := "the instance's connection tracking refused 312 packets (ena conntrack_allowance_exceeded on ens5, 0 more it may track) with nf_conntrack at 3,000 of max 262,144: the limit is the instance type's"
	if !strings.Contains(got[0].Text(), want) {
		t.Errorf("evidence %q lacks %q", got[0].Text(), want)
	}
	if v := Judge(Inputs{Sample: at(base, 1), Rates: model.Delta(cur, at(base, 1))}); hasVerdict(v, verdict.InstanceAllowance) {
		t.Errorf("a NIC gone counted: %v", v)
	}
}
