package exporter

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	tf "github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
)

// TestExporterMetricsLint: promtool check metrics finds nothing in a
// scrape of a pinned table.
func TestExporterMetricsLint(t *testing.T) {
	if _, err := exec.LookPath("promtool"); err != nil {
		t.Skip("needs promtool (Debian's prometheus package)")
	}
	e := New("test")
	for i := range 3 {
		s := counted(sample(i, 4096, 4096, uint64(i)), i)
		s.Census = &tf.Census{Total: 4096, At: s.Time, Owners: &tf.Owners{Top: []tf.OwnerCount{{Owner: tf.Owner{Comm: "duckdb", Group: "a.service", Kind: "unit"}, N: 9}}}}
		s.Listeners = &tf.Listeners{Pressed: []tf.Listener{{Addr: "127.0.0.1:8080", Queue: 5, Backlog: 4}}}
		s.Who = &tf.Who{Conns: []tf.ConnFlow{{Owner: tf.Owner{Comm: "duckdb", Group: "a.service", Kind: "unit"}, Dest: "10.0.0.1:80", Opened: 9}},
			Drops: []tf.DropFlow{{Owner: tf.Owner{Group: "a.service", Kind: "unit"}, N: 2}}}
		e.Observe(s)
	}
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = strings.NewReader(string(body))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	if _, err := p.TextToMetricFamilies(strings.NewReader(string(body))); err != nil {
		t.Errorf("exposition does not parse with legacy names: %v", err)
	}
}

// TestExporterLeavesOutWhatWasNotRead: parts not read are up 0 and their
// series are absent — no verdict judged from them, no kernel lines counted
// from a log not read — never 0.
func TestExporterLeavesOutWhatWasNotRead(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	for i := range 3 {
		s := sample(i, 500, 500, 0)
		s.Absent = tf.Parts(0).With(tf.PartCPU).With(tf.PartTCP)
		s.CPU = nil
		s.Kernel = tf.KernelLog{Note: "needs root"}
		e.Observe(s)
	}
	m := scrape(t, srv.URL)
	for part, want := range map[string]float64{"cpu": 0, "tcp": 0, "disks": 1, "kernel_log": 0, "conntrack": 1} {
		if got := m["tablefull_up"].v("part=" + part + ","); got != want {
			t.Errorf("up{part=%s} = %v, want %v", part, got, want)
		}
	}
	for _, kind := range []string{"client_stalled_on_network", "server_cpu_bound", "listen_overflow", "port_exhaustion"} {
		if m["tablefull_verdict"].has("kind=" + kind + ",") {
			t.Errorf("tablefull_verdict{kind=%s} exported from a part not read", kind)
		}
	}
	if !m["tablefull_verdict"].has("kind=table_full,") || !m["tablefull_verdict"].has("kind=disk_bound,") {
		t.Errorf("the verdicts judged from what was read are missing")
	}
	if m["tablefull_kernel_table_full_lines_total"] != nil || m["tablefull_kernel_suppressed_callbacks_total"] != nil {
		t.Errorf("kernel lines counted from a log not read")
	}
}

// TestExporterNamespaces: the fullest namespaces have series of their
// own, labelled by name, kind and inode; the rest are counted in two;
// a stream that repeats a namespace does not break the scrape.
func TestExporterNamespaces(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	s := sample(0, 10, 10, 0)
	s.Namespaces = &tf.Namespaces{Rows: []tf.NetNS{
		{Inode: 7, Name: "3f2a9c1e", Kind: "pod", PID: 42, Count: 4096, Drops: 900, DropsRead: true},
		{Inode: 7, Name: "3f2a9c1e", Kind: "pod", PID: 42, Count: 4096, Drops: 900, DropsRead: true},
		{Inode: 9, Name: "node", Kind: "netns", PID: 44, Count: 2458, Drops: 300, InsertDrops: 280, DropsRead: true},
		{Inode: 8, Name: "bad\xffname", Kind: "process", PID: 43, Count: 3}}, Others: 480, OthersEntries: 1200}
	e.Observe(s)
	m := scrape(t, srv.URL)
	if got := m["tablefull_netns_conntrack_entries"].v("inode=7,kind=pod,netns=3f2a9c1e,"); got != 4096 {
		t.Errorf("pod entries %v (%v)", got, m["tablefull_netns_conntrack_entries"])
	}
	if got := m["tablefull_netns_conntrack_drops_total"].v("inode=7,kind=pod,netns=3f2a9c1e,"); got != 900 {
		t.Errorf("pod drops %v", got)
	}
	// a NAT's or a clash's drops are not a full table's: the alert on
	// drops_total does not fire for them
	if d, i := m["tablefull_netns_conntrack_drops_total"].v("inode=9,kind=netns,netns=node,"), m["tablefull_netns_conntrack_insert_drops_total"].v("inode=9,kind=netns,netns=node,"); d != 20 || i != 280 {
		t.Errorf("a namespace's 300 drops, 280 on insert: drops_total %v, insert_drops_total %v; want 20 and 280", d, i)
	}
	if len(m["tablefull_netns_conntrack_entries"].values) != 3 || m["tablefull_netns_others"].v("") != 480 {
		t.Errorf("series %v, others %v", m["tablefull_netns_conntrack_entries"].values, m["tablefull_netns_others"])
	}
}

