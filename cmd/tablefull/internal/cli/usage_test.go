package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/remote/exporter"
)

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"replay"}, {"record"}, {"--interval", "1ms"}, {"replay", "x", "--speed", "0"}, {"bogus"},
		{"record", "/tmp/tablefull-never-written", "--duration", "-5s"}, {"lab"}, {"lab", "nosuch"}, {"lab", "healthy", "--duration", "-1s"}} {
		var out, errb strings.Builder
		if code := Run(args, &out, &errb); code != 2 {
			t.Errorf("Run(%q) = %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
	for _, args := range [][]string{{"lab"}, {"lab", "nosuch"}} {
		var labErr strings.Builder
		if Run(args, &strings.Builder{}, &labErr); !strings.Contains(labErr.String(), "gc-pinned") {
			t.Errorf("%q does not list the scenarios: %q", args, labErr.String())
		}
	}
	var out, errb strings.Builder
	if code := Run([]string{"replay", "/no/such/file"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "/no/such/file") {
		t.Errorf("replay of a missing file: code %d, %q", code, errb.String())
	}
}

// TestCommandLineConventions: help goes to stdout and a subcommand's is
// its own; the shared flags come before or after a subcommand's name;
// help, version and completion exist; a usage error is two lines on
// stderr, not the whole usage.
func TestCommandLineConventions(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		stdout   []string // each in stdout
		notInOut string
	}{
		{[]string{"--help"}, 0, []string{"Usage:", "tablefull census", "--until-free"}, ""},
		{[]string{"tune", "--help"}, 0, []string{"tablefull tune", "--until-free", "--interval"}, "tablefull census"},
		{[]string{"help", "tune"}, 0, []string{"tablefull tune", "--until-free"}, "tablefull census"},
		{[]string{"help"}, 0, []string{"tablefull census", "tablefull completion"}, ""},
		{[]string{"--interval", "2s", "version"}, 0, []string{"tablefull " + exporter.BuildVersion(), "revision", "built ", runtime.Version(), runtime.GOARCH}, ""},
		{[]string{"snapshot", "--version"}, 0, []string{"revision"}, ""},
		{[]string{"completion", "bash"}, 0, []string{"bash completion"}, ""},
		{[]string{"--interval", "1ms", "version"}, 2, nil, ""},
	} {
		var out, errb strings.Builder
		code := Run(tc.args, &out, &errb)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errb.String())
		}
		for _, want := range tc.stdout {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: stdout has no %q:\n%s", tc.args, want, out.String())
			}
		}
		if tc.notInOut != "" && strings.Contains(out.String(), tc.notInOut) {
			t.Errorf("%q: stdout has %q, another subcommand's", tc.args, tc.notInOut)
		}
		if tc.code == 0 && errb.Len() > 0 {
			t.Errorf("%q: stderr %q", tc.args, errb.String())
		}
	}
	for _, args := range [][]string{{"bogus"}, {"--bogus"}, {"replay"}, {"snapshot", "extra"}} {
		var errb strings.Builder
		Run(args, &strings.Builder{}, &errb)
		if lines := strings.Count(errb.String(), "\n"); lines > 2 || !strings.Contains(errb.String(), "--help") {
			t.Errorf("%q: a usage error of %d lines: %q", args, lines, errb.String())
		}
	}
}

// TestCompletionScriptsParse: each shell's completion script is one that
// shell parses (bash -n, zsh -n, fish --no-execute), for the shells
// installed here; the others are said.
func TestCompletionScriptsParse(t *testing.T) {
	for _, sh := range []struct{ shell, check string }{{"bash", "-n"}, {"zsh", "-n"}, {"fish", "--no-execute"}} {
		var out, errb strings.Builder
		if code := Run([]string{"completion", sh.shell}, &out, &errb); code != 0 || out.Len() == 0 {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", sh.shell, code, out.Len(), errb.String())
			continue
		}
		path, err := exec.LookPath(sh.shell)
		if err != nil {
			t.Logf("%s is not installed: its script is not parsed (make deps installs it)", sh.shell)
			continue
		}
		script := filepath.Join(t.TempDir(), "tablefull."+sh.shell)
		if err := os.WriteFile(script, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(path, sh.check, script).CombinedOutput(); err != nil || len(msg) > 0 {
			t.Errorf("%s %s of the completion script: %v\n%s", sh.shell, sh.check, err, msg)
		}
	}
}
