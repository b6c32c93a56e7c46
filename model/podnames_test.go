package model

import "testing"

// TestNamePods: a pod known by its UID is named wherever the sample
// holds it — a namespace's row, a census owner, a probe's connection and
// drop, a pressed listener — and one whose name is not found keeps its
// UID; what is not a pod is left alone.
func TestNamePods(t *testing.T) {
	names := map[string]string{"3f2a-1b": "kube-system/coredns-5d78c9869d-abcde"}
	pod := Owner{Group: "3f2a-1b", Kind: "pod", Comm: "coredns", PID: 9}
	unknown := Owner{Group: "9999-00", Kind: "pod"}
	unit := Owner{Group: "3f2a-1b", Kind: "unit"} // a unit that happens to look like one
	s := Sample{
		Namespaces: &Namespaces{Rows: []NetNS{{Name: "3f2a-1b", Kind: "pod"}, {Name: "3f2a-1b", Kind: "netns"}}},
		Census:     &Census{Owners: &Owners{Top: []OwnerCount{{Owner: pod}, {Owner: unknown}, {Owner: unit}}}},
		Who:        &Who{Conns: []ConnFlow{{Owner: pod}}, Drops: []DropFlow{{Owner: pod}}},
		Listeners:  &Listeners{Pressed: []Listener{{Owner: pod}}},
	}
	s.NamePods(func(uid string) string { return names[uid] })
	const want = "kube-system/coredns-5d78c9869d-abcde"
	for what, got := range map[string]string{
		"namespace row":      s.Namespaces.Rows[0].Name,
		"census owner":       s.Census.Owners.Top[0].Group,
		"probe's connection": s.Who.Conns[0].Group,
		"probe's drop":       s.Who.Drops[0].Group,
		"listener":           s.Listeners.Pressed[0].Owner.Group,
	} {
		if got != want {
			t.Errorf("%s named %q, want %q", what, got, want)
		}
	}
	if s.Namespaces.Rows[1].Name != "3f2a-1b" || s.Census.Owners.Top[1].Group != "9999-00" || s.Census.Owners.Top[2].Group != "3f2a-1b" {
		t.Errorf("renamed what is not a named pod: %+v %+v", s.Namespaces.Rows[1], s.Census.Owners.Top[1:])
	}
	if got := s.Census.Owners.Top[0].String(); got != "pod "+want+" (coredns, pid 9)" {
		t.Errorf("the owner reads %q", got)
	}
	(&Sample{}).NamePods(nil)
}
