package printedtest

import (
	"strings"
	"testing"
)

// TestArithmeticFaults: a product that computes passes, wrapped or not;
// one that does not, and a product of a rate not counted, are faults.
func TestArithmeticFaults(t *testing.T) {
	for _, c := range []struct {
		text  string
		fault string // "" none
	}{
		{"fills tcp-closed 9,600 (80/s × 120 s = 9,600)", ""},
		{"80/s × 120 s\n  needs 9,600 entries", ""},
		{"8/s before the pin × 30 s = 240;", ""},
		{"fills tcp-closed 710 (80/s × 120 s = 710)", "80/s × 120 s = 710"},
		{"0/s × 120 s needs 256", "0/s ×"},
		{"holds 0 new/s held 120 s", "0 new/s held"},
		{"80/s × 120 s = 9,6…", ""}, // cut: not read
		{"80/s held 120 s each need 9,600 entries", ""},
		{"80/s held 120 s each need 960 entries", "held 120 s each need 960"},
	} {
		faults, _ := ArithmeticFaults(c.text)
		switch {
		case c.fault == "" && len(faults) > 0:
			t.Errorf("%q: faults %v", c.text, faults)
		case c.fault != "" && (len(faults) == 0 || !strings.Contains(strings.Join(faults, "|"), c.fault)):
			t.Errorf("%q: faults %v, want one quoting %q", c.text, faults, c.fault)
		}
	}
	if _, n := ArithmeticFaults("a 1/s × 2 s = 2 and 3/s × 4 s needs 12."); n != 2 {
		t.Errorf("counted %d products, want 2", n)
	}
}
