package exporter

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/remote/metrics"

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
	// The same unit tests with the job called otherwise: no rule may
	// depend on what the operator named the scrape job.
	dir := t.TempDir()
	rules, err := os.ReadFile(rulesDir + "/tablefull.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(rulesDir + "/tablefull.rules.test.yml")
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.NewReplacer(`job="tablefull"`, `job="conntrack-exporter"`, "job: tablefull", "job: conntrack-exporter").Replace(string(tests))
	if renamed == string(tests) {
		t.Fatal("the rules' tests name no job to rename")
	}
	os.WriteFile(dir+"/tablefull.rules.yml", rules, 0o644)
	os.WriteFile(dir+"/tablefull.rules.test.yml", []byte(renamed), 0o644)
	cmd := exec.Command("promtool", "test", "rules", "tablefull.rules.test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool test rules, the job called conntrack-exporter: %v\n%s", err, out)
	}
}

// TestRulesUseExportedNames: every tablefull_ metric the rules name is one
// of the metrics' one home, and the exporter describes exactly those (a
// renamed metric would leave an alert silent).
func TestRulesUseExportedNames(t *testing.T) {
	ch := make(chan *prometheus.Desc, 64)
	New("x").Describe(ch)
	close(ch)
	described := map[string]bool{}
	nameRe := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		described[nameRe.FindStringSubmatch(d.String())[1]] = true
	}
	served := map[string]bool{}
	for _, m := range metrics.All {
		served[m.Name] = true
		if !described[m.Name] {
			t.Errorf("%s is in remote/metrics, the exporter does not describe it", m.Name)
		}
	}
	for name := range described {
		if !served[name] {
			t.Errorf("the exporter describes %s, which remote/metrics does not hold", name)
		}
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

// TestSystemdUnit: the shipped unit passes systemd-analyze verify (with
// the binary where it names it) and its security exposure stays low.
func TestSystemdUnit(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("needs systemd-analyze")
	}
	dir := t.TempDir()
	unit, err := os.ReadFile("../../deploy/systemd/tablefull-exporter.service")
	if err != nil {
		t.Fatal(err)
	}
	bin := dir + "/tablefull"
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	path := dir + "/tablefull-exporter.service"
	os.WriteFile(path, []byte(strings.ReplaceAll(string(unit), "/usr/local/bin/tablefull", bin)), 0o644)
	if out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput(); err != nil {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	if out, err := exec.Command("systemd-analyze", "security", "--offline=yes", "--threshold=30", path).CombinedOutput(); err != nil {
		t.Errorf("exposure over 3.0: %v\n%s", err, out)
	}
}
