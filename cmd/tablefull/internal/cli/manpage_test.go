package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/exporter"
)

// TestManPage: tablefull(1) renders without a warning, through groff
// and man -l at 80 columns as a package installs it, no line wider;
// names every flag and every subcommand --help does (both come from the
// same table and flag sets); and has the sections a man page is read for.
func TestManPage(t *testing.T) {
	var page bytes.Buffer
	if code := Run([]string{"man"}, &page, io.Discard); code != 0 {
		t.Fatalf("tablefull man: exit %d", code)
	}
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("needs groff (make deps installs man-db)")
	}
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = bytes.NewReader(page.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff warns: %v\n%s", err, out)
	}
	path := filepath.Join(t.TempDir(), "tablefull.1")
	os.WriteFile(path, page.Bytes(), 0o644)
	man := exec.Command("man", "--warnings", "-l", path)
	man.Env = append(os.Environ(), "MANWIDTH=80", "PAGER=cat") // not a terminal: man strips the overstrikes
	var stderr bytes.Buffer
	man.Stderr = &stderr
	out, err := man.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("man -l: %v\n%s", err, stderr.String())
	}
	rendered := string(out)
	for i, line := range strings.Split(rendered, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line %d is %d columns wide at MANWIDTH=80: %q", i+1, n, line)
		}
	}
	for _, section := range []string{"SYNOPSIS", "OPTIONS", "KEYS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"} {
		if !regexp.MustCompile(`(?m)^` + section + `$`).MatchString(rendered) {
			t.Errorf("the man page has no %s section", section)
		}
	}
	for _, want := range []string{"NO_COLOR", "TABLEFULL_PROMETHEUS_PASSWORD", "still pinned after its steps", "heartbeat is stale"} {
		if !strings.Contains(strings.Join(strings.Fields(rendered), " "), want) {
			t.Errorf("the man page does not say %q", want)
		}
	}
	for _, name := range regexp.MustCompile(`--[a-z][a-z0-9.-]*[a-z0-9]`).FindAllString(help(subcommands[0]), -1) {
		if !strings.Contains(rendered, name) {
			t.Errorf("the man page does not name %s", name)
		}
	}
	for _, c := range subcommands[1:] {
		if !strings.Contains(rendered, "tablefull "+c.name) {
			t.Errorf("the man page does not name tablefull %s", c.name)
		}
	}
}

// fixedFeed hands out n samples.
type fixedFeed struct{ n int }

func (f *fixedFeed) Host() model.Host { return model.Host{} }

func (f *fixedFeed) Next() (s model.Sample, err error) {
	if f.n == 0 {
		return s, io.EOF
	}
	f.n--
	return s, nil
}

// TestHeartbeatAndAlive: the exporter's feed touches its heartbeat at
// each sample; `tablefull alive` exits 0 on a fresh one and 1 on a stale
// or missing one.
func TestHeartbeatAndAlive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heartbeat")
	hb, err := exporter.NewHeartbeat(&fixedFeed{n: 1}, path)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"alive", path, "--within", "30s"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "not sampling") {
		t.Errorf("a heartbeat an hour old: exit %d, %q", code, stderr.String())
	}
	if _, err := hb.Next(); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := Run([]string{"alive", path, "--within", "30s"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "alive") {
		t.Errorf("a heartbeat touched by a sample: exit %d, %q", code, stdout.String())
	}
	if _, err := hb.Next(); err != io.EOF {
		t.Errorf("the end of the feed: %v", err)
	}
	if code := Run([]string{"alive", filepath.Join(t.TempDir(), "none")}, &stdout, &stderr); code != 1 {
		t.Errorf("no heartbeat file: exit %d", code)
	}
}
