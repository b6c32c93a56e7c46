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
	d := streamOf(t, &stumblingFeed{})
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

// scriptedFeed fails where its script says false, gives a sample where
// it says true, and ends after it.
type scriptedFeed struct {
	script []bool
	calls  int
}

func (*scriptedFeed) Host() model.Host { return model.Host{Name: "h"} }
func (f *scriptedFeed) Next() (model.Sample, error) {
	if f.calls >= len(f.script) {
		return model.Sample{}, model.ErrFeedStopped
	}
	f.calls++
	if f.script[f.calls-1] {
		return twoCPUSample(0), nil
	}
	return model.Sample{}, errors.New("unreadable")
}

// TestStartWaitsOutAFailingFeed: a feed that fails at once, again and
// again, is asked less and less often — the wait after each error in a
// row doubles, up to a cap — and a good sample starts the waits over, so
// a failing feed never fills the stream with its errors.
func TestStartWaitsOutAFailingFeed(t *testing.T) {
	first, cap := errorWait, maxErrorWait
	errorWait, maxErrorWait = 20*time.Millisecond, 80*time.Millisecond
	t.Cleanup(func() { errorWait, maxErrorWait = first, cap })
	d := streamOf(t, &scriptedFeed{script: []bool{false, false, false, false, false, true, false, false}})
	var errs []time.Time
	for {
		_, ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev != nil && ev.Type == EventError {
			errs = append(errs, ev.Time)
		}
	}
	if len(errs) != 7 {
		t.Fatalf("%d error events, want 7", len(errs))
	}
	// The waits after errors 1 to 4: 20, 40, 80 (the cap), 80 ms; each gap
	// is at least its wait and short of the next doubling's, which a busy
	// machine's late timers do not reach.
	for i, want := range []time.Duration{20, 40, 80, 80} {
		want *= time.Millisecond
		if gap := errs[i+1].Sub(errs[i]); gap < want || gap >= 2*want {
			t.Errorf("gap after error %d: %v, want %v (doubling, capped at 80ms)", i+1, gap, want)
		}
	}
	// After the good sample the waits start over: 20 ms, not the cap.
	if gap := errs[6].Sub(errs[5]); gap < 20*time.Millisecond || gap >= 60*time.Millisecond {
		t.Errorf("gap after the first error past a good sample: %v, want 20ms (the waits start over)", gap)
	}
}

// streamOf runs feed's stream to its end and returns a decoder of what it
// wrote, its header read.
func streamOf(t *testing.T, feed model.Feed) *Decoder {
	t.Helper()
	var buf bytes.Buffer
	st, err := Start(feed, &buf, "agent")
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
	return d
}
