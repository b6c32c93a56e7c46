package sources

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/ruleset"
	"github.com/tablefull/tablefull/sources/tune"
)

// FlushRecheck is how often a live feed looks again for kube-proxy,
// whose presence turns the flush watch on (and its absence off).
const FlushRecheck = 30 * time.Second

// noKubeProxy is why flushes are not watched where kube-proxy is absent.
const noKubeProxy = "not watched: no kube-proxy runs here"

// flushSwitch runs the flush watch of a live feed where kube-proxy runs:
// a node, where entries flushed at once are a question users ask, and
// where the watch's cost on the kernel's side (every DESTROY event built,
// the event cache on each new entry) is taken for it. It names the
// bursts' destinations by the Services kube-proxy's rules name, in the
// background, once per destination.
type flushSwitch struct {
	procRoot string
	live     bool // a live feed drives it: a one-shot sample has no past to watch
	watch    *ctnetlink.FlushWatch
	checked  time.Time
	note     string
	// present finds kube-proxy (tests replace it): a look at the
	// processes not seen before (tune.ManagerLook), run off the sampling
	// path (offPath) like the attribution.
	present  func() bool
	presence offPath[bool]
	found    bool // the last look's answer

	mu     sync.Mutex // guards names and asking
	names  map[string]string
	asking bool
}

// maxFlushNames bounds the destinations whose Services are remembered.
const maxFlushNames = 256

// newFlushSwitch watches the namespace whose /proc is procRoot.
func newFlushSwitch(procRoot string) *flushSwitch {
	look := &tune.ManagerLook{Proc: procRoot}
	return &flushSwitch{procRoot: procRoot, names: map[string]string{}, present: look.Present}
}

// read is the sample's Flushes: nil unless a live feed drives it.
func (f *flushSwitch) read(now time.Time) *model.Flushes {
	if !f.live {
		return nil
	}
	started := false
	if f.checked.IsZero() || now.Sub(f.checked) >= FlushRecheck || now.Before(f.checked) {
		f.checked = now
		started = f.presence.start(f.present)
	}
	// turned when a look ends: a failed watch is tried again at the next
	// look, not at every sample
	if found, _ := f.presence.take(started); started || found != f.found {
		f.found = found
		f.turn(found)
	}
	if f.watch == nil {
		return &model.Flushes{Note: f.note}
	}
	out := f.watch.Read(now)
	f.name(out.Recent)
	return &out
}

// turn starts or stops the watch as kube-proxy came or went.
func (f *flushSwitch) turn(on bool) {
	switch {
	case on && f.watch == nil:
		w, err := ctnetlink.WatchFlushes()
		switch {
		case errors.Is(err, kernelfs.ErrPermission):
			f.note = "not watched: " + ctnetlink.NoteEventsNoCap
		case err != nil:
			f.note = "not watched: " + err.Error()
		default:
			f.watch, f.note = w, ""
		}
	case !on && f.watch != nil:
		f.watch.Close()
		f.watch = nil
	}
	if !on {
		f.note = noKubeProxy
	}
}

// name puts the Services already known into the bursts' destinations,
// and asks the ruleset for the rest once, in the background.
func (f *flushSwitch) name(bursts []model.Flush) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ask []string
	for i := range bursts {
		for j := range bursts[i].Dests {
			d := &bursts[i].Dests[j]
			if svc, ok := f.names[d.Dest]; ok {
				d.Service = svc
			} else {
				ask = append(ask, d.Dest)
			}
		}
	}
	if len(ask) == 0 || f.asking {
		return
	}
	f.asking = true
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		listing, _ := ruleset.List(ctx)
		saved, _ := ruleset.ListIptablesNAT(ctx)
		services := ruleset.ParseServices(listing, saved)
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.names)+len(ask) > maxFlushNames {
			clear(f.names)
		}
		for _, k := range ask {
			f.names[k] = services[k] // "" where none: asked once
		}
		f.asking = false
	}()
}

// close stops the watch, once a look for kube-proxy under way is done.
func (f *flushSwitch) close() {
	f.presence.wait()
	if f.watch != nil {
		f.watch.Close()
		f.watch = nil
	}
}
