package clitest

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// VerdictRe reads the lab's headless lines: pinned and the verdict.
var VerdictRe = regexp.MustCompile(`pinned=(true|false) verdict="([^"]+)"`)

// HostRestored checks that nothing of the lab is left on the host.
func HostRestored(t *testing.T, origMax string) {
	t.Helper()
	if got := ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max"); got != origMax {
		t.Errorf("nf_conntrack_max is %s after the lab, was %s", got, origMax)
	}
	LabGone(t)
}

// LabGone checks that the lab's namespace, state, undo record,
// processes and rules are gone: HostRestored but the global cap, for a
// lab that changes no global knob while tests beside it set the cap.
func LabGone(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/run/netns/tablefull-lab"); err == nil {
		t.Errorf("the lab namespace is still there")
	}
	if _, err := os.Stat("/run/tablefull-lab.json"); err == nil {
		t.Errorf("the lab state file is still there")
	}
	if _, err := os.Stat("/run/tablefull-lab"); err == nil {
		t.Errorf("the lab's undo record is still there")
	}
	time.Sleep(200 * time.Millisecond)
	exe, _ := os.Executable()
	if out, _ := exec.Command("pgrep", "-f", "^"+regexp.QuoteMeta(exe)+" (agent|lab)").Output(); len(out) > 0 {
		t.Errorf("lab processes left: %s", out)
	}
	if out, _ := exec.Command("nft", "list", "tables").Output(); strings.Contains(string(out), "tablefull") {
		t.Errorf("nft table left in the host namespace: %s", out)
	}
}

// PinThenFull checks a table-full lab's sample lines: the verdict is
// TABLE FULL within two samples of the first pinned one.
func PinThenFull(t *testing.T, lines []string) {
	t.Helper()
	firstPinned, firstFull := -1, -1
	for i, l := range lines {
		m := VerdictRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[1] == "true" && firstPinned < 0 {
			firstPinned = i
		}
		if m[2] == "TABLE FULL" && firstFull < 0 {
			firstFull = i
		}
	}
	if firstPinned < 0 || firstFull < 0 || firstFull > firstPinned+2 {
		t.Errorf("first pinned sample %d, first TABLE FULL %d:\n%s", firstPinned, firstFull, strings.Join(lines, "\n"))
	}
}
