package console

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/knob"
)

// tourScreens are what each line of the README's tour shows a newcomer,
// by its command's first words: the screen of a console (each key sent,
// then its screen) or the output of a command that prints.
var tourScreens = []struct {
	prefix string
	keys   [][]string // keys, then what the screen shows after them
	within time.Duration
	prints *regexp.Regexp // for a command that prints and ends
}{
	{prefix: "tablefull demo", keys: [][]string{{"", "· demo ·", "TABLE FULL"}}, within: 30 * time.Second},
	{prefix: "tablefull replay", keys: [][]string{{"", "REPLAY"}, {"p", "REPLAY PAUSED"}}, within: 10 * time.Second},
	{prefix: "sudo tablefull lab table-full", keys: [][]string{{"", "lab table-full", "TABLE FULL"}}, within: 40 * time.Second},
	{prefix: "tablefull --ssh", keys: [][]string{{"", "web-3", "web-4"}}, within: 10 * time.Second},
	{prefix: "tablefull --prometheus", keys: [][]string{{"", "prom:9090"}}, within: 10 * time.Second},
	{prefix: "tablefull report", prints: regexp.MustCompile(`report\.html`)},
	{prefix: "tablefull compare", prints: regexp.MustCompile(`(?m)^drops +112 +0 +fell to 0`)},
	{prefix: "sudo tablefull census", prints: regexp.MustCompile(`(?m)^[0-9,]+ entries in .*\n(?s:.*)tcp state:`)},
	{prefix: "sudo tablefull entries", prints: regexp.MustCompile(`(?m)match`)},
	{prefix: "sudo tablefull tune --dry-run", prints: regexp.MustCompile(`(?i)nothing to propose|proposed|plan`)},
	{prefix: "tablefull", keys: [][]string{{"", "LIVE"}, {"?", "quit"}}, within: 10 * time.Second},
}

