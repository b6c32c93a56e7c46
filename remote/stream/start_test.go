package stream

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// stumblingFeed fails once, gives a sample, then ends.
type stumblingFeed struct{ calls int }

func (*stumblingFeed) Host() model.Host { return model.Host{Name: "h"} }
func (f *stumblingFeed) Next() (model.Sample, error) {
	f.calls++
	switch f.calls {
	case 1:
		return model.Sample{}, errors.New("read \x1b[31mdisk: gone")
	case 2:
		return twoCPUSample(0), nil
	}
	return model.Sample{}, model.ErrFeedStopped
}

// TestStartGoesOnAfterAnError: an error of the feed that does not end
// it is written as an error event and the stream goes on; its end ends
// the stream with nil.
func TestStartGoesOnAfterAnError(t *testing.T) {
	var buf bytes.Buffer
	st, err := Start(&stumblingFeed{}, &buf, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if err := <-st.Done; err != nil {
		t.Fatalf("done: %v", err)
	}
	d := NewDecoder(&buf)
	if err := d.Header(); err != nil {
		t.Fatal(err)
	}
	_, ev, err := d.Next()
	if err != nil || ev == nil || ev.Type != EventError || ev.Text != "read \x1b[31mdisk: gone" {
		t.Fatalf("first record: %+v %v, want the error as an event", ev, err)
	}
	s, _, err := d.Next()
	if err != nil || s == nil || s.Conntrack.Count != 4096 {
		t.Fatalf("second record: %+v %v, want the sample after the error", s, err)
	}
	if _, _, err := d.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("then %v, want the end", err)
	}
}

// failingFeed fails at once on every call until its deadline, then ends.
type failingFeed struct{ until time.Time }

func (*failingFeed) Host() model.Host { return model.Host{Name: "h"} }
func (f *failingFeed) Next() (model.Sample, error) {
	if time.Now().After(f.until) {
		return model.Sample{}, model.ErrFeedStopped
	}
	return model.Sample{}, errors.New("unreadable")
}

// TestStartWaitsOutAFailingFeed: a feed that fails at once, again and
// again, is asked less and less often, not in a loop that fills the
// stream with its errors.
func TestStartWaitsOutAFailingFeed(t *testing.T) {
	var buf bytes.Buffer
	st, err := Start(&failingFeed{until: time.Now().Add(time.Second)}, &buf, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if err := <-st.Done; err != nil {
		t.Fatalf("done: %v", err)
	}
	// 100, 200, 400 ms: four errors in a second, and a few more on a slow machine.
	if n := bytes.Count(buf.Bytes(), []byte(`"type":"error"`)); n < 2 || n > 6 {
		t.Errorf("%d error events in a second of a failing feed, want 2 to 6", n)
	}
}
