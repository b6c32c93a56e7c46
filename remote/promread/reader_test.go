package promread

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/remote/stream"
)

// TestReaderErrors: refused credentials, an empty fleet and a selector
// that would break out of tablefull's braces are clear errors, and no
// error or address shows a password.
func TestReaderErrors(t *testing.T) {
	var mu sync.Mutex // the fleet's queries come side by side
	var gotUser string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		mu.Lock()
		gotUser = user
		mu.Unlock()
		if pass != "right" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
	}))
	defer srv.Close()
	withUser := strings.Replace(srv.URL, "http://", "http://ops:wrong@", 1)
	r, err := New(Config{URL: withUser})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Where(), "wrong") {
		t.Errorf("the address shows the password: %s", r.Where())
	}
	_, err = r.Fleet(context.Background(), time.Now(), fleet.View{})
	mu.Lock()
	user := gotUser
	mu.Unlock()
	if err == nil || strings.Contains(err.Error(), "wrong") || user != "ops" {
		t.Errorf("refused credentials: %v (user %q)", err, user)
	}
	r, _ = New(Config{URL: srv.URL, BasicUser: "ops", BasicPassword: "right", Selector: `{job="tablefull"}`})
	if _, err := r.Fleet(context.Background(), time.Now(), fleet.View{}); !errors.Is(err, ErrNoInstances) || !strings.Contains(err.Error(), `job="tablefull"`) {
		t.Errorf("an empty fleet: %v", err)
	}
	if _, err := New(Config{URL: srv.URL, Selector: `job="x"} or vector(1) or {a="b"`}); !errors.Is(err, ErrSelector) {
		t.Errorf("a selector breaking out of the braces: %v", err)
	}
	if _, err := New(Config{URL: "ftp://host"}); err == nil {
		t.Error("an ftp URL was taken")
	}
}

// TestFleetBoundsLabels: a huge instance label costs a row no more than
// a stream's string may.
func TestFleetBoundsLabels(t *testing.T) {
	huge := strings.Repeat("h", 1<<20)
	srv := httptest.NewServer(fakeEngine(t, 1, []string{huge}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"tablefull_conntrack_entries","instance":"` +
			huge + `","env":"` + huge + `"},"value":[1,"5"]}]}}`))
	})))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	page, err := r.Fleet(context.Background(), time.Now(), fleet.View{})
	rows := page.Rows
	if err != nil || len(rows) != 1 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if n := len(rows[0].Instance) + len(rows[0].Labels); n > 2*stream.MaxString {
		t.Errorf("a row keeps %d bytes of labels", n)
	}
}

// TestFleetWorstNamespace: a host's fullest other namespace reaches its
// fleet row, named and counted.
func TestFleetWorstNamespace(t *testing.T) {
	srv := httptest.NewServer(fakeEngine(t, 1, []string{"node-7:9874"}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		r.ParseForm()
		if strings.Contains(r.Form.Get("query"), "worstns") {
			w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"m":"worstns","instance":"node-7:9874","netns":"3f2a9c1e","kind":"pod","inode":"7"},"value":[1,"300"]}]}}`))
			return
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"tablefull_conntrack_entries_limit","instance":"node-7:9874"},"value":[1,"300"]}]}}`))
	})))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	page, err := r.Fleet(context.Background(), time.Now(), fleet.View{})
	rows := page.Rows
	if err != nil || len(rows) != 1 || rows[0].WorstNS != "pod 3f2a9c1e" || rows[0].WorstNSCount != 300 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
}

// TestDrillDownNamespaces: a drill-down's samples carry the host's other
// namespaces as its exporter gave them, most full first.
func TestDrillDownNamespaces(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ts := fmt.Sprint(now.Unix() - 15)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		r.ParseForm()
		q := r.Form.Get("query")
		series := ""
		switch {
		case strings.Contains(q, "tablefull_conntrack_entries_limit"):
			series = `{"metric":{"__name__":"tablefull_conntrack_entries_limit","instance":"node-7:9874"},"values":[[` + ts + `,"300"]]}`
		case strings.Contains(q, "tablefull_netns_conntrack_entries"):
			series = `{"metric":{"__name__":"tablefull_netns_conntrack_entries","instance":"node-7:9874","netns":"lab","kind":"netns","inode":"8"},"values":[[` + ts + `,"12"]]},` +
				`{"metric":{"__name__":"tablefull_netns_conntrack_entries","instance":"node-7:9874","netns":"3f2a9c1e","kind":"pod","inode":"7"},"values":[[` + ts + `,"300"]]},` +
				`{"metric":{"__name__":"tablefull_netns_conntrack_drops_total","instance":"node-7:9874","netns":"3f2a9c1e","kind":"pod","inode":"7"},"values":[[` + ts + `,"900"]]}`
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[` + series + `]}}`))
	}))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	_, samples, err := r.History(context.Background(), "node-7:9874", now, time.Minute, 15*time.Second)
	if err != nil || len(samples) != 1 || samples[0].Namespaces == nil {
		t.Fatalf("samples %+v, %v", samples, err)
	}
	rows := samples[0].Namespaces.Rows
	if len(rows) != 2 || rows[0].Name != "3f2a9c1e" || rows[0].Kind != "pod" || rows[0].Count != 300 || rows[0].Drops != 900 || rows[1].Name != "lab" {
		t.Errorf("rows %+v", rows)
	}
}
