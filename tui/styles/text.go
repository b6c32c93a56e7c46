package styles

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Text is a role's style for one line of text: it renders as its
// lipgloss style does, with the escape sequences worked out once. A
// panel renders dozens of short values per frame, and lipgloss spells out
// each colour's sequence again on every Render.
type Text struct {
	lipgloss.Style
	open, close string
}

// textOf makes a Text of a style that sets only colours and attributes
// (no width, padding, margins or border: Render would do more than wrap).
func textOf(s lipgloss.Style) Text {
	const mark = "\x00"
	open, close, _ := strings.Cut(s.Render(mark), mark)
	return Text{Style: s, open: open, close: close}
}

// Render joins strs with spaces, as lipgloss does, and wraps them in the
// style's escape sequences. Text with line breaks or tabs goes through
// lipgloss, which styles each line and expands tabs.
func (t Text) Render(strs ...string) string {
	str := strings.Join(strs, " ")
	if strings.ContainsAny(str, "\n\r\t") {
		return t.Style.Render(str)
	}
	return t.open + str + t.close
}
