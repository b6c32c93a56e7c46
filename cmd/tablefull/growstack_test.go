package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStackRoomInitializesFirst: the program's packages initialize after
// growstack has grown the main goroutine's stack (see its doc), so none of
// their initializers copies it. Go's own trace of the initializers
// (GODEBUG=inittrace=1) says the order.
func TestStackRoomInitializesFirst(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "version")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	var order []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	for i, pkg := range order {
		if strings.HasSuffix(pkg, "/cmd/tablefull/internal/growstack") {
			if i > 8 {
				t.Errorf("growstack initialized %dth, after %v", i+1, order[:i])
			}
			return
		}
	}
	t.Errorf("growstack never initialized; the order was %v", order)
}
