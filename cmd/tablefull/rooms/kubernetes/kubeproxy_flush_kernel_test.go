package kubernetes

import (
	"bytes"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/report"
)

// fakeKubeProxy runs a process named kube-proxy as root from a root-owned
// executable (a copy of sleep) until the test ends: the flush watch runs
// where kube-proxy runs.
func fakeKubeProxy(t *testing.T) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("needs sleep")
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "kube-proxy")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	clitest.StartUntilEnd(t, exec.Command(exe, "600"))
}

// TestFlushNamesTheService: on a node where kube-proxy runs, with its
// nftables-mode rules for kube-system/kube-dns:dns, 1,000 UDP entries to
// the Service deleted at once (as kube-proxy's cleanup does)
// are said as ENTRIES FLUSHED naming the Service: in the console, in the
// recording's report and by the exporter fed the recording, which also
// counts the deletions.
func TestFlushNamesTheService(t *testing.T) {
	clitest.NeedKernel(t, "conntrack", "tmux")
	ns := clitest.LabNS(t)
	for _, a := range []string{"10.96.0.10", "10.244.1.7", "10.0.0.1"} {
		if _, err := ns.Output("ip", "addr", "add", a+"/32", "dev", "lo"); err != nil {
			t.Fatal(err)
		}
	}
	if err := kubeProxyModes[1].first(ns, "10.244.1.7"); err != nil {
		t.Fatal(err)
	}
	fakeKubeProxy(t)
	exe, _ := os.Executable()
	rec := filepath.Join(t.TempDir(), "flush.jsonl")
	record := ns.Command(exe, "record", rec, "--interval", "500ms")
	record.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	clitest.StartUntilEnd(t, record)
	console := clitest.StartTmuxArgv(t, 200, 50, []string{"env", "TABLEFULL_AS_MAIN=1", "ip", "netns", "exec", ns.Name, exe, "--interval", "500ms"})
	console.WaitFor("LIVE")
	time.Sleep(2 * time.Second) // both watches began: entries made from now on are reported when they end
	clitest.FloodService(t, ns, netip.MustParseAddrPort("10.96.0.10:53"), 1000, netip.MustParseAddr("10.0.0.1"))
	out, err := ns.Output("conntrack", "-D", "-p", "udp", "--orig-dst", "10.96.0.10")
	deleted := strings.Count(out, "dport=53 ")
	if err != nil || deleted != 1000 {
		t.Fatalf("conntrack -D: %v: %d deleted, want 1,000", err, deleted)
	}
	const said = "ENTRIES FLUSHED"
	const service = "kube-system/kube-dns:dns (udp 10.96.0.10:53)"
	console.WaitWithin(15*time.Second, said, service)
	time.Sleep(2 * time.Second) // the recording's watch ends the burst too
	b := clitest.StopRecording(t, record, rec)
	r, err := report.Build(bytes.NewReader(b), report.Options{Source: "flush"})
	if err != nil {
		t.Fatal(err)
	}
	if md := string(r.Markdown()); !strings.Contains(md, said) || !strings.Contains(md, service) {
		t.Errorf("the report does not say the flush and its Service:\n%s", md)
	}
	got, err := recording.ReadRecording(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	e := exporter.New("test")
	srv := httptest.NewServer(exporter.Handler(e, "/metrics"))
	defer srv.Close()
	flagged := false
	for _, s := range got.Samples {
		e.Observe(s)
		flagged = flagged || strings.Contains(clitest.ScrapeText(t, srv.URL+"/metrics"), `tablefull_verdict{kind="entries_flushed"} 1`)
	}
	body := clitest.ScrapeText(t, srv.URL+"/metrics")
	if !flagged || !strings.Contains(body, "tablefull_conntrack_user_deleted_entries_total "+strconv.Itoa(deleted)) {
		t.Errorf("the exporter fed the recording flagged the flush %v; its counter:\n%s", flagged, clitest.GrepLines(body, "user_deleted"))
	}
	var f *model.Flushes
	for _, s := range got.Samples {
		if s.Flushes != nil {
			f = s.Flushes
		}
	}
	if f == nil || len(f.Recent) != 1 || f.Recent[0].Entries != uint64(deleted) || f.Recent[0].Dests[0].Service != "kube-system/kube-dns:dns" {
		t.Errorf("the recording's flushes: %+v", f)
	}
}
