package model

import (
	"strings"
	"testing"
)

// TestInsertClashByKernel: INSERT CLASH says what the host's kernel does.
// One that reports clash_resolve (5.10 on) resolves two UDP flows racing
// for one tuple itself (since 5.6), so its drops are not the 5 s DNS race
// and the clients' resolver options are not their fix; one that reports
// no such counter may be older, and is told the race and its fixes.
func TestInsertClashByKernel(t *testing.T) {
	drops := idle()
	drops.CTTotal.Set(Drop, 5)
	drops.CTTotal.Set(InsertFailed, 5)
	s := table(300, 300, 262144)
	s.NAT = &NAT{}
	old, _ := ruleInsertClash(Inputs{Sample: s, Rates: drops})
	s.CTStats.Reported = append(s.CTStats.Reported, ClashResolve)
	recent, _ := ruleInsertClash(Inputs{Sample: s, Rates: drops})
	if !strings.Contains(old.Evidence, "the 5 s DNS delay on kernels before 5.6") || !strings.Contains(old.Evidence, "single-request-reopen") {
		t.Errorf("a kernel that counts no resolved clashes: %s", old.Evidence)
	}
	if !strings.Contains(recent.Evidence, "this kernel resolves two UDP flows racing for one (clash_resolve, since 5.6)") ||
		strings.Contains(recent.Evidence, "single-request-reopen") || !strings.Contains(recent.Evidence, "not the 5 s DNS race") {
		t.Errorf("a kernel that resolves clashes: %s", recent.Evidence)
	}
}
