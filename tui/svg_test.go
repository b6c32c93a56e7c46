package tui

import (
	"strings"
	"testing"
	"time"
)

// TestSVGRuns: a line's SGR colours (true colour, the 256 palette, the
// 16 colours, reverse, reset) become runs at their cells, wide or not;
// the frames of a picture take turns and a still has no animation.
func TestSVGRuns(t *testing.T) {
	line := "\x1b[1;38;2;255;0;0mTABLE FULL\x1b[0m — \x1b[38;5;196m4,096\x1b[39m│\x1b[7m▀\x1b[0m\x1b[31mx\x1b[m"
	runs := runsOf(line)
	want := []struct {
		col  int
		text string
		fg   string
		bold bool
	}{{0, "TABLE FULL", "#ff0000", true}, {10, " — ", "", false}, {13, "4,096", "#ff0000", false}, {18, "│", "", false}, {19, "▀", "", false}, {20, "x", "#cd3131", false}}
	if len(runs) != len(want) {
		t.Fatalf("runs %+v", runs)
	}
	for i, w := range want {
		if r := runs[i]; r.col != w.col || r.text != w.text || r.st.fg != w.fg || r.st.bold != w.bold {
			t.Errorf("run %d: %+v, want %+v", i, r, w)
		}
	}
	if !runs[4].st.reverse {
		t.Error("reverse lost")
	}
	anim := string(svgOf([]string{"a", "b", "c"}, 10, 2, time.Second))
	if strings.Count(anim, `class="f"`) != 3 || !strings.Contains(anim, "animation-delay:2s") || !strings.Contains(anim, "@keyframes") {
		t.Errorf("three frames do not take turns:\n%s", anim)
	}
	if still := string(svgOf([]string{"a<b"}, 10, 2, time.Second)); strings.Contains(still, "@keyframes") || !strings.Contains(still, "a&lt;b") {
		t.Errorf("a still:\n%s", still)
	}
}
