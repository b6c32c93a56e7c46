package exporter

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

const rulesDir = "../../deploy/prometheus"

// TestShippedRules: the rules and the sample config pass promtool's
// checks and the rules' unit tests (each alert fires when it should,
// stays quiet when it should, and says what its annotations say).
func TestShippedRules(t *testing.T) {
	if _, err := exec.LookPath("promtool"); err != nil {
		t.Skip("needs promtool (Debian's prometheus package)")
	}
	for _, args := range [][]string{
		{"check", "rules", "tablefull.rules.yml"},
		{"check", "config", "prometheus.yml"},
		{"test", "rules", "tablefull.rules.test.yml"},
	} {
		cmd := exec.Command("promtool", args...)
		cmd.Dir = rulesDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestRulesUseExportedNames: every tablefull_ metric the rules name is one
// the exporter serves (a renamed metric would leave an alert silent).
func TestRulesUseExportedNames(t *testing.T) {
	ch := make(chan *prometheus.Desc, 64)
	New("x").Describe(ch)
	close(ch)
	served := map[string]bool{}
	nameRe := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		served[nameRe.FindStringSubmatch(d.String())[1]] = true
	}
	b, err := os.ReadFile(rulesDir + "/tablefull.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?:^|[^:a-z_])(tablefull_[a-z_]+)`).FindAllStringSubmatch(string(b), -1) {
		if name := m[1]; !served[name] {
			t.Errorf("the rules use %s, which the exporter does not serve", name)
		}
	}
}
