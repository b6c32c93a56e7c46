package tui

import (
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
)

// TestLongPlaybackReadsAhead: a 12-hour recording at 1 s is read only as
// far as the view needs: the history never holds more than its hour, the
// view keeps three quarters of it behind, and moving on reads more until
// the recording ends.
func TestLongPlaybackReadsAhead(t *testing.T) {
	const total, history = 12 * 3600, 3600
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Speed: 1, History: history})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	read := 0
	// pump hands the App samples for as long as it asks for them, as
	// bubbletea would run its wait-for-sample commands.
	pump := func(cmd tea.Cmd) {
		a.player.waiting = a.player.waiting || cmd != nil
		for a.player.waiting && read < total {
			s := model.Sample{Time: scriptStart.Add(time.Duration(read) * time.Second), Interval: time.Second,
				Conntrack: model.Conntrack{Status: model.TableTracked, Count: uint64(read % 4096), Peak: uint64(read % 4096), Max: 4096}}
			read++
			a.Update(sampleMsg{s: s})
		}
		if a.player.waiting && read == total {
			a.Update(feedErrMsg{err: io.EOF})
		}
	}
	a.player.waiting = true // Init's first wait
	pump(nil)
	if read != history {
		t.Fatalf("read %d samples before playing, want the %d the history holds", read, history)
	}
	for a.cur.at() < total-1 {
		before := read
		a.moveTo(a.cur.at() + 600)
		pump(a.resume())
		if n := a.an.Frames().Len(); n > history {
			t.Fatalf("the history holds %d frames", n)
		}
		if ahead := a.cur.ahead(); read < total && ahead < history/4 {
			t.Fatalf("at frame %d, %d frames read ahead, want at least %d", a.cur.at(), ahead, history/4)
		}
		if behind := a.cur.at() - (a.cur.oldest()); read < total && behind < min(a.cur.at(), 3*history/4-1) {
			t.Fatalf("at frame %d only %d frames behind the view", a.cur.at(), behind)
		}
		if read == before && read < total && a.cur.at() >= 3*history/4 {
			t.Fatalf("moving on at frame %d read nothing", a.cur.at())
		}
	}
	if read != total || !a.player.ended {
		t.Errorf("read %d of %d samples, ended %v", read, total, a.player.ended)
	}
}
