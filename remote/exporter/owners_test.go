package exporter

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tf "github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
)

// TestExporterOwners: a census's owners and the pressed listeners come
// out as bounded series, owners sharing a label set summed; a minute
// after the census they are left out, not zero.
func TestExporterOwners(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	s := sample(0, 4096, 4096, 0)
	s.Census = &tf.Census{Total: 4096, At: s.Time, Owners: &tf.Owners{Top: []tf.OwnerCount{
		{Owner: tf.Owner{Comm: "duckdb", PID: 4242, Group: "ingest.service", Kind: "unit"}, N: 3000},
		{Owner: tf.Owner{Comm: "duckdb", PID: 4243, Group: "ingest.service", Kind: "unit"}, N: 500},
		{Owner: tf.Owner{Comm: "envoy", PID: 9, Group: "3f2a-1b", Kind: "pod"}, N: 90},
		{Owner: tf.Owner{Comm: "nginx\x1b[2J", PID: 3, Group: "nginx.service", Kind: "unit"}, Accepted: true, N: 40},
		{Owner: tf.Owner{Comm: "dnsmasq", PID: 5, Group: "dnsmasq.service", Kind: "unit"}, Served: true, N: 30, Peer: "udp/53", PeerN: 30},
	}}}
	s.Listeners = &tf.Listeners{Pressed: []tf.Listener{{Addr: "127.0.0.1:8080", Queue: 5, Backlog: 4, Owner: tf.Owner{Comm: "slow"}}}}
	e.Observe(s)
	m := scrape(t, srv.URL)
	own := m["tablefull_conntrack_owner_entries"]
	if got := own.v("cgroup=ingest.service,comm=duckdb,netns=,pod=,role=opened,"); got != 3500 {
		t.Errorf("duckdb %v (%v)", got, own)
	}
	if got := own.v("cgroup=,comm=envoy,netns=,pod=3f2a-1b,role=opened,"); got != 90 {
		t.Errorf("envoy %v (%v)", got, own)
	}
	if got := own.v(`cgroup=nginx.service,comm=nginx\x1b[2J,netns=,pod=,role=accepted,`); got != 40 {
		t.Errorf("nginx %v (%v)", got, own)
	}
	if got := own.v("cgroup=dnsmasq.service,comm=dnsmasq,netns=,pod=,role=served,"); got != 30 {
		t.Errorf("a DNS server's lookups, their clients gone: %v (%v)", got, own)
	}
	if len(own.values) != 4 {
		t.Errorf("owner series %v", own.values)
	}
	if q, b := m["tablefull_listener_queue"].v("comm=slow,listen=127.0.0.1:8080,"), m["tablefull_listener_backlog"].v("comm=slow,listen=127.0.0.1:8080,"); q != 5 || b != 4 {
		t.Errorf("listener queue %v backlog %v", q, b)
	}
	later := sample(61, 4096, 4096, 0)
	later.Time = s.Time.Add(diagnose.CensusFresh + time.Second)
	e.Observe(later)
	m = scrape(t, srv.URL)
	if _, ok := m["tablefull_conntrack_owner_entries"]; ok {
		t.Errorf("owners exported past their census's freshness: %v", m["tablefull_conntrack_owner_entries"])
	}
	if _, ok := m["tablefull_listener_queue"]; ok {
		t.Error("listeners exported past their freshness")
	}
}

// TestExporterWho: the probes' counts come out as counters by owner
// (rate() makes them a second's); while the probes do not count they are
// left out, and they go on from where they were when the probes count
// again.
func TestExporterWho(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	churn := tf.Owner{Comm: "duckdb", PID: 4242, Group: "ingest.service", Kind: "unit"}
	counted := func(i int) tf.Sample {
		s := sample(i, 4096, 4096, 0)
		s.Who = &tf.Who{Conns: []tf.ConnFlow{{Owner: churn, Dest: "10.5.5.14:3900", Opened: 120}},
			Drops: []tf.DropFlow{{Owner: tf.Owner{Group: "ingest.service", Kind: "unit"}, N: 30}, {Owner: tf.Owner{Group: "ab12", Kind: "pod"}, N: 3}}}
		return s
	}
	for i := range 3 {
		e.Observe(counted(i))
	}
	const conns, drops = "tablefull_owner_new_connections_total", "tablefull_owner_drops_total"
	m := scrape(t, srv.URL)
	if got := m[conns].v("cgroup=ingest.service,comm=duckdb,netns=,peer=10.5.5.14:3900,pod=,"); got != 360 {
		t.Errorf("new connections %v (%v)", got, m[conns])
	}
	if got := m[drops].v("cgroup=ingest.service,netns=,pod=,"); got != 90 {
		t.Errorf("drops %v (%v)", got, m[drops])
	}
	if got := m[drops].v("cgroup=,netns=,pod=ab12,"); got != 9 {
		t.Errorf("pod drops %v", got)
	}
	off := sample(3, 4096, 4096, 0)
	off.Who = &tf.Who{Note: "eBPF refused"}
	e.Observe(off)
	if _, ok := scrape(t, srv.URL)[conns]; ok {
		t.Error("probes off, their series still exported")
	}
	e.Observe(counted(4))
	if got := scrape(t, srv.URL)[conns].v("cgroup=ingest.service,comm=duckdb,netns=,peer=10.5.5.14:3900,pod=,"); got != 480 {
		t.Errorf("the counter after the probes came back: %v, want 480 (it goes on)", got)
	}
}

