package stream

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// ownersLine is one encoded sample whose census carries owners.
func ownersLine(t *testing.T, o *model.Owners) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
	s := twoCPUSample(1)
	s.Census = &model.Census{Total: 100, Owners: o}
	enc.Sample(s)
	return &b
}

// TestOwnersOnTheWire: a census's owners arrive with their names
// bounded, counts never negative and kinds only tablefull's; more owners
// than a census keeps is a damaged line.
func TestOwnersOnTheWire(t *testing.T) {
	o := &model.Owners{Top: []model.OwnerCount{
		{Owner: model.Owner{Comm: "duck\x1b[2Jdb", PID: 4242, Group: strings.Repeat("u", 5000), Kind: "unit"}, N: 91, Peer: "10.5.5.14:3900", PeerN: 90},
		{Owner: model.Owner{Comm: "x", PID: -3, Kind: "<script>"}, N: -5},
	}, Unowned: model.ClassCounts{model.ClassTCPDone: 9}, Sockets: 12}
	dec := NewDecoder(ownersLine(t, o))
	if err := dec.Header(); err != nil {
		t.Fatal(err)
	}
	got, _, err := dec.Next()
	if err != nil || got == nil || got.Census == nil || got.Census.Owners == nil {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	g := got.Census.Owners
	if len(g.Top) != 2 || g.Top[0].Comm != "duck\x1b[2Jdb" || g.Top[0].N != 91 || len(g.Top[0].Group) > MaxString || g.Top[0].PeerN != 90 {
		t.Errorf("first owner %+v", g.Top[0])
	}
	if b := g.Top[1]; b.PID != 0 || b.N != 0 || b.Kind != "" {
		t.Errorf("hostile owner kept: %+v", b)
	}
	if g.Unowned[model.ClassTCPDone] != 9 || g.Sockets != 12 {
		t.Errorf("owners %+v", g)
	}

	many := &model.Owners{}
	for range model.OwnersShown + 1 {
		many.Top = append(many.Top, model.OwnerCount{N: 1})
	}
	dec = NewDecoder(ownersLine(t, many))
	dec.Header()
	if _, _, err := dec.Next(); !errors.Is(err, ErrTooBig) && dec.Damaged == 0 {
		t.Errorf("%d owners taken (err %v)", len(many.Top), err)
	}
}

// TestListenersOnTheWire: pressed listeners arrive with their owners
// bounded; more than a sample keeps is a damaged line.
func TestListenersOnTheWire(t *testing.T) {
	line := func(ls *model.Listeners) *Decoder {
		var b bytes.Buffer
		enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
		s := twoCPUSample(1)
		s.Listeners = ls
		enc.Sample(s)
		dec := NewDecoder(&b)
		if err := dec.Header(); err != nil {
			t.Fatal(err)
		}
		return dec
	}
	dec := line(&model.Listeners{Pressed: []model.Listener{{Addr: strings.Repeat("9", 5000), Queue: 6, Backlog: 5,
		Owner: model.Owner{Comm: "slow", PID: -1, Kind: "evil"}}}, Somaxconn: 4096, Listening: -2})
	got, _, err := dec.Next()
	if err != nil || got == nil || got.Listeners == nil || len(got.Listeners.Pressed) != 1 {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	l := got.Listeners
	if p := l.Pressed[0]; len(p.Addr) > MaxString || p.Queue != 6 || p.Owner.PID != 0 || p.Owner.Kind != "" || l.Listening != 0 || l.Somaxconn != 4096 {
		t.Errorf("listeners %+v", l)
	}
	many := &model.Listeners{}
	for range model.ListenersShown + 1 {
		many.Pressed = append(many.Pressed, model.Listener{Addr: "x"})
	}
	dec = line(many)
	if s, _, _ := dec.Next(); s != nil && s.Listeners != nil || dec.Damaged == 0 {
		t.Errorf("%d listeners taken", len(many.Pressed))
	}
}
