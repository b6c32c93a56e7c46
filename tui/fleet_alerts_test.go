package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/verdict"
)

// notingFleet is a fleet source that read an Alertmanager, or could not.
type notingFleet struct {
	fakeFleet
	note string
}

func (n *notingFleet) AlertmanagerNote() string { return n.note }

// TestFleetShowsFiringAlerts: the firing alerts are listed beside the
// rows, worst host first, each with its instance, an inhibited or
// silenced one marked so and counted as suppressed, at 80×24 and
// 200×50, with the rows still on screen; none firing, no line; an
// Alertmanager not read says why, inert whatever it says.
func TestFleetShowsFiringAlerts(t *testing.T) {
	rows := bigFleet(600)
	rows[0].AddAlert(fleet.Alert{Name: "ConntrackTableFull", Severity: "critical", Known: true})
	rows[1].AddAlert(fleet.Alert{Name: "ConntrackNearCap", Severity: "warning", Known: true, Inhibited: true})
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		f := fleetAt(&notingFleet{fakeFleet: fakeFleet{rows: rows}}, size[0], size[1])
		screen := ansi.Strip(f.View())
		if len(strings.Split(screen, "\n")) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(strings.Split(screen, "\n")))
		}
		if !strings.Contains(screen, "2 firing, 1 suppressed: ConntrackTableFull "+rows[0].Instance) {
			t.Errorf("%dx%d: the firing alerts are not listed:\n%s", size[0], size[1], screen)
		}
		if size[0] >= 200 && !strings.Contains(screen, "ConntrackNearCap "+rows[1].Instance+" (inhibited)") {
			t.Errorf("%dx%d: the inhibited alert is not marked:\n%s", size[0], size[1], screen)
		}
		if !strings.Contains(screen, string(verdict.TableFull)) {
			t.Errorf("%dx%d: the rows are gone:\n%s", size[0], size[1], screen)
		}
	}
	quiet := fleetAt(&fakeFleet{rows: bigFleet(600)}, 80, 24)
	if s := ansi.Strip(quiet.View()); strings.Contains(s, "firing") {
		t.Errorf("no alert fires, the view says:\n%s", s)
	}
	f := fleetAt(&notingFleet{fakeFleet: fakeFleet{rows: rows}, note: "alertmanager: refused\x1b[2J"}, 200, 50)
	if s := f.View(); !strings.Contains(ansi.Strip(s), "alertmanager: refused") || strings.Contains(s, "\x1b[2J") {
		t.Errorf("Alertmanager's note, inert, is not said:\n%q", s)
	}
}
