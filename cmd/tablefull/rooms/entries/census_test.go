package entries

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// censusViaAgent is the first census the agent inside ns streams, asked
// for as the console asks (nil if none came within 10 s).
func censusViaAgent(t *testing.T, ns *netns.NS) *model.Census {
	t.Helper()
	t.Setenv("TABLEFULL_AS_MAIN", "1")
	argv, err := agent.NetnsArgv(ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	p := &agent.Process{Argv: argv, MinBackoff: time.Hour}
	p.SetCensus(true)
	p.Start(200 * time.Millisecond)
	defer p.Stop()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if c := clitest.NextSample(t, p).Census; c != nil {
			return c
		}
	}
	return nil
}

// TestCensusKnownMix: counts on a namespace holding a known mix of
// entries inserted through netlink match exactly, and agree with
// conntrack -L.
func TestCensusKnownMix(t *testing.T) {
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	if err := ns.Insert(clitest.KnownMix()); err != nil {
		t.Fatal(err)
	}
	c := clitest.CensusIn(t, ns)
	if c.Total != 250 || c.ByProto["tcp"] != 220 || c.ByProto["udp"] != 30 {
		t.Errorf("totals %d %v, want 250: tcp 220, udp 30", c.Total, c.ByProto)
	}
	if c.TCPState["ESTABLISHED"] != 150 || c.TCPState["TIME_WAIT"] != 70 {
		t.Errorf("tcp states %v", c.TCPState)
	}
	if len(c.TopPorts) < 2 || c.TopPorts[0] != (tally.Count{Key: "tcp/3900", N: 220}) || c.TopPorts[1] != (tally.Count{Key: "udp/53", N: 30}) {
		t.Errorf("top ports %v", c.TopPorts)
	}
	if c.TopDests[0] != (tally.Count{Key: "10.5.5.14", N: 220}) || c.Approximate {
		t.Errorf("top destinations %v approximate=%v", c.TopDests, c.Approximate)
	}
	// The same census through the agent, as the console asks for it.
	if viaAgent := censusViaAgent(t, ns); viaAgent == nil || viaAgent.Total != 250 || viaAgent.TCPState["TIME_WAIT"] != 70 {
		t.Errorf("census through the agent: %+v", viaAgent)
	}
	list, err := ns.Output("conntrack", "-L")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(list, "TIME_WAIT"); n != c.TCPState["TIME_WAIT"] {
		t.Errorf("conntrack -L shows %d TIME_WAIT, census %d", n, c.TCPState["TIME_WAIT"])
	}
}

// TestCensusEmptyTable: the census of an empty table says [] for its
// lists (not null) and when it ran and how long it took (not year 1).
func TestCensusEmptyTable(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64}) // its own namespace's few entries
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	exe, _ := os.Executable()
	cmd := ns.Command(exe, "census", "--json")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("census: %v", err)
	}
	for _, want := range []string{`"top_dst_ports": []`, `"top_sources": []`, `"top_destinations": []`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("census lacks %s:\n%s", want, out)
		}
	}
	c := clitest.CensusIn(t, ns)
	if c.At.Before(time.Now().Add(-time.Minute)) || c.Took <= 0 {
		t.Errorf("census at %v took %v: not when it ran", c.At, c.Took)
	}
}
