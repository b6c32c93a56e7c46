// Package clitest is the kit of tablefull's end-to-end tests: every test
// binary of the command's rooms is the command as well (Main), the
// repository's files are found from any room (Repo), and what the
// documentation says is read one way (Manual). The kernel's ground — root
// and tools, namespaces, servers, the claims on the global knobs — is
// sources/netns/nstest's and sources/kernelfs/kernelfstest's, which the
// packages that read the kernel share. It is imported by tests only.
package clitest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// AsMainEnv set to 1 in a test binary's environment makes it the
// tablefull command (Main): the tests run themselves as the command,
// inside a namespace, in a tmux pane, over a pipe.
const AsMainEnv = "TABLEFULL_AS_MAIN"

// Main runs a room's tests, or the command (run: cli.Run, which this
// kit does not import, so that cli's own tests may use it) when the
// binary is run as it: with AsMainEnv=1, or as `BIN agent` with no
// environment of ours (a deployed copy of the binary, as the agent's
// deploy starts it). The tests run under the machine's test gate
// (nstest.Main).
func Main(m *testing.M, run func(args []string, stdout, stderr io.Writer) int) {
	if os.Getenv(AsMainEnv) == "1" || (len(os.Args) == 2 && os.Args[1] == "agent") {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(nstest.Main(m))
}

// Command is tablefull args as this test binary runs it (AsMainEnv):
// the room's tests are the command's.
func Command(args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), AsMainEnv+"=1")
	return cmd
}

// Repo is the path of rel in the repository (its root holds go.mod),
// from whichever package's directory the test runs in.
func Repo(t testing.TB, rel ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir}, rel...)...)
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory: not run from the repository")
		}
		dir = up
	}
}

// SetKeys are the members of set, in no order.
func SetKeys(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	return out
}
