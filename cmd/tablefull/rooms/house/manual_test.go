package house

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	keymap "github.com/tablefull/tablefull/tui/keys"
)

// TestREADMEIsOneScreen: the README is a way in, two screens of a
// 50-line terminal at most above its links to the manual.
func TestREADMEIsOneScreen(t *testing.T) {
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	above, _, ok := strings.Cut(string(readme), "\n## The manual\n")
	if n := strings.Count(above, "\n"); !ok || n > 100 {
		t.Errorf("the README has %d lines above its links to the manual (found: %v), more than two screens", n, ok)
	}
}

// TestManualLinksResolve: every relative link of the README and the
// manual names a file that is there, and every #anchor a heading of it.
func TestManualLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	seen := 0
	for _, f := range clitest.ManualFiles(t) {
		text, _ := os.ReadFile(f)
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			seen++
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s links %s, which is not there", f, target)
					continue
				}
			}
			if anchor != "" {
				body, _ := os.ReadFile(file)
				if !slugs(string(body))[anchor] {
					t.Errorf("%s links %s: no such heading", f, target)
				}
			}
		}
	}
	if seen < 10 {
		t.Errorf("%d relative links found: the test reads nothing", seen)
	}
}

// slugs are the anchors GitHub makes of a page's headings.
func slugs(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		h = regexp.MustCompile(`[^\p{L}\p{N} _-]`).ReplaceAllString(h, "")
		out[strings.ReplaceAll(h, " ", "-")] = true
	}
	return out
}

// TestManualListsEveryKey: every key of the console's one keymap is in
// the manual, with its key as the help shows it.
func TestManualListsEveryKey(t *testing.T) {
	text := clitest.Manual(t)
	k := keymap.DefaultKeyMap()
	v := reflect.ValueOf(k)
	for i := range v.NumField() {
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok {
			continue
		}
		for _, name := range b.Keys() {
			shown := map[string]string{"left": "←", "right": "→", "up": "↑", "down": "↓", "end": "end", "pgup": "pgup", "pgdown": "pgdown", " ": "space"}[name]
			if shown == "" {
				shown = name
			}
			if len(name) == 1 && name >= "1" && name <= "9" && strings.Contains(text, "`1`–`9`") { // the tabs, as a range
				continue
			}
			if !strings.Contains(text, "`"+shown+"`") && !strings.Contains(text, "`"+name+"`") {
				t.Errorf("the manual does not name the key %s (%s: %s)", name, v.Type().Field(i).Name, b.Help().Desc)
			}
		}
	}
}
