package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/stream"
)

// recordingOf encodes samples as a recording of host.
func recordingOf(t *testing.T, host model.Host, samples []model.Sample) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	enc, err := stream.NewEncoder(&b, host, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if err := enc.Sample(s); err != nil {
			t.Fatal(err)
		}
	}
	return &b
}

// markdownOf is the report.md of a recording of host holding samples.
func markdownOf(t *testing.T, host model.Host, samples []model.Sample) string {
	t.Helper()
	r, err := Build(recordingOf(t, host, samples), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return string(r.Markdown())
}

// TestReportSaysWhatTheRecordingHolds: a quiet recording is titled and
// told as one ("no incident"); a host whose own namespace tracks nothing
// while another namespace's table is full is titled by that namespace
// and never told as "nothing tracked" alone.
func TestReportSaysWhatTheRecordingHolds(t *testing.T) {
	at := func(i int) time.Time { return time.Date(2026, 12, 1, 9, 0, i, 0, time.UTC) }
	var quiet, elsewhere []model.Sample
	for i := range 4 {
		quiet = append(quiet, model.Sample{Time: at(i), Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: 50, Peak: 50, Max: 4096, Buckets: 4096, TimeWaitHold: 120}})
		elsewhere = append(elsewhere, model.Sample{Time: at(i), Interval: time.Second,
			Conntrack:  model.Conntrack{Status: model.TableUntracked, Max: 300, Buckets: 300, TimeWaitHold: 120},
			Namespaces: &model.Namespaces{Rows: []model.NetNS{{Inode: 7, Name: "web-7", Kind: "netns", PID: 42, Count: 300, Drops: uint64(50 * i), DropsRead: true}}}})
	}
	r, err := Build(recordingOf(t, model.Host{Name: "vm"}, quiet), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Heading(); h != "No conntrack incident on vm" {
		t.Errorf("a quiet recording is titled %q", h)
	}
	r, err = Build(recordingOf(t, model.Host{Name: "vm"}, elsewhere), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := string(r.Markdown())
	if h := r.Heading(); h != "Conntrack incident in netns web-7 on vm" {
		t.Errorf("another namespace's incident is titled %q", h)
	}
	if strings.Contains(md, "there was no table to fill") || !strings.Contains(md, "netns web-7") {
		t.Errorf("another namespace's incident told as nothing tracked:\n%s", md)
	}
}
