package exporter

import (
	"net/http/httptest"
	"testing"
	"time"

	tf "github.com/tablefull/tablefull/model"
)

// TestExporterFlushes: the entries user space deleted are a counter while
// the flush watch runs, and with the ENTRIES FLUSHED verdict absent where
// it does not (no kube-proxy): not watched is not 0.
func TestExporterFlushes(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	s := sample(0, 500, 500, 0)
	s.Flushes = &tf.Flushes{Note: "not watched: no kube-proxy runs here"}
	e.Observe(s)
	m := scrape(t, srv.URL)
	if m["tablefull_conntrack_user_deleted_entries_total"] != nil || m["tablefull_verdict"].has(`kind=entries_flushed,`) {
		t.Errorf("not watched, yet %v and the verdict %v", m["tablefull_conntrack_user_deleted_entries_total"], m["tablefull_verdict"].v(`kind=entries_flushed,`))
	}
	s = sample(1, 500, 500, 0)
	s.Flushes = &tf.Flushes{Watching: true, Deleted: 1200, Recent: []tf.Flush{{From: s.Time.Add(-time.Second), To: s.Time.Add(-time.Second), Entries: 1000, UDP: 1000,
		Dests: []tf.FlushDest{{Dest: "udp 10.96.0.10:53", Entries: 1000, Service: "kube-system/kube-dns:dns"}}}}}
	e.Observe(s)
	m = scrape(t, srv.URL)
	if got := m["tablefull_conntrack_user_deleted_entries_total"].v(""); got != 1200 {
		t.Errorf("user-deleted entries %v, want 1200", got)
	}
	if got := m["tablefull_verdict"].v(`kind=entries_flushed,`); got != 1 {
		t.Errorf("ENTRIES FLUSHED %v, want 1", got)
	}
}

// TestExporterIPVS: IPVS's connections and table size are gauges where
// ip_vs is loaded, and absent where it is not.
func TestExporterIPVS(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	s := sample(0, 500, 500, 0)
	s.IPVS = &tf.IPVS{}
	e.Observe(s)
	if m := scrape(t, srv.URL); m["tablefull_ipvs_connections"] != nil || m["tablefull_ipvs_connection_table_buckets"] != nil {
		t.Errorf("not present, yet exported")
	}
	s = sample(1, 500, 500, 0)
	s.IPVS = &tf.IPVS{Present: true, Size: 4096, Conns: 3, Services: 1}
	e.Observe(s)
	m := scrape(t, srv.URL)
	if m["tablefull_ipvs_connections"].v("") != 3 || m["tablefull_ipvs_connection_table_buckets"].v("") != 4096 {
		t.Errorf("ipvs %v of %v", m["tablefull_ipvs_connections"].v(""), m["tablefull_ipvs_connection_table_buckets"].v(""))
	}
}
