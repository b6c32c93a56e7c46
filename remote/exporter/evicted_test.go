package exporter

import (
	"github.com/tablefull/tablefull/model"
	"net/http/httptest"
	"testing"
)

// TestEvictedNotKnownIsNotServed: on a kernel whose DESTROY events carry
// no time left (before 5.11) the evictions are not known, so their
// series are absent, not 0, while the new entries are still counted.
func TestEvictedNotKnownIsNotServed(t *testing.T) {
	e := New("test")
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	for i := 2; i < 6; i++ {
		s := counted(sample(i, 4000, 4000, 0), i)
		s.Entries.Evicted, s.Entries.EvictedUnknown = model.ClassCounts{}, true
		e.Observe(s)
	}
	m := scrape(t, srv.URL)
	if m["tablefull_conntrack_new_entries_total"].v("class=udp,") != 2100 || m["tablefull_conntrack_evicted_entries_total"] != nil {
		t.Errorf("new %v, evicted %v: want the new entries and no evicted series", m["tablefull_conntrack_new_entries_total"], m["tablefull_conntrack_evicted_entries_total"])
	}
}
