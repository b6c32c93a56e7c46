package model

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/tally"
)

// TestIPVSText: IPVS not loaded is "not present", not an empty table; a
// loaded one says its connections against its table and its busiest
// services; conn_reuse_mode 1 names its 1 s stall only on a kernel that
// has it (before 5.9).
func TestIPVSText(t *testing.T) {
	if got := (&IPVS{}).Text("6.1.0"); got != "not present (ip_vs not loaded)" {
		t.Errorf("absent: %q", got)
	}
	if got := (*IPVS)(nil).Text("6.1.0"); got != "not read" {
		t.Errorf("nil: %q", got)
	}
	v := &IPVS{Present: true, Size: 4096, Conns: 3, Services: 1, Top: []tally.Count{{Key: "TCP 10.9.9.9:80", N: 3}}, ReuseMode: "1"}
	if got := v.Text("6.1.0-28-amd64"); got != "3 connections in a table of 4,096 buckets, 1 service (TCP 10.9.9.9:80 3); conn_reuse_mode 1" {
		t.Errorf("loaded: %q", got)
	}
	if got := v.Text("5.4.0-150-generic"); !strings.Contains(got, "waits 1 s") {
		t.Errorf("an old kernel's trap not said: %q", got)
	}
	if kernelBefore("nonsense", 5, 9) || !kernelBefore("4.19.0", 5, 9) || kernelBefore("5.9.0", 5, 9) {
		t.Error("kernelBefore")
	}
}
