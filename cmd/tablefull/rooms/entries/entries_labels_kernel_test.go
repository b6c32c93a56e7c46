package entries

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"github.com/tablefull/tablefull/sources/nsenter"
)

// labelsConf is the test's connlabel.conf: one label past the first 64
// bits, so both words of the kernel's bitmap are read.
const labelsConf = "# the test's labels\n5 five\n7 seven\n70 high\n"

// labelledTable are entries conntrack -I makes, each with its labels.
var labelledTable = [][]string{
	{"-p", "udp", "-s", "10.0.0.1", "-d", "10.0.0.2", "--sport", "1", "--dport", "2", "--label-add", "five"},
	{"-p", "udp", "-s", "10.0.0.1", "-d", "10.0.0.3", "--sport", "1", "--dport", "2", "--label-add", "five,seven"},
	{"-p", "udp", "-s", "10.0.0.1", "-d", "10.0.0.4", "--sport", "1", "--dport", "2"},
	{"-p", "tcp", "-s", "10.0.0.1", "-d", "10.0.0.5", "--sport", "5", "--dport", "80", "--state", "ESTABLISHED", "--label-add", "high"},
	{"-p", "tcp", "-s", "10.0.0.1", "-d", "10.0.0.6", "--sport", "6", "--dport", "80", "--state", "ESTABLISHED", "--label-add", "five,high"},
}

// TestEntriesSpeakConntracksLabels: -l, as conntrack(8) takes it — a
// name, comma-separated names, -l again — lists through tablefull
// entries and through the words of / and an agent exactly the entries
// conntrack -L -l lists, both reading the names from
// /etc/xtables/connlabel.conf (an overlay of /etc in a private mount
// namespace: the host's /etc is not written); a name the file lacks is
// refused by both.
func TestEntriesSpeakConntracksLabels(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64}) // its own namespace's few entries
	clitest.NeedKernel(t, "conntrack", "unshare")
	ns := clitest.LabNS(t)
	// a rule that sets a label makes the namespace keep labels at all
	if err := ns.Nft("table ip labelled {\n\tchain out {\n\t\ttype filter hook output priority 0;\n\t\tct label set 5\n\t}\n}\n"); err != nil {
		t.Fatal(err)
	}
	upper, work := t.TempDir(), t.TempDir()
	conf := filepath.Join(upper, "xtables", "connlabel.conf")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte(labelsConf), 0o644); err != nil {
		t.Fatal(err)
	}
	withEtc := func(argv ...string) *exec.Cmd { // argv in ns, with the overlay's /etc
		script := `mount -t overlay overlay -o lowerdir=/etc,upperdir="$1",workdir="$2" /etc && shift 2 && exec ip netns exec "$@"`
		return exec.Command("unshare", append([]string{"-m", "sh", "-c", script, "sh", upper, work, ns.Name}, argv...)...)
	}
	for _, e := range labelledTable {
		if out, err := withEtc(append(append([]string{"conntrack", "-I"}, e...), "-t", "600")...).CombinedOutput(); err != nil {
			t.Fatalf("conntrack -I %v: %v %s", e, err, out)
		}
	}
	orig := sources.LabelsFile
	sources.LabelsFile = conf
	t.Cleanup(func() { sources.LabelsFile = orig })
	opened, err := nsenter.Open(ns.Path())
	if err != nil {
		t.Fatal(err)
	}
	list, _, _ := sources.NetnsEntries(opened, t.TempDir())
	listed := 0
	for _, filter := range [][]string{{"-l", "five"}, {"-l", "seven"}, {"-l", "high"}, {"-l", "five", "-l", "high"}, {"-l", "five,seven"}, {"--label", "five", "-p", "udp"}} {
		want := labelledTuples(t, withEtc(append([]string{"conntrack", "-L"}, filter...)...))
		listed += len(want)
		exe, _ := os.Executable()
		cli := withEtc(append([]string{exe, "entries", "--json", "--limit", "100"}, filter...)...)
		cli.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
		out, err := cli.Output()
		if err != nil {
			t.Errorf("entries %v: %v", filter, err)
			continue
		}
		if got := entriesTuples(t, string(out)); !slices.Equal(got, want) {
			t.Errorf("filter %v:\ntablefull entries %v\nconntrack -L      %v", filter, got, want)
		}
		sameThroughWords(t, list, filter, want)
	}
	if listed == 0 {
		t.Fatal("conntrack -L -l listed nothing: no entry holds a label")
	}
	if out, err := withEtc("conntrack", "-L", "-l", "nine").CombinedOutput(); err == nil || !strings.Contains(string(out), "unknown label") {
		t.Errorf("conntrack -L -l nine: %v %s: the test's yardstick takes a name its file lacks", err, out)
	}
	exe, _ := os.Executable()
	bad := withEtc(exe, "entries", "-l", "nine")
	bad.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := bad.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--label nine: not a label of connlabel.conf") {
		t.Errorf("entries -l nine: %v %s: want exit 2, saying it is not a label of connlabel.conf", err, out)
	}
}

// labelledTuples are the tuples conntrack -L lists when cmd runs it.
func labelledTuples(t *testing.T, cmd *exec.Cmd) []string {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return listedTuples(string(out))
}
