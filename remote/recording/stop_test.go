package recording

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/stream/streamtest"
)

// TestTeeStopNeverStarts: ending a recording that the user already
// stopped with r does not start a new one (the lab's exit did).
func TestTeeStopNeverStarts(t *testing.T) {
	dir := t.TempDir()
	tee := &Tee{Feed: fixedSource{}, Dir: dir}
	if err := tee.Start(filepath.Join(dir, "lab.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, on, err := tee.Toggle(); on || err != nil { // r during the lab
		t.Fatalf("toggle: on %v, %v", on, err)
	}
	tee.Stop()
	tee.Stop()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files after the lab: %v, want only lab.jsonl", entries)
	}
}

type fixedSource struct{}

func (fixedSource) Host() model.Host            { return model.Host{Name: "h"} }
func (fixedSource) Next() (model.Sample, error) { return model.Sample{}, nil }

// TestOpenReplayStreams: a recording is read as it plays, not loaded
// whole; damaged lines are skipped and a torn end ends it.
func TestOpenReplayStreams(t *testing.T) {
	path := recordedFile(t, 5000)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{garbage\n{\"k\":\"s\",\"t\":")
	f.Close()
	r, err := OpenReplay(path, "replay x")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	for range 10 {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	pos, _ := r.f.Seek(0, 1)
	st, _ := os.Stat(path)
	if pos > 256<<10 || pos >= st.Size() {
		t.Errorf("after 10 samples %d of %d bytes were read", pos, st.Size())
	}
	n := 10
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := r.Next(); err != nil {
				return
			}
			n++
		}
	}()
	select { // a recording read to its end ends by itself; Stop releases a slow one
	case <-done:
	case <-time.After(20 * time.Second):
		r.Stop()
		<-done
	}
	if n != 5000 || r.Damaged() != 1 {
		t.Errorf("read %d samples, %d damaged lines; want 5000 and 1", n, r.Damaged())
	}
	if _, err := OpenReplay(filepath.Join(t.TempDir(), "none"), "x"); err == nil {
		t.Error("a missing file opened")
	}
}

// recordedFile is a recording of n of the fixture's samples, as
// tablefull record writes one.
func recordedFile(t testing.TB, n int) string {
	t.Helper()
	rec := &Recording{Host: model.Host{Name: "remote-box"}}
	for i := range n {
		rec.Samples = append(rec.Samples, streamtest.TwoCPUSample(i))
	}
	path := filepath.Join(t.TempDir(), "stream.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Record(context.Background(), NewReplay(rec, "fixture"), f); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTeeSaysWhereItRecords: r in a console started anywhere says the
// recording's whole path, not a name relative to a directory the user
// may not know it was started from.
func TestTeeSaysWhereItRecords(t *testing.T) {
	t.Chdir(t.TempDir())
	tee := &Tee{Feed: fixedSource{}}
	path, on, err := tee.Toggle()
	if err != nil || !on {
		t.Fatalf("toggle: on %v, %v", on, err)
	}
	defer tee.Stop()
	if !filepath.IsAbs(path) {
		t.Errorf("recording to %q: not a whole path", path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no file at %s: %v", path, err)
	}
}
