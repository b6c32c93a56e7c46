package namespaces

import (
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestFileToEnter: a namespace with a process in it is entered through
// that process's ns/net under the process root; one with none through its
// bind mount.
func TestFileToEnter(t *testing.T) {
	if got := File("/host/proc", model.NetNS{PID: 42, Path: "/run/netns/a"}); got != "/host/proc/42/ns/net" {
		t.Errorf("with a process: %s", got)
	}
	if got := File("/proc", model.NetNS{Path: "/run/netns/idle"}); got != "/run/netns/idle" {
		t.Errorf("without one: %s", got)
	}
}
