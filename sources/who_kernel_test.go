package sources

import (
	"os"
	"testing"
)

// TestWhoLoads: the probes load, attach and detach as root.
func TestWhoLoads(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	w, err := LoadWho("/proc", "/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Read(); r.Limit != WhoLimit || len(w.links) != 2 {
		t.Errorf("%d probes attached, limit %q", len(w.links), r.Limit)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
