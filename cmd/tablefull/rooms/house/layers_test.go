package house

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

// TestLayers: the rooms import downwards only. model imports the
// standard library and its ground (modelGround) only; model's other
// packages import model's; sources and
// remote never import each other, tui or cmd; remote's rooms import each
// other only as remoteRooms says; tui imports model's rooms
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
			case pkg == "model" || modelGround[pkg]:
				bad = (ours && !modelGround[imp]) || strings.Contains(imp, ".")
			case under(pkg, "model"):
				bad = (ours && !under(imp, "model")) || (!ours && strings.Contains(strings.SplitN(imp, "/", 2)[0], "."))
			case under(pkg, "sources"):
				bad = ours && (under(imp, "remote") || under(imp, "tui") || under(imp, "cmd") || (pkg != "sources" && imp == "sources"))
			case under(pkg, "remote"):
				bad = ours && (under(imp, "sources") || under(imp, "tui") || under(imp, "cmd") || !remoteMayImport(pkg, imp))
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

// remoteRooms are remote's rooms and the other rooms of remote each may
// import: the stream's format and the metrics' names stand alone; the
// agent's link and the recordings carry the stream; the exporter and the
// Prometheus reader read samples and name metrics without linking the
// agent (ssh, processes, the control protocol); the report reads
// recordings.
var remoteRooms = map[string][]string{
	"remote/stream":    nil,
	"remote/metrics":   nil,
	"remote/oneshot":   nil,
	"remote/agent":     {"remote/stream"},
	"remote/recording": {"remote/stream"},
	"remote/exporter":  {"remote/stream", "remote/metrics"},
	"remote/promread":  {"remote/stream", "remote/metrics"},
	"remote/report":    {"remote/stream", "remote/recording"},
}

// modelGround are model's rooms beneath its root: the standard library and
// each other only, and model's root imports them.
var modelGround = map[string]bool{"model/units": true, "model/verdict": true, "model/tally": true, "model/arith": true, "model/knob": true, "model/safe": true}

// remoteMayImport reports whether remote's room pkg may import imp: a
// room of model or one remoteRooms lists for it. A test helper of a room
// may import the room, what the room may, and those rooms' helpers. A
// package of remote not listed there may import nothing of ours but
// model's rooms: a new room is said here.
func remoteMayImport(pkg, imp string) bool {
	if imp == "model" || strings.HasPrefix(imp, "model/") {
		return true
	}
	if testHelper(pkg) {
		room := path.Dir(pkg)
		if testHelper(imp) {
			imp = path.Dir(imp)
		}
		return imp == room || remoteMayImport(room, imp)
	}
	for _, may := range remoteRooms[pkg] {
		if imp == may {
			return true
		}
	}
	return false
}

// testHelper reports whether pkg is a test helper: its name ends in
// "test" (nstest, ciliumtest, critest).
func testHelper(pkg string) bool {
	return strings.HasSuffix(pkg[strings.LastIndex(pkg, "/")+1:], "test")
}