// TestExporterNamespacesBounded: a node of 500 pods exports series for
// the 20 fullest and two for the rest, however many there are.
func TestExporterNamespacesBounded(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	var rows []tf.NetNS
	for i := range 500 {
		rows = append(rows, tf.NetNS{Inode: uint64(i + 1), Name: fmt.Sprintf("pod-%03d", i), Kind: "pod", PID: 1000 + i, Count: uint64(i)})
	}
	ns := tf.SortNamespaces(rows)
	ns.Unread = 45 // over the cap: not read at all
	s := sample(0, 10, 10, 0)
	s.Namespaces = &ns
	e.Observe(s)
	m := scrape(t, srv.URL)
	if got := m["tablefull_netns_unread"].v(""); got != 45 {
		t.Errorf("namespaces not read %v, want 45", got)
	}
	if n := len(m["tablefull_netns_conntrack_entries"].values); n != tf.MaxNamespaceRows {
		t.Errorf("%d namespace series, want %d", n, tf.MaxNamespaceRows)
	}
	if m["tablefull_netns_others"].v("") != 480 || m["tablefull_netns_conntrack_entries"].v("inode=500,kind=pod,netns=pod-499,") != 499 {
		t.Errorf("others %v; the fullest %v", m["tablefull_netns_others"].v(""), m["tablefull_netns_conntrack_entries"].v("inode=500,kind=pod,netns=pod-499,"))
	}
}

// TestExporterTuningDrift: each knob tablefull persisted has a drift
// series, 1 for the one that reads otherwise live, 0 for the one that
// holds, once however often it is named (a stream's unknown knobs are
// dropped where it lands: TestDriftOnTheWire), and without a drift check
// there is no series at all.
func TestExporterTuningDrift(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	s := sample(0, 10, 10, 0)
	e.Observe(s)
	if m := scrape(t, srv.URL); m["tablefull_tuning_drift"] != nil {
		t.Errorf("drift exported without a check: %v", m["tablefull_tuning_drift"])
	}
	s = sample(1, 10, 10, 0)
	s.Drift = &knob.Drifts{Checked: []string{knob.Max, knob.TimeWait, knob.Max},
		Drifted: []knob.Drift{{Knob: knob.Max, Persisted: "32768", Live: "4096"}}}
	e.Observe(s)
	m := scrape(t, srv.URL)
	if got := m["tablefull_tuning_drift"].v("knob=net.netfilter.nf_conntrack_max,"); got != 1 {
		t.Errorf("drifted max %v (%v)", got, m["tablefull_tuning_drift"])
	}
	if got := m["tablefull_tuning_drift"].v("knob=net.netfilter.nf_conntrack_tcp_timeout_time_wait,"); got != 0 || len(m["tablefull_tuning_drift"].values) != 2 {
		t.Errorf("series %v: want the two knobs, the held one 0", m["tablefull_tuning_drift"].values)
	}
}

// TestExporterNamespacesUp: up{part="namespaces"} is 1 when the walk read
// every user's processes, 0 when it could not (no CAP_SYS_PTRACE) or did
// not walk at all: a calm-looking 0 namespaces is never taken for none.
func TestExporterNamespacesUp(t *testing.T) {
	for _, c := range []struct {
		ns   *tf.Namespaces
		want float64
	}{
		{&tf.Namespaces{Rows: []tf.NetNS{{Inode: 9, Name: "cni-1", Kind: "netns", Count: 40}}}, 1},
		{&tf.Namespaces{Denied: true, Note: "other users' processes not readable"}, 0},
		{nil, 0},
	} {
		e := New("test")
		srv := httptest.NewServer(Handler(e, ""))
		s := sample(0, 500, 500, 0)
		s.Namespaces = c.ns
		e.Observe(s)
		if got := scrape(t, srv.URL)["tablefull_up"].v("part=namespaces,"); got != c.want {
			t.Errorf("namespaces %+v: up %v, want %v", c.ns, got, c.want)
		}
		srv.Close()
	}
}

// TestExporterEntriesUpOffByDesign: new entries are counted near the cap
// only, so a quiet host exports no up{part="entries"} at all (a generic
// tablefull_up == 0 alert does not fire on every quiet host); counting
// that failed is 0, counting that ran is 1.
func TestExporterEntriesUpOffByDesign(t *testing.T) {
	for _, c := range []struct {
		name    string
		entries tf.Entries
		has     bool
		want    float64
	}{
		{"far from the cap", tf.Entries{Note: tf.EntriesFarFromCap}, false, 0},
		{"failed", tf.Entries{Note: "need CAP_NET_ADMIN (ctnetlink events); TCP opens only"}, true, 0},
		{"counted", tf.Entries{Source: tf.EntriesEvents}, true, 1},
	} {
		e := New("test")
		srv := httptest.NewServer(Handler(e, ""))
		for i := range 2 {
			s := sample(i, 500, 500, 0)
			s.Entries = c.entries
			e.Observe(s)
		}
		m := scrape(t, srv.URL)["tablefull_up"]
		if has := m.has("part=entries,"); has != c.has || has && m.v("part=entries,") != c.want {
			t.Errorf("%s: exported %v, up %v; want exported %v, up %v", c.name, has, m.v("part=entries,"), c.has, c.want)
		}
		srv.Close()
	}
}
