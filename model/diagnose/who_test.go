package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

func TestMedianLife(t *testing.T) {
	for _, c := range []struct {
		life [model.LifeBuckets]uint32
		want time.Duration
		ok   bool
	}{
		{[model.LifeBuckets]uint32{}, 0, false},
		{[model.LifeBuckets]uint32{10}, time.Millisecond, true},
		{[model.LifeBuckets]uint32{1, 1, 5}, 4 * time.Millisecond, true},
		{[model.LifeBuckets]uint32{4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6}, 2048 * time.Millisecond, true},
		{[model.LifeBuckets]uint32{model.LifeBuckets - 1: 3}, 32768 * time.Millisecond, true},
	} {
		got, ok := model.ConnFlow{Life: c.life}.MedianLife()
		if got != c.want || ok != c.ok {
			t.Errorf("%v: %v %v, want %v %v", c.life, got, ok, c.want, c.ok)
		}
	}
}

func TestChurning(t *testing.T) {
	short := [model.LifeBuckets]uint32{0, 90}
	long := [model.LifeBuckets]uint32{12: 90}
	for _, c := range []struct {
		name string
		c    model.ConnFlow
		secs float64
		want bool
	}{
		{"many short ones", model.ConnFlow{Opened: 300, Closed: 90, Life: short}, 3, true},
		{"few a second", model.ConnFlow{Opened: 20, Closed: 20, Life: short}, 3, false},
		{"long lived", model.ConnFlow{Opened: 300, Closed: 90, Life: long}, 3, false},
		{"none closed yet: not known", model.ConnFlow{Opened: 300}, 3, false},
		{"its own seconds", model.ConnFlow{Opened: 300, Closed: 90, Life: short, Secs: 60}, 3, false},
	} {
		if got := c.c.Churning(c.secs); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}

func TestWhoDominantText(t *testing.T) {
	duck := model.ConnFlow{Owner: model.Owner{Comm: "duckdb", PID: 4242, Group: "user.slice", Kind: "cgroup"}, Dest: "10.5.5.14:3900",
		Opened: 3600, Closed: 3500, Life: [model.LifeBuckets]uint32{0, 0, 0, 3500}}
	w := &model.Who{Conns: []model.ConnFlow{duck, {Owner: model.Owner{Comm: "sshd", PID: 1}, Dest: "10.0.0.2:22", Opened: 40}}, OtherOpened: 60,
		Drops: []model.DropFlow{{Owner: model.Owner{Group: "user.slice", Kind: "cgroup"}, N: 900}, {N: 100}}}
	got := w.DominantText(30)
	want := "97 % of new connections from duckdb (pid 4242, user.slice) to 10.5.5.14:3900 (120/s, median life under 8 ms): " + model.OnePerRequest +
		"; 90 % of the table's drops in the last 30 s are its packets"
	if got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	w.TableDrops, w.TableDropsRead = 950, true // the table's own counter: the probes saw 50 more (a raw table's DROP)
	if got, want := w.DominantText(30), "; 900 of the table's 950 drops in the last 30 s are its packets"; !strings.HasSuffix(got, want) {
		t.Errorf("%q\nwant it to end %q", got, want)
	}
	w.TableDrops = 500
	if got, want := w.DominantText(30), "; 500 of the table's 500 drops in the last 30 s are its packets (the probes saw 500 more dropped before conntrack, by other rules)"; !strings.HasSuffix(got, want) {
		t.Errorf("%q\nwant it to end %q", got, want)
	}
	split := *w // told apart where decided: the probes' drops are conntrack's, a rule's counted apart
	split.Drops = []model.DropFlow{{Owner: model.Owner{Group: "user.slice", Kind: "cgroup"}, N: 450}, {N: 50}}
	split.DropsSplit, split.DroppedByRules = true, 500
	if got, want := split.DominantText(30), "; 450 of the table's 500 drops in the last 30 s are its packets (a rule dropped 500 more that conntrack found invalid or never saw)"; !strings.HasSuffix(got, want) {
		t.Errorf("%q\nwant it to end %q", got, want)
	}
	w.TableDrops = 0
	if got := w.DominantText(30); strings.Contains(got, "drops") {
		t.Errorf("the table dropped nothing, yet %q", got)
	}
	w.OtherOpened = 4000
	if got := w.DominantText(30); got != "" {
		t.Errorf("no owner dominates, yet %q", got)
	}
	if got := (&model.Who{Note: "eBPF refused"}).DominantText(30); got != "" {
		t.Errorf("off: %q", got)
	}
}

// TestWhoWindowSums: the window sums flows by owner and destination, a
// flow's rate is over its own seconds in the window, old frames go, and
// probes that stop restart it.
func TestWhoWindowSums(t *testing.T) {
	var tr whoTracker
	t0 := time.Unix(1000, 0)
	o := model.Owner{Comm: "curl", PID: 7}
	frame := func(i int, opened uint64) *model.Who {
		w := &model.Who{Conns: []model.ConnFlow{{Owner: o, Dest: "a:1", Opened: opened, Closed: opened, Life: [model.LifeBuckets]uint32{uint32(opened)}}}}
		if i < 5 {
			w.Conns = append(w.Conns, model.ConnFlow{Owner: model.Owner{Comm: "early", PID: 8}, Dest: "b:2", Opened: 1})
		}
		return w
	}
	var sum *model.Who
	var secs float64
	for i := range 40 {
		opened := uint64(0)
		if i >= 20 {
			opened = 100
		}
		sum, secs = tr.observe(t0.Add(time.Duration(i)*time.Second), 1, frame(i, opened), 2, true)
	}
	if secs != 31 {
		t.Errorf("window of %v s, want %v's frames", secs, WhoWindow)
	}
	if c := sum.Conns[0]; c.Opened != 2000 || c.Secs != 31 || c.Life[0] != 2000 {
		t.Errorf("summed %+v", c)
	}
	if len(sum.Conns) != 1 {
		t.Errorf("frames older than the window kept: %+v", sum.Conns)
	}
	if sum.TableDrops != 62 || !sum.TableDropsRead {
		t.Errorf("the table's drops over the window: %d (read %v), want 62", sum.TableDrops, sum.TableDropsRead)
	}
	if w, s := tr.observe(t0.Add(41*time.Second), 1, &model.Who{Note: "off"}, 0, true); w.On() || s != 1 || len(tr.frames) != 0 {
		t.Errorf("probes off: %+v, %v s, %d frames kept", w, s, len(tr.frames))
	}
	sum, _ = tr.observe(t0.Add(42*time.Second), 1, frame(42, 100), 0, false)
	if sum.TableDropsRead {
		t.Error("a window with a frame whose counter was not read says it read the table's drops")
	}
	if sum.Conns[0].Opened != 100 {
		t.Errorf("after a restart: %+v", sum.Conns[0])
	}
	if !strings.Contains(sum.Conns[0].Owner.String(), "curl") {
		t.Errorf("%+v", sum.Conns[0])
	}
	split := func(by uint64) *model.Who { w := frame(50, 1); w.DropsSplit, w.DroppedByRules = true, by; return w }
	tr.observe(t0.Add(50*time.Second), 1, split(3), 0, true)
	if sum, _ = tr.observe(t0.Add(51*time.Second), 1, split(4), 0, true); sum.DropsSplit || sum.DroppedByRules != 7 {
		t.Errorf("a window with an unsplit frame: split %v, %d a rule's (want false, 7)", sum.DropsSplit, sum.DroppedByRules)
	}
	tr.observe(t0.Add(90*time.Second), 1, split(1), 0, true) // the unsplit frames aged out
	if sum, _ = tr.observe(t0.Add(91*time.Second), 1, split(2), 0, true); !sum.DropsSplit || sum.DroppedByRules != 3 {
		t.Errorf("a split window: split %v, %d a rule's (want true, 3)", sum.DropsSplit, sum.DroppedByRules)
	}
}

func TestConnFlowDestText(t *testing.T) {
	for _, c := range []struct {
		proto uint8
		want  string
	}{{0, "10.0.0.53:53"}, {6, "10.0.0.53:53"}, {17, "10.0.0.53:53 udp"}, {250, "10.0.0.53:53 proto-250"}} {
		if got := (model.ConnFlow{Proto: c.proto, Dest: "10.0.0.53:53"}).DestText(); got != c.want {
			t.Errorf("proto %d: %q, want %q", c.proto, got, c.want)
		}
	}
}

// TestWhoWindowBounded: samples whose time stands still (a hostile or
// broken stream) do not grow the window past its frame bound.
func TestWhoWindowBounded(t *testing.T) {
	var tr whoTracker
	at := time.Unix(1000, 0)
	w := &model.Who{Conns: []model.ConnFlow{{Owner: model.Owner{Comm: "x", PID: 1}, Dest: "a:1", Opened: 1}}}
	for range 5 * maxWhoFrames {
		tr.observe(at, 1, w, 0, false)
	}
	if len(tr.frames) != maxWhoFrames {
		t.Errorf("%d frames kept, want at most %d", len(tr.frames), maxWhoFrames)
	}
}
