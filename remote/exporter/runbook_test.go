package exporter

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// runbookBase is where every alert's runbook_url points: its own section
// of docs/alerts.md, as the kubernetes-mixin's alerts do.
const runbookBase = "https://github.com/tablefull/tablefull/blob/main/docs/alerts.md#"

// TestEveryAlertHasItsRunbook: each shipped alert carries a runbook_url
// to its own section of docs/alerts.md, which exists and says what it
// means, how it is read and the fix; no section is of an alert the rules
// do not ship.
func TestEveryAlertHasItsRunbook(t *testing.T) {
	rules, err := os.ReadFile(rulesDir + "/tablefull.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/alerts.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, part := range strings.Split(string(doc), "\n## ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		sections[name] = body
	}
	alerts := regexp.MustCompile(`(?m)^\s*- alert: (\S+)$`).FindAllStringSubmatchIndex(string(rules), -1)
	if len(alerts) == 0 {
		t.Fatal("no alert in the rules")
	}
	shipped := map[string]bool{}
	for i, m := range alerts {
		name := string(rules[m[2]:m[3]])
		shipped[name] = true
		end := len(rules)
		if i+1 < len(alerts) {
			end = alerts[i+1][0]
		}
		rule := string(rules[m[1]:end])
		if want := `runbook_url: "` + runbookBase + strings.ToLower(name) + `"`; !strings.Contains(rule, want) {
			t.Errorf("%s: no %s", name, want)
		}
		body, ok := sections[name]
		if !ok {
			t.Errorf("%s: docs/alerts.md has no section ## %s", name, name)
			continue
		}
		for _, part := range []string{"**What it means.**", "**How it is read.**", "**The fix.**"} {
			if !strings.Contains(body, part) {
				t.Errorf("docs/alerts.md ## %s does not say %s", name, part)
			}
		}
	}
	for name := range sections {
		if !shipped[name] {
			t.Errorf("docs/alerts.md has a section for %s, which the rules do not ship", name)
		}
	}
}

// TestShippedAlertmanagerConfig: the sample Alertmanager configuration,
// with the inhibition rules shipped beside the alerts, passes amtool's
// check, and its rules name only alerts the rules ship.
func TestShippedAlertmanagerConfig(t *testing.T) {
	conf, err := os.ReadFile(rulesDir + "/alertmanager.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := os.ReadFile(rulesDir + "/tablefull.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(Conntrack[A-Za-z]+|Tablefull[A-Za-z]+)`).FindAllString(string(conf), -1) {
		if !strings.Contains(string(rules), "- alert: "+m+"\n") {
			t.Errorf("alertmanager.yml names %s, which the rules do not ship", m)
		}
	}
	if _, err := exec.LookPath("amtool"); err != nil {
		t.Skip("needs amtool (Debian's prometheus-alertmanager package)")
	}
	cmd := exec.Command("amtool", "check-config", "alertmanager.yml")
	cmd.Dir = rulesDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("amtool check-config: %v\n%s", err, out)
	}
}
