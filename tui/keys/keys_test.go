package keys

import (
	"slices"
	"testing"
)

// TestBindShowsTheFirstKey: a binding takes every key it names, the
// space bar by name, and the help shows the first, an arrow as an arrow.
func TestBindShowsTheFirstKey(t *testing.T) {
	for _, c := range []struct {
		keys, shown string
		want        []string
	}{
		{"q ctrl+c", "q", []string{"q", "ctrl+c"}},
		{"p space", "p", []string{"p", " "}},
		{"left", "←", []string{"left"}},
		{"down j", "↓", []string{"down", "j"}},
		{"pgdown", "pgdn", []string{"pgdown"}},
	} {
		b := bind(c.keys, "what")
		if !slices.Equal(b.Keys(), c.want) || b.Help().Key != c.shown || b.Help().Desc != "what" {
			t.Errorf("bind(%q) = keys %q, help %q %q; want %q, %q", c.keys, b.Keys(), b.Help().Key, b.Help().Desc, c.want, c.shown)
		}
	}
}

// TestEveryBindingHasHelp: the console's help lists no key without its
// text.
func TestEveryBindingHasHelp(t *testing.T) {
	k := DefaultKeyMap()
	for _, col := range append(k.FullHelp(), k.TuningHelp(), k.EntriesHelp(), k.NamespacesHelp(), k.FleetHelp()) {
		for _, b := range col {
			if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("binding %q lacks keys or help: %+v", b.Keys(), b.Help())
			}
		}
	}
}
