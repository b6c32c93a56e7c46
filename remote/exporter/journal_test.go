package exporter

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEntriesDeletedFromTheJournal: tablefull_entries_deleted_total sums
// the journal's deletions as it grows, a piece per scrape; a line too
// long, not JSON, or counting more than a table holds adds nothing; a
// line cut at the end of a read is counted once whole; a truncated
// journal is counted again from its start; no journal in a readable
// state directory is 0, an unreadable directory no series at all.
func TestEntriesDeletedFromTheJournal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "entries.journal")
	e := New("test")
	e.Journal = &Journal{Path: path}
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	i := 0
	deleted := func() (float64, bool) { // a scrape after the next sample (a sample's exposition is kept for every scraper)
		e.Observe(sample(i, 100, 100, 0))
		i++
		m := scrape(t, srv.URL)["tablefull_entries_deleted_total"]
		return m.v(""), m.has("")
	}
	if v, ok := deleted(); !ok || v != 0 {
		t.Errorf("no journal yet: %v (exported %v), want 0", v, ok)
	}
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	write(`{"at":"2026-12-03T20:00:00Z","filter":"-p udp","matched":40,"deleted":40}` + "\n" +
		`not json` + "\n" + `{"deleted":3000000000}` + "\n" + `{"deleted":-5}` + "\n" +
		`{"deleted":7,"filter":"` + strings.Repeat("x", maxJournalLine) + `"}` + "\n" + `{"filter":"-p tcp","del`)
	if v, _ := deleted(); v != 40 {
		t.Errorf("after the first lines: %v, want 40", v)
	}
	write(`eted":2}` + "\n")
	if v, _ := deleted(); v != 42 {
		t.Errorf("after the cut line's end: %v, want 42", v)
	}
	if err := os.WriteFile(path, []byte(`{"deleted":1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, _ := deleted(); v != 1 {
		t.Errorf("after the journal was truncated: %v, want 1", v)
	}
	e.Journal.Path = filepath.Join(dir, "gone", "entries.journal")
	if v, ok := deleted(); ok {
		t.Errorf("an unreadable state directory: exported %v, want no series", v)
	}
}

// TestJournalPlantedFIFOAndLink: a FIFO planted as the journal neither
// hangs a scrape nor leaves a reader behind, and a symlink is not read
// through: both are not known (no series), not a count.
func TestJournalPlantedFIFOAndLink(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "entries.journal")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	j := &Journal{Path: fifo}
	done := make(chan bool, 1)
	go func() { _, ok := j.Deleted(); done <- ok }()
	select {
	case ok := <-done:
		if ok {
			t.Error("a FIFO read as the journal")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("reading a FIFO planted as the journal blocks")
	}
	target := filepath.Join(dir, "other")
	os.WriteFile(target, []byte(`{"deleted":5}`+"\n"), 0o600)
	link := filepath.Join(dir, "linked.journal")
	os.Symlink(target, link)
	if n, ok := (&Journal{Path: link}).Deleted(); ok || n != 0 {
		t.Errorf("a symlink read through: %v %v", n, ok)
	}
}

// TestHeartbeatAndWebConfigPlanted: the exporter runs as root. A link
// planted at --heartbeat is not followed (the file it names is neither
// created nor touched), a FIFO there or at --web.config.file is refused
// at once, and a web config reached through a link (a Secret's mount) is
// still read.
func TestHeartbeatAndWebConfigPlanted(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "cron")
	link := filepath.Join(dir, "alive")
	os.Symlink(target, link)
	if _, err := NewHeartbeat(nil, link); err == nil {
		t.Error("the heartbeat was opened through a link")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the heartbeat created the file a planted link names")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { _, err := NewHeartbeat(nil, fifo); done <- err }()
	go func() { _, err := authenticates(fifo); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if err == nil {
				t.Error("a FIFO taken for the heartbeat or the web config")
			}
		case <-time.After(2 * time.Second):
			t.Fatal("opening a planted FIFO blocks")
		}
	}
	config := filepath.Join(dir, "web.yml")
	os.WriteFile(config, []byte("tls_server_config:\n  cert_file: c\nbasic_auth_users:\n  u: h\n"), 0o600)
	os.Symlink(config, filepath.Join(dir, "linked.yml"))
	if ok, err := authenticates(filepath.Join(dir, "linked.yml")); !ok || err != nil {
		t.Errorf("a web config through a link: %v %v", ok, err)
	}
}
