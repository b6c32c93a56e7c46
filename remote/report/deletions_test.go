package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/stream"
)

// TestReportListsDeletions: deletions of entries the console kept in its
// recording (D) are listed with their filter and counts; one whose
// filter is not tablefull's, or whose counts no table holds, is not; a
// foreign error is sanitised.
func TestReportListsDeletions(t *testing.T) {
	lab, err := os.ReadFile("testdata/lab-table-full.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := recording.ReadRecording(bytes.NewReader(lab))
	if err != nil {
		t.Fatal(err)
	}
	at := rec.Samples[len(rec.Samples)/2].Time
	var events bytes.Buffer
	enc, err := stream.NewEncoder(&events, rec.Host, at)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []recording.DeletedRecord{
		{Filter: "-p udp --reply-src 127.0.0.2", Deletion: entry.Deletion{Matched: 40, Deleted: 40}},
		{Filter: "-p tcp --state ESTABLISHED --timeout-over 65", Deletion: entry.Deletion{Matched: 3, Deleted: 2, StillMatch: 1}, Error: "one was gone\x1b[31m"},
		{Filter: "--origin 1.2.3.4", Deletion: entry.Deletion{Matched: 1, Deleted: 1}},
		{Filter: "-p udp", Deletion: entry.Deletion{Matched: 1 << 40, Deleted: 1 << 40}},
	} {
		b, _ := json.Marshal(r)
		if err := enc.Event(stream.Event{Time: at, Type: recording.EventDeleted, Text: string(b)}); err != nil {
			t.Fatal(err)
		}
	}
	_, body, _ := bytes.Cut(events.Bytes(), []byte("\n")) // the events, not a second header
	r, err := Build(bytes.NewReader(append(append([]byte{}, lab...), body...)), Options{Source: "deleted.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	md := string(r.Markdown())
	_, sec, ok := strings.Cut(md, "## Entries deleted\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	if !ok {
		t.Fatalf("no deletions section:\n%s", md)
	}
	for _, want := range []string{"-p udp --reply-src 127.0.0.2 | 40 | 40 | 0", "--timeout-over 65 | 3 | 2 | 1 | one was gone", "42 entries deleted in all"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the section lacks %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "origin") || strings.Contains(sec, "1,099,511") || strings.Contains(md, "\x1b") {
		t.Errorf("a deletion that is not one is listed, or a control byte passed:\n%s", sec)
	}
	if r.Incident.DeletedEntries != 42 {
		t.Errorf("deleted in all %d, want 42", r.Incident.DeletedEntries)
	}
}
