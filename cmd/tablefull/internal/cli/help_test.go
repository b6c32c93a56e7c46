package cli

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/helptext"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/tui"

	flag "github.com/spf13/pflag"
)

// foreignFlags are flags the README names that belong to other programs:
// kube-proxy's (--config, --conntrack-*), nft's (--noflush), systemctl's
// (--now), conntrack(8)'s (--reply-src), and --help.
var foreignFlags = map[string]bool{"--help": true, "--config": true, "--conntrack": true, "--noflush": true, "--now": true, "--reply-src": true}

// TestHelpAndREADMEAgree: every flag of every subcommand is in --help
// (made from the same flag sets) and in the README, and every flag the
// README names is one of ours or another program's on the list.
func TestHelpAndREADMEAgree(t *testing.T) {
	text := clitest.Manual(t)
	ours := map[string]bool{}
	helpText := help(subcommands[0])
	check := func(where string, fs *flag.FlagSet) {
		fs.VisitAll(func(f *flag.Flag) {
			name := "--" + f.Name
			ours[name] = true
			if !regexp.MustCompile(regexp.QuoteMeta(name) + `\b`).MatchString(text) {
				t.Errorf("%s %s is not in the README", where, name)
			}
			if !strings.Contains(helpText, name+" ") && !strings.Contains(helpText, name+"[") {
				t.Errorf("%s %s is not in --help", where, name)
			}
		})
	}
	global := flag.NewFlagSet("tablefull", flag.ContinueOnError)
	var o options
	o.register(global)
	check("every subcommand's", global)
	for _, c := range subcommands {
		if c.flags != nil {
			check("tablefull "+c.name, subcommandFlags(c))
		}
	}
	for _, name := range regexp.MustCompile(`--[a-z][a-z0-9.-]*[a-z0-9]`).FindAllString(text, -1) {
		if !ours[name] && !foreignFlags[name] {
			t.Errorf("the README names %s, which no subcommand takes", name)
		}
	}
}

// TestREADMEListsTestDeps: the README's list of what `sudo make test`
// installs is the Makefile's TEST_DEPS, word for word.
func TestREADMEListsTestDeps(t *testing.T) {
	mk, err := os.ReadFile("../../../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	readme := []byte(clitest.Manual(t))
	m := regexp.MustCompile(`(?m)^TEST_DEPS := (.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no TEST_DEPS in the Makefile")
	}
	if want := "`sudo make test` installs `" + string(m[1]) + "`"; !strings.Contains(string(readme), want) {
		t.Errorf("the README does not say %s", want)
	}
}

// TestREADMECommandBlock: the README's command block is --help's usage
// lines, word for word.
func TestREADMECommandBlock(t *testing.T) {
	readme := []byte(clitest.Manual(t))
	var want strings.Builder
	for _, l := range strings.Split(strings.TrimRight(strings.TrimPrefix(usage(), helptext.Head), "\n"), "\n") {
		want.WriteString(strings.TrimPrefix(l, "  ") + "\n")
	}
	if !strings.Contains(string(readme), "## Commands and flags\n\n```\n"+want.String()+"```") {
		t.Errorf("the README's command block is not --help's; it should read:\n%s", want.String())
	}
}

// TestREADMEListsEveryVerdictKind: the README's tablefull_verdict row
// names every kind the exporter serves a series for.
func TestREADMEListsEveryVerdictKind(t *testing.T) {
	readme := []byte(clitest.Manual(t))
	var row string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `tablefull_verdict{kind}`") {
			row = l
		}
	}
	for _, k := range diagnose.ProblemKinds() {
		if !strings.Contains(row, "`"+k.Label()+"`") {
			t.Errorf("the README's tablefull_verdict row lacks %s", k.Label())
		}
	}
}

// TestHelpCommand: `tablefull help` and `help help` print the whole help
// (never cobra's stock text), `help SUBCOMMAND` that subcommand's, and a
// name that is no subcommand is a usage error (exit 2), not the whole
// help and success. A subcommand that reads no host does not list the
// host's flags.
func TestHelpCommand(t *testing.T) {
	whole := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := Run(args, &out, &errb)
		return out.String(), errb.String(), code
	}
	full, _, _ := whole("--help")
	for _, args := range [][]string{{"help"}, {"help", "help"}} {
		if out, _, code := whole(args...); code != 0 || out != full {
			t.Errorf("%v: exit %d, printed %.60q; want the whole help", args, code, out)
		}
	}
	if out, _, code := whole("help", "tune"); code != 0 || !strings.Contains(out, "tablefull tune [--set K=V]") {
		t.Errorf("help tune: exit %d, %.80q", code, out)
	}
	for _, name := range []string{"version", "report", "alive", "man", "demo"} {
		if out, _, _ := whole(name, "--help"); strings.Contains(out, "--state-dir") || strings.Contains(out, "--etc") {
			t.Errorf("%s --help lists the host's flags, which it does nothing with:\n%s", name, out)
		}
	}
	if out, _, _ := whole("tune", "--help"); !strings.Contains(out, "--state-dir") {
		t.Errorf("tune --help lacks the flags every subcommand takes:\n%s", out)
	}
	if out, errText, code := whole("help", "NOSUCH"); code != 2 || out != "" || !strings.Contains(errText, `unknown subcommand "NOSUCH"`) {
		t.Errorf("help NOSUCH: exit %d, stdout %.60q, stderr %q; want exit 2 naming it", code, out, errText)
	}
}

// TestREADMEListsEveryHeaderState: the README's account of the header
// names every mode the header can show.
func TestREADMEListsEveryHeaderState(t *testing.T) {
	readme := []byte(clitest.Manual(t))
	_, rest, _ := strings.Cut(string(readme), "- **Header**:") // docs/console.md
	bullet, _, _ := strings.Cut(rest, "\n- **")
	for _, s := range tui.HeaderStates {
		if !strings.Contains(bullet, " "+s+" ") {
			t.Errorf("the README's header bullet does not name %s:\n%s", s, bullet)
		}
	}
}
