package record

import (
	"bytes"
	stdflag "flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/tui"
)

var updateREADME = stdflag.Bool("update-readme", false, "rewrite the README's text example from the demo's picture")

// readmeExample is where the README's text example sits: the first code
// block after this heading.
const readmeExample = "## What it looks like"

// TestREADMEExampleIsThePicturesFirstFrame: the README's text example is
// the first frame of its picture — one run (the demo), drawn once, the
// text and the picture both from it — and that frame is the incident,
// not the quiet before it.
func TestREADMEExampleIsThePicturesFirstFrame(t *testing.T) {
	t.Setenv("TZ", "UTC") // as make pictures draws it
	time.Local = time.UTC
	feed, err := recording.Demo()
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Stop()
	first, _ := feed.First()
	var pic tui.PictureRequest
	pic.Every = 5 * time.Second // --svg-every's default, as make pictures draws the demo
	frames, err := tui.PictureFrames(feed, tui.PlaybackOptions(first.Interval, 1, true), 100, 32, pic.Every)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(ansi.Strip(frames[0]), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	want := strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
	if !strings.Contains(want, "TABLE FULL") && !strings.Contains(want, "NEAR CAP") {
		t.Errorf("the picture opens on a frame with no incident:\n%s", want)
	}
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(readme, []byte(readmeExample))
	open := bytes.Index(readme[max(at, 0):], []byte("```\n"))
	if at < 0 || open < 0 {
		t.Fatalf("the README has no code block under %q", readmeExample)
	}
	start := at + open + len("```\n")
	end := bytes.Index(readme[start:], []byte("```\n"))
	if end < 0 {
		t.Fatal("the README's example block does not end")
	}
	if got := string(readme[start : start+end]); got != want {
		if *updateREADME {
			out := append(append(append([]byte{}, readme[:start]...), want...), readme[start+end:]...)
			if err := os.WriteFile("../../../../README.md", out, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the README's example is not the first frame of the demo's picture (go test ./cmd/tablefull/rooms/record -run READMEExample -update-readme):\n%s", want)
	}
}
