// Package keys holds the console's one keymap, with help text for every
// binding.
package keys

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every key the console handles.
type KeyMap struct {
	Quit    key.Binding
	Help    key.Binding
	Pause   key.Binding
	Faster  key.Binding
	Slower  key.Binding
	Back    key.Binding
	Forward key.Binding
	Latest  key.Binding
	Tune    key.Binding
}

// DefaultKeyMap returns the console's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Pause:   key.NewBinding(key.WithKeys("p", " "), key.WithHelp("p", "pause/resume")),
		Faster:  key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "shorter interval")),
		Slower:  key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "longer interval")),
		Back:    key.NewBinding(key.WithKeys("left", "["), key.WithHelp("←/[", "back in history")),
		Forward: key.NewBinding(key.WithKeys("right", "]"), key.WithHelp("→/]", "forward in history")),
		Latest:  key.NewBinding(key.WithKeys("end", "L"), key.WithHelp("end", "back to live")),
		Tune:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tuning (coming)")),
	}
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Quit, k.Help, k.Pause, k.Back, k.Forward}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Quit, k.Help, k.Pause},
		{k.Faster, k.Slower, k.Tune},
		{k.Back, k.Forward, k.Latest},
	}
}