// TestNewcomerPath: the README as a newcomer follows it, on a fresh clone
// of the repository. Its run command (make run) builds and opens the
// console on this host; its Go install line names the clone's module,
// and installing that package gives the binary; every line of its tour,
// run with that binary (FILE a recording of the clone's), shows what it
// says: the demo's table filling, a replay paused, the lab's incident,
// the live console and its help, a tab for each remote host and the
// fleet's Prometheus named though neither answers here, a report
// written, the entries listed, the plan printed. Each console quits on q
// and leaves the terminal as it found it; the lab leaves the host as it
// was.
func TestNewcomerPath(t *testing.T) {
	clitest.NeedKernel(t, "tmux", "git", "make", "go")
	clone := filepath.Join(t.TempDir(), "tablefull")
	if out, err := exec.Command("git", "clone", "-q", "../../../..", clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v: %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(clone, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	run := clitest.ReadmeBlock(t, readme, "Run it")
	if !strings.HasPrefix(run, "make run ") {
		t.Fatalf("the run command is not make run:\n%s", run)
	}
	s := clitest.StartTmuxArgv(t, 120, 40, []string{"cd", clone, "&&", "make", "run"})
	s.WaitWithin(3*time.Minute, "LIVE", "count")
	s.Keys("q")
	s.WaitFor("EXIT=0")

	install := regexp.MustCompile("`go install ([^@`]+)@latest`").FindStringSubmatch(readme)
	mod, _ := os.ReadFile(filepath.Join(clone, "go.mod"))
	if install == nil || !strings.HasPrefix(string(mod), "module "+strings.TrimSuffix(install[1], "/cmd/tablefull")+"\n") {
		t.Fatalf("the README's go install line %q does not name this module's command (%s)", install, strings.SplitN(string(mod), "\n", 2)[0])
	}
	if !strings.Contains(readme, "from a clone, `go install ./cmd/tablefull`") {
		t.Fatal("the README does not say how to install from a clone")
	}
	goBin := filepath.Join(clone, "gobin")
	installCmd := exec.Command("go", "install", "./cmd/tablefull") // the README's line, from the clone: no network here
	installCmd.Dir = clone                                         // as make build: its cache serves; a VCS stamp as on any machine
	installCmd.Env = append(os.Environ(), "GOBIN="+goBin, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=true")
	if out, err := installCmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v: %s", err, out)
	}
	head, _ := exec.Command("git", "-C", clone, "rev-parse", "HEAD").Output()
	if out, _ := exec.Command(filepath.Join(goBin, "tablefull"), "version").Output(); len(head) < 40 || !strings.Contains(string(out), "revision "+strings.TrimSpace(string(head))) || strings.Contains(string(out), "built unknown") {
		t.Errorf("go install from the clone at %s says %q: want its revision and its commit's date", strings.TrimSpace(string(head)), out)
	}
	// The tour runs what the README's `sudo make install` puts on the
	// PATH; under a prefix of the test's, so the host's /usr/local is not
	// written.
	if !strings.Contains(readme, "`sudo make install` puts `tablefull` on the PATH") {
		t.Fatalf("the README does not say how tablefull gets on the PATH before its tour")
	}
	prefix := t.TempDir()
	if out, err := exec.Command("make", "-C", clone, "install", "PREFIX="+prefix).CombinedOutput(); err != nil {
		t.Fatalf("make install: %v: %s", err, out)
	}
	bin := filepath.Join(prefix, "bin")
	orig := clitest.ReadSysctl(t, nil, knob.Max)
	tour := strings.Split(strings.TrimSpace(clitest.ReadmeBlock(t, readme, "A tour in eleven lines")), "\n")
	if len(tour) != 11 {
		t.Errorf("the README's tour in eleven lines has %d", len(tour))
	}
	if strings.Contains(readme, "Go 1.") && !strings.Contains(readme, "Go "+strings.TrimPrefix(regexp.MustCompile(`(?m)^go (\S+)$`).FindString(string(mod)), "go ")+"+") {
		t.Errorf("the README's Go version is not go.mod's (%s)", regexp.MustCompile(`(?m)^go (\S+)$`).FindString(string(mod)))
	}
	for _, line := range tour {
		command, _, _ := strings.Cut(line, "#")
		command = strings.TrimSpace(command)
		t.Run(command, func(t *testing.T) { tourLine(t, clone, bin, command) })
	}
	if got := clitest.ReadSysctl(t, nil, knob.Max); got != orig {
		t.Errorf("after the tour nf_conntrack_max = %s, want %s", got, orig)
	}
}

// tourLine runs one command of the tour as the newcomer would (as root,
// in the clone, with the installed binary) and checks what it shows.
func tourLine(t *testing.T, clone, bin, command string) {
	words := strings.Fields(strings.NewReplacer("FILE", filepath.Join(clone, "testdata/incidents/pool.jsonl"),
		"BEFORE", filepath.Join(clone, "testdata/incidents/lab-table-full.jsonl"), "AFTER", filepath.Join(clone, "testdata/incidents/lab-healthy.jsonl")).Replace(command))
	if words[0] == "sudo" {
		words = words[1:] // the test runs as root
	}
	words[0] = filepath.Join(bin, "tablefull")
	for _, want := range tourScreens {
		if !strings.HasPrefix(command, want.prefix) {
			continue
		}
		if want.prints != nil {
			cmd := exec.Command(words[0], append(words[1:], "--state-dir", t.TempDir())...)
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			if err != nil || !want.prints.Match(out) {
				t.Errorf("%s: %v:\n%s", command, err, out)
			}
			if words[1] == "report" {
				if _, err := os.Stat(filepath.Join(cmd.Dir, "report", "report.html")); err != nil {
					t.Errorf("%s wrote no report/report.html: %v", command, err)
				}
			}
			return
		}
		s := clitest.StartTmuxArgv(t, 120, 40, append([]string{"cd", clone, "&&"}, words...))
		for _, k := range want.keys {
			if k[0] != "" {
				s.Keys(k[0])
			}
			s.WaitWithin(want.within, k[1:]...)
		}
		s.Keys("q")
		s.WaitWithin(15*time.Second, "EXIT=0")
		return
	}
	t.Errorf("the tour's %q has no check here: a new line of the tour needs one", command)
}
