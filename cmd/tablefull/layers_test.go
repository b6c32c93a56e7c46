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
// packages); no production package imports a test helper (a package
// named …test, which only tests and other helpers import) or the lab's
// helpers (sources/lab and the namespaces it builds, sources/netns),
// which only cmd and the lab itself import.
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
			if ours && testHelper(imp) && !testHelper(pkg) {
				bad = true
			}
			if ours && (imp == "sources/lab" || imp == "sources/netns") && !under(pkg, "cmd") && pkg != "sources/lab" && !testHelper(pkg) {
				bad = true
			}
			if bad {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}

// testHelper reports whether pkg is a test helper: its name ends in
// "test" (nstest, ciliumtest, critest).
func testHelper(pkg string) bool {
	return strings.HasSuffix(pkg[strings.LastIndex(pkg, "/")+1:], "test")
}
