package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers: the rooms import downwards only. model imports the
// standard library only; model's own packages import model's; sources and
// remote never import each other, tui or cmd; tui imports model's rooms
// and its own; sources' concerns never import the collector that
// composes them; nothing imports cmd but cmd (main, its internal
// packages).
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \",\"}}", "github.com/tablefull/tablefull/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/tablefull/tablefull/"
	under := func(p, room string) bool { return p == room || strings.HasPrefix(p, room+"/") }
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		pkg = strings.TrimPrefix(pkg, mod)
		for _, imp := range strings.Split(imports, ",") {
			if imp == "" {
				continue
			}
			ours := strings.HasPrefix(imp, mod)
			imp = strings.TrimPrefix(imp, mod)
			var bad bool
			switch {
			case pkg == "model":
				bad = ours || strings.Contains(imp, ".")
			case under(pkg, "model"):
				bad = (ours && !under(imp, "model")) || (!ours && strings.Contains(strings.SplitN(imp, "/", 2)[0], "."))
			case under(pkg, "sources"):
				bad = ours && (under(imp, "remote") || under(imp, "tui") || under(imp, "cmd") || (pkg != "sources" && imp == "sources"))
			case under(pkg, "remote"):
				bad = ours && (under(imp, "sources") || under(imp, "tui") || under(imp, "cmd"))
			case under(pkg, "tui"):
				bad = ours && !under(imp, "model") && !under(imp, "tui")
			}
			if ours && under(imp, "cmd") && !under(pkg, "cmd") {
				bad = true
			}
			if bad {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