// TestExporterWhoBounded: however many owners and peers the probes
// count, at most maxOwnerSeries label sets are kept (the one that rose
// longest ago goes first), and one quiet for ownerSeriesIdle goes.
func TestExporterWhoBounded(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	steady := tf.ConnFlow{Owner: tf.Owner{Comm: "steady", Group: "steady.service", Kind: "unit"}, Dest: "10.0.0.1:80", Opened: 1}
	for i := range 200 {
		s := sample(i, 4096, 4096, 0)
		s.Who = &tf.Who{Conns: []tf.ConnFlow{steady, {Owner: tf.Owner{Comm: "scan", Group: "scan.service", Kind: "unit"}, Dest: fmt.Sprintf("10.1.%d.%d:80", i/250, i%250), Opened: 5}}}
		e.Observe(s)
	}
	m := scrape(t, srv.URL)["tablefull_owner_new_connections_total"]
	if len(m.values) != maxOwnerSeries {
		t.Errorf("%d owner series after 200 peers, want %d", len(m.values), maxOwnerSeries)
	}
	if got := m.v("cgroup=steady.service,comm=steady,netns=,peer=10.0.0.1:80,pod=,"); got != 200 {
		t.Errorf("the steady owner's count %v, want 200: a label set still rising was evicted", got)
	}
	later := sample(200, 4096, 4096, 0)
	later.Time = later.Time.Add(ownerSeriesIdle + time.Minute)
	later.Who = &tf.Who{Conns: []tf.ConnFlow{steady}}
	e.Observe(later)
	if m := scrape(t, srv.URL)["tablefull_owner_new_connections_total"]; len(m.values) != 1 {
		t.Errorf("after %s quiet, %d series (want only the one still rising)", ownerSeriesIdle, len(m.values))
	}
}

// TestExporterProbesLost: what the probes' full maps could not count is
// a counter (their blinding said, with how much), absent until the
// probes were read once: never loaded is not zero lost.
func TestExporterProbesLost(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	e.Observe(sample(0, 100, 4096, 0))
	if _, ok := scrape(t, srv.URL)["tablefull_owner_probes_lost_total"]; ok {
		t.Error("probes never loaded, and their lost count is exported")
	}
	for i := 1; i <= 3; i++ {
		s := sample(i, 4096, 4096, 0)
		s.Who = &tf.Who{Lost: 7}
		e.Observe(s)
	}
	if got := scrape(t, srv.URL)["tablefull_owner_probes_lost_total"].v(""); got != 21 {
		t.Errorf("probes lost %v, want 21", got)
	}
}

// TestOwnerLabels: a pod by its UID, another namespace by its name,
// anything else by its cgroup; a namespace never poses as a cgroup.
func TestOwnerLabels(t *testing.T) {
	for _, c := range []struct {
		o                  tf.Owner
		cgroup, pod, netns string
	}{
		{tf.Owner{Group: "3f2a-1b", Kind: "pod"}, "", "3f2a-1b", ""},
		{tf.Owner{Group: "dg-plain", Kind: "netns", Comm: "ab", PID: 7}, "", "", "dg-plain"},
		{tf.Owner{Group: "churn.service", Kind: "unit"}, "churn.service", "", ""},
	} {
		if cg, pod, ns := ownerLabels(c.o); cg != c.cgroup || pod != c.pod || ns != c.netns {
			t.Errorf("%+v: cgroup %q pod %q netns %q", c.o, cg, pod, ns)
		}
	}
}

// TestPodNamesOnlyWhereOwnersAre: a pod's or container's namespace is
// named on /metrics only where the owners' series are served (a scraper
// that is not just anyone); elsewhere it is its inode and kind alone,
// while an ip netns name stays.
func TestPodNamesOnlyWhereOwnersAre(t *testing.T) {
	for _, owners := range []bool{true, false} {
		e := New("test")
		e.Owners = owners
		srv := httptest.NewServer(Handler(e, ""))
		s := sample(0, 4096, 4096, 0)
		s.Namespaces = &tf.Namespaces{Rows: []tf.NetNS{
			{Inode: 4026532001, Name: "payments/billing-api-7d9f8-abcde", Kind: "pod", PID: 7, Count: 300},
			{Inode: 4026532002, Name: "3f2a1b2c3d4e", Kind: "container", PID: 8, Count: 20},
			{Inode: 4026532003, Name: "lab", Kind: "netns", Count: 10}}}
		e.Observe(s)
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		body := string(b)
		named := strings.Contains(body, "billing-api") || strings.Contains(body, "3f2a1b2c3d4e")
		if named != owners || !strings.Contains(body, `netns="lab"`) || !strings.Contains(body, `inode="4026532001"`) {
			t.Errorf("owners' series served %v: pod and container names on /metrics %v:\n%s", owners, named, body)
		}
	}
}
