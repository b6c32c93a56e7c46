package record

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/cli"
)

// readmeChart is the demo report's table chart as the README shows it.
const readmeChart = "../../../../testdata/readme/demo-table.svg"

// TestDemoReport: tablefull report --demo writes the post-mortem of the
// embedded incident; its report.md is golden, and the README's chart is
// the one it draws (go test -update rewrites both).
func TestDemoReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var out, errb bytes.Buffer
	if code := cli.Run([]string{"report", "--demo", "-o", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, name := range []string{"report.html", "report.md", "verdicts.svg", "table.svg", "drops.svg", "load.svg", "tcp.svg"} {
		if !strings.Contains(out.String(), filepath.Join(dir, name)) {
			t.Errorf("%s not reported written: %s", name, out.String())
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, md)
	chart, err := os.ReadFile(filepath.Join(dir, "table.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		os.MkdirAll(filepath.Dir(readmeChart), 0o755)
		os.WriteFile(readmeChart, chart, 0o644)
	}
	if readme, _ := os.ReadFile(readmeChart); !bytes.Equal(readme, chart) {
		t.Errorf("%s is not the demo report's table chart: go test ./cmd/tablefull/rooms/record -run TestDemoReport -update", readmeChart)
	}
	errb.Reset()
	if code := cli.Run([]string{"report", "--demo", "-o", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "--force") {
		t.Errorf("a second report into %s: exit %d, %q; want 1 and a hint at --force", dir, code, errb.String())
	}
	if code := cli.Run([]string{"report", "--demo", "-o", dir, "--force"}, &out, &errb); code != 0 {
		t.Errorf("--force: exit %d", code)
	}
}

// TestReportUsage: a FILE or --demo, not neither nor both; times that do
// not parse are refused before anything is read.
func TestReportUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"report"}, 2, "missing FILE"},
		{[]string{"report", "x.jsonl", "--demo"}, 2, "not both"},
		{[]string{"report", "--demo", "--from", "noon"}, 1, "--from"},
		{[]string{"report", "/nonexistent.jsonl"}, 1, "open recording"},
		{[]string{"report", "--demo", "--from", "+30s", "--to", "+10s"}, 1, "before --from"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := cli.Run(append(tt.args, "-o", t.TempDir()), &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.says) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tt.args, code, errb.String(), tt.code, tt.says)
		}
	}
}
