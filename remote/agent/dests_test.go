package agent

import (
	"strings"
	"testing"
)

// TestInstanceAgentDropsUser: a Prometheus instance label names a host,
// never who ssh logs in as: a user part in it is dropped, and the host
// and its port are kept apart as before.
func TestInstanceAgentDropsUser(t *testing.T) {
	for label, want := range map[string]string{
		"root@web-2:9874":       "web-2",
		"a@b@web-3:9874":        "web-3",
		"web-4:9874":            "web-4",
		"[2001:db8::1]:9874":    "[2001:db8::1]",
		"admin@[2001:db8::2]:1": "[2001:db8::2]",
	} {
		p, err := InstanceAgent(label)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if p.Name != want || strings.Contains(strings.Join(p.Argv, " "), "@") {
			t.Errorf("%s: name %q, argv %q; want %q and no user", label, p.Name, p.Argv, want)
		}
	}
}
