package house

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// readmeRunners are the README's commands that TestNewcomerPath does not
// run as written, each with where it runs: a test of its own, or CI.
var readmeRunners = map[string]string{
	"sudo make test": ".ci/run", // CI's command, on a fresh machine
	"make check":     ".ci/run", // lint-go and every test: make test runs both, and more
	"make package && sudo dpkg -i dist/tablefull_*.deb":              "TestDebianPackage", // built, linted, installed, removed
	"go install github.com/tablefull/tablefull/cmd/tablefull@latest": "TestNewcomerPath",  // its module checked; not published, not fetched
	"make image": "TestImage",
	"go test ./cmd/tablefull/rooms/house -update-notice": "TestNoticeListsEveryModule",
	"go list -deps":                 "TestNoticeListsEveryModule", // how NOTICE is made, said in prose
	"tablefull version":             "TestNewcomerPath",
	"make run":                      "TestNewcomerPath",
	"sudo make install":             "TestNewcomerPath",
	"go install ./cmd/tablefull":    "TestNewcomerPath",
	"tablefull":                     "TestNewcomerPath", // the tour's own line
	"tablefull demo":                "TestNewcomerPath",
	"sudo tablefull lab table-full": "TestNewcomerPath",
}

// readmeCommand is a command the README gives in its prose: a code span
// that starts as one does.
var readmeCommand = regexp.MustCompile("`((?:sudo |make |go |tablefull)[^`]*)`")

// ciRunsMakeTest is .ci/run's line that runs the suite: make test, in a
// session of its own that the script waits for.
var ciRunsMakeTest = regexp.MustCompile(`(?m)^(?:setsid )?make test(?: &)?$`)

// TestEveryREADMECommandIsRun: every command the README gives — its
// blocks' lines (the tour, the run and test commands) and the code spans
// of its prose — is run as written somewhere: by the newcomer's test
// (which runs the tour's lines and the run and install lines from the
// README's own words), by a test named here that exists, or by CI. A
// command added to the README with no runner fails here, and so does a
// runner left for a command the README no longer gives.
func TestEveryREADMECommandIsRun(t *testing.T) {
	b, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	given := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(clitest.ReadmeBlock(t, readme, "Run it")), "\n") {
		command, _, _ := strings.Cut(line, "#") // the tour's block TestNewcomerPath runs line by line
		given[strings.TrimSpace(command)] = true
	}
	for _, m := range readmeCommand.FindAllStringSubmatch(readme, -1) {
		given[m[1]] = true
	}
	src := testSources(t)
	for command := range given {
		runner, ok := readmeRunners[command]
		switch {
		case !ok:
			t.Errorf("the README gives %q, and nothing here runs it: run it in TestNewcomerPath, or name its test in readmeRunners", command)
		case runner == ".ci/run":
			ci, _ := os.ReadFile("../../../../.ci/run")
			if !ciRunsMakeTest.Match(ci) {
				t.Errorf("%q is said to run in CI, and .ci/run does not run make test", command)
			}
		case !strings.Contains(src, "func "+runner+"(t *testing.T)"):
			t.Errorf("%q is said to run in %s, which is no test here", command, runner)
		}
	}
	for command := range readmeRunners {
		if !given[command] {
			t.Errorf("readmeRunners names %q, which the README no longer gives", command)
		}
	}
}

// testSources are every room's test files, joined.
func testSources(t *testing.T) string {
	t.Helper()
	names, _ := filepath.Glob(clitest.Repo(t, "cmd", "tablefull", "rooms", "*", "*_test.go"))
	var b strings.Builder
	for _, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	return b.String()
}
