package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/sources/netns"
)

// TestNetnsAgentAndRecording: --netns runs the agent inside a namespace
// holding a known number of entries; the console's feed shows that
// namespace's numbers, not the host's; a recording of the same feed
// replays to the same verdicts.
func TestNetnsAgentAndRecording(t *testing.T) {
	clitest.NeedKernel(t)
	t.Setenv("TABLEFULL_AS_MAIN", "1")
	clitest.LowerMax(t, 48)
	ns := clitest.LabNS(t)
	const entries = 37
	clitest.HoldEntries(t, ns, entries)
	argv, err := agent.NetnsArgv(ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	p := &agent.Process{Argv: argv, Name: ns.Name, MinBackoff: 100 * time.Millisecond}
	p.Start(200 * time.Millisecond)
	defer p.Stop()
	dir := t.TempDir()
	tee := &recording.Tee{Feed: p, Dir: dir}
	first := clitest.NextSample(t, tee)
	if first.Conntrack.Count < entries || first.Conntrack.Count > entries+5 {
		t.Errorf("namespace count %d, want about %d (host namespace is untracked)", first.Conntrack.Count, entries)
	}
	// The same namespace named by its path (nsenter), as for a container.
	byPath, err := agent.NetnsArgv(ns.Path())
	if err != nil {
		t.Fatal(err)
	}
	pp := &agent.Process{Argv: byPath, MinBackoff: time.Hour}
	pp.Start(200 * time.Millisecond)
	if s := clitest.NextSample(t, pp); s.Conntrack.Count < entries || s.Conntrack.Count > entries+5 {
		t.Errorf("--netns %s: count %d, want about %d", ns.Path(), s.Conntrack.Count, entries)
	}
	pp.Stop()
	path, on, err := tee.Toggle()
	if err != nil || !on {
		t.Fatalf("start recording: %v", err)
	}
	srv := &netns.Server{Body: []byte("x\n")}
	if err := ns.Serve("127.0.0.1:18082", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go ns.Run(netns.Load{Addr: srv.Addr(), Workers: 4, Requests: 60, DialTimeout: 200 * time.Millisecond, Deadline: 2 * time.Second})
	live := diagnose.NewAnalyzer(100)
	var liveVerdicts []verdict.Kind
	for range 8 {
		f := live.Add(clitest.NextSample(t, tee))
		liveVerdicts = append(liveVerdicts, f.Verdict().Kind)
	}
	if _, on, err := tee.Toggle(); err != nil || on {
		t.Fatalf("stop recording: %v", err)
	}
	rec, err := clitest.ReadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	replayed := diagnose.NewAnalyzer(100)
	var replayVerdicts []verdict.Kind
	for _, s := range rec.Samples {
		replayVerdicts = append(replayVerdicts, replayed.Add(s).Verdict().Kind)
	}
	if !slices.Contains(liveVerdicts, verdict.TableFull) {
		t.Errorf("live verdicts %v never say TABLE FULL: the comparison proves little", liveVerdicts)
	}
	if fmt.Sprint(replayVerdicts) != fmt.Sprint(liveVerdicts) {
		t.Errorf("replay verdicts %v, live %v", replayVerdicts, liveVerdicts)
	}
	if filepath.Dir(path) != dir || rec.Host.Name == "" {
		t.Errorf("recording %s host %+v", path, rec.Host)
	}
	os.Remove(path)
}
