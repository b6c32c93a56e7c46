// Package keys holds the console's one keymap, with help text for every
// binding.
package keys

import "github.com/charmbracelet/bubbles/key"

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
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Pause:        key.NewBinding(key.WithKeys("p", " "), key.WithHelp("p", "pause/resume")),
		Faster:       key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "faster")),
		Slower:       key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "slower")),
		Back:         key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "back")),
		Forward:      key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "forward")),
		JumpBack:     key.NewBinding(key.WithKeys("[", "shift+left"), key.WithHelp("[", "jump back")),
		JumpAhead:    key.NewBinding(key.WithKeys("]", "shift+right"), key.WithHelp("]", "jump on")),
		Latest:       key.NewBinding(key.WithKeys("end", "L"), key.WithHelp("end", "live")),
		Step:         key.NewBinding(key.WithKeys("."), key.WithHelp(".", "step a frame")),
		NextChange:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next change")),
		Record:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "record on/off")),
		Census:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "census")),
		Namespaces:   key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "namespaces")),
		Tune:         key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tuning")),
		Entries:      key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "entries")),
		EntrySort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort by the next column")),
		EntryReverse: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse the order")),
		EntryDelete:  key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete what the filter matches (asks y/n)")),
		EntryFollow:  key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow new and ended entries live, or stop")),
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "previous knob")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "next knob")),
		Edit:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit value")),
		Apply:        key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "apply live")),
		Persist:      key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "persist to /etc")),
		Undo:         key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo last apply")),
		Close:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close a panel, leave a namespace")),
		Confirm:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		NextTab:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next host")),
		PrevTab:      key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous host")),
		Tab:          key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", "host N")),
		RowUp:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "previous host")),
		RowDown:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "next host")),
		PageUp:       key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Open:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "history")),
		Live:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "live over ssh")),
		Leave:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the fleet")),
	}
}

// TuningHelp is the full help's column while the tuning panel is open:
// its keys, which the console's take second place to there.
func (k KeyMap) TuningHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Edit, k.Apply, k.Persist, k.Undo, k.Confirm, k.Close}
}

// NamespacesHelp is the full help's column while the namespaces panel is
// open: ↑/↓ move between namespaces there, not knobs.
func (k KeyMap) NamespacesHelp() []key.Binding {
	relabel := func(b key.Binding, what string) key.Binding {
		return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, what))
	}
	return []key.Binding{relabel(k.Up, "previous namespace"), relabel(k.Down, "next namespace"),
		relabel(k.Open, "its console in a tab"), relabel(k.Close, "close the panel")}
}

// EntriesHelp is the full help's column while the entries panel is open.
func (k KeyMap) EntriesHelp() []key.Binding {
	filter := key.NewBinding(key.WithKeys(k.Filter.Keys()...), key.WithHelp(k.Filter.Help().Key, "filter, in conntrack's words"))
	return []key.Binding{k.EntrySort, k.EntryReverse, filter, k.EntryFollow, k.EntryDelete, k.Close}
}

// FleetHelp is the fleet view's help line.
func (k KeyMap) FleetHelp() []key.Binding {
	return []key.Binding{k.Quit, k.RowUp, k.RowDown, k.Filter, k.Open, k.Live}
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
