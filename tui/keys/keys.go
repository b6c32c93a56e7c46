// Package keys holds the console's one keymap, with help text for every
// binding.
package keys

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every key the console handles.
type KeyMap struct {
	Quit       key.Binding
	Help       key.Binding
	Pause      key.Binding
	Faster     key.Binding
	Slower     key.Binding
	Back       key.Binding
	Forward    key.Binding
	JumpBack   key.Binding
	JumpAhead  key.Binding
	Latest     key.Binding
	Step       key.Binding
	NextChange key.Binding
	Record     key.Binding
	Census     key.Binding
	Namespaces key.Binding
	Tune       key.Binding
	Entries    key.Binding
	// The entries panel: sort by the next column, the other way.
	EntrySort, EntryReverse, EntryDelete, EntryFollow key.Binding
	NextTab                                           key.Binding
	PrevTab                                           key.Binding
	// Tab is 1–9: the host (tab) of that number.
	Tab key.Binding
	// Tuning panel.
	Up, Down, Edit, Apply, Persist, Undo, Close, Confirm key.Binding
	// Fleet view.
	RowUp, RowDown, PageUp, PageDown, Filter, Open, Live, Leave key.Binding
}

// DefaultKeyMap returns the console's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:         bind("q ctrl+c", "quit"),
		Help:         bind("?", "help"),
		Pause:        bind("p space", "pause/resume"),
		Faster:       bind("- _", "faster"),
		Slower:       bind("+ =", "slower"),
		Back:         bind("left", "back"),
		Forward:      bind("right", "forward"),
		JumpBack:     bind("[ shift+left", "jump back"),
		JumpAhead:    bind("] shift+right", "jump on"),
		Latest:       bind("end L", "live"),
		Step:         bind(".", "step a frame"),
		NextChange:   bind("n", "next change"),
		Record:       bind("r", "record on/off"),
		Census:       bind("c", "census"),
		Namespaces:   bind("N", "namespaces"),
		Tune:         bind("t", "tuning"),
		Entries:      bind("E", "entries"),
		EntrySort:    bind("s", "sort by the next column"),
		EntryReverse: bind("S", "reverse the order"),
		EntryDelete:  bind("D", "delete what the filter matches (asks y/n)"),
		EntryFollow:  bind("f", "follow new and ended entries live, or stop"),
		Up:           bind("up k", "previous knob"),
		Down:         bind("down j", "next knob"),
		Edit:         bind("enter", "edit value"),
		Apply:        bind("a", "apply live"),
		Persist:      bind("w", "persist to /etc"),
		Undo:         bind("u", "undo last apply"),
		Close:        bind("esc", "close a panel, leave a namespace"),
		Confirm:      bind("y", "yes"),
		NextTab:      bind("tab", "next host"),
		PrevTab:      bind("shift+tab", "previous host"),
		Tab:          key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", "host N")),
		RowUp:        bind("up k", "previous host"),
		RowDown:      bind("down j", "next host"),
		PageUp:       bind("pgup", "page up"),
		PageDown:     bind("pgdown", "page down"),
		Filter:       bind("/", "filter"),
		Open:         bind("enter", "history"),
		Live:         bind("s", "live over ssh"),
		Leave:        bind("esc", "back to the fleet"),
	}
}

// bind is a binding of keys, named as bubbletea names them and
// separated by spaces ("space" is the space bar), shown in the help as
// the first of them.
func bind(keys, what string) key.Binding {
	ks := strings.Fields(keys)
	for i, k := range ks {
		if k == "space" {
			ks[i] = " "
		}
	}
	return key.NewBinding(key.WithKeys(ks...), key.WithHelp(shown(ks[0]), what))
}

// shown is how the help writes a key: an arrow as an arrow.
func shown(k string) string {
	if s, ok := map[string]string{"left": "←", "right": "→", "up": "↑", "down": "↓", "pgdown": "pgdn"}[k]; ok {
		return s
	}
	return k
}

// TuningHelp is the full help's column while the tuning panel is open:
// its keys, which the console's take second place to there.
func (k KeyMap) TuningHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Edit, k.Apply, k.Persist, k.Undo, k.Confirm, k.Close}
}

// NamespacesHelp is the full help's column while the namespaces panel is
// open: ↑/↓ move between namespaces there, not knobs.
func (k KeyMap) NamespacesHelp() []key.Binding {
	return []key.Binding{relabel(k.Up, "previous namespace"), relabel(k.Down, "next namespace"),
		relabel(k.Open, "its console in a tab"), relabel(k.Close, "close the panel")}
}

// EntriesHelp is the full help's column while the entries panel is open.
func (k KeyMap) EntriesHelp() []key.Binding {
	filter := key.NewBinding(key.WithKeys(k.Filter.Keys()...), key.WithHelp(k.Filter.Help().Key, "filter, in conntrack's words"))
	return []key.Binding{k.EntrySort, k.EntryReverse, filter, k.EntryFollow, k.EntryDelete, k.Close}
}

// relabel is b with its keys said to do what (in one view's words).
func relabel(b key.Binding, what string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, what))
}

// FleetKeys are the fleet view's bindings, as its help and the manual
// say them: pages go deeper into the engine's ranking, / narrows in the
// engine.
func (k KeyMap) FleetKeys() []key.Binding {
	return []key.Binding{relabel(k.RowUp, "previous host"), relabel(k.RowDown, "next host"),
		relabel(k.PageUp, "a page toward the worst"), relabel(k.PageDown, "a page deeper in the ranking"),
		relabel(k.Filter, "narrow: label matchers or a word of the name"), k.Open, k.Live, k.Leave}
}

// FleetHelp is the fleet view's help line.
func (k KeyMap) FleetHelp() []key.Binding {
	f := k.FleetKeys()
	return []key.Binding{k.Quit, f[1], f[3], relabel(k.Filter, "narrow"), k.Open, k.Live}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Quit, k.Help, k.Pause, k.Back, k.Forward}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	// Three tall columns: at 80 columns bubbles/help shows three.
	return [][]key.Binding{
		{k.Quit, k.Help, k.Pause, k.Record, k.Census, k.Entries, k.Namespaces, k.Tune},
		{k.Faster, k.Slower, k.Back, k.Forward, k.JumpBack, k.JumpAhead},
		{k.Step, k.NextChange, k.Latest, k.NextTab, k.PrevTab, k.Tab, k.Close},
	}
}
