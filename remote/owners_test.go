package remote

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
