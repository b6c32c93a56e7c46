package model

import (
	"sort"
	"testing"
)

func TestPressedBefore(t *testing.T) {
	ls := []Listener{
		{Addr: "a:1", Queue: 100, Backlog: 128},
		{Addr: "b:2", Queue: 6, Backlog: 5},
		{Addr: "c:3", Queue: 4097, Backlog: 4096},
		{Addr: "d:4", Queue: 6, Backlog: 5},
		{Addr: "e:5", Queue: 2, Backlog: 1}, // a user's cheap listener
		{Addr: "f:6", Queue: 5, Backlog: 5},
	}
	sort.Slice(ls, func(i, j int) bool { return PressedBefore(ls[i], ls[j]) })
	got := ""
	for _, l := range ls {
		got += l.Addr + " "
	}
	if got != "c:3 b:2 d:4 e:5 a:1 f:6 " {
		t.Errorf("order %q: overflowing first, then the longer queue, then fuller, then address", got)
	}
}

func TestPressed(t *testing.T) {
	for _, c := range []struct {
		q, b uint32
		want bool
	}{{0, 0, false}, {0, 5, false}, {4, 5, true}, {3, 5, false}, {1, 0, true}, {129, 128, true}, {102, 128, false}} {
		if got := Pressed(c.q, c.b); got != c.want {
			t.Errorf("Pressed(%d, %d) = %v", c.q, c.b, got)
		}
	}
}

func TestListenerString(t *testing.T) {
	l := Listener{Addr: "0.0.0.0:80", Queue: 4097, Backlog: 4096, Owner: Owner{Comm: "nginx", PID: 7, Group: "nginx.service", Kind: "unit"}}
	if got, want := l.String(4096), "0.0.0.0:80 of nginx (pid 7, nginx.service): 4,097 waiting, backlog 4,096 (= somaxconn 4,096: it may have asked for more)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := (Listener{Addr: "[::]:9", Queue: 1, Backlog: 1}).String(0), "[::]:9: 1 waiting, backlog 1"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
