package report

import (
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestInlineChartsMatchTheirSVGs: in Chromium, each chart drawn inline
// in report.html, with every other chart still in the page (their ids
// beside its own), looks as its standalone .svg does: the page shows
// only that figure, the .svg is shown alone, and the two screenshots
// agree pixel for pixel but for anti-aliasing. Five charts that shared a
// clip path drew every chart inside the first one's.
func TestInlineChartsMatchTheirSVGs(t *testing.T) {
	t.Parallel()
	browser, r, dir := writtenInBrowser(t)
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	size := regexp.MustCompile(`<svg [^>]*width="(\d+)" height="(\d+)"`)
	for _, c := range r.Charts {
		m := size.FindSubmatch(c.SVG)
		if m == nil {
			t.Fatalf("%s: no size in its svg", c.Name)
		}
		w, _ := strconv.Atoi(string(m[1]))
		h, _ := strconv.Atoi(string(m[2]))
		only := fmt.Sprintf(`<style>html,body{margin:0;padding:0;max-width:none;overflow:hidden} body *{visibility:hidden}
#%[1]s,#%[1]s *{visibility:visible} #%[1]s{position:fixed;left:0;top:0;margin:0;width:%[2]dpx} #%[1]s figcaption{display:none}</style></head>`, c.Name, w)
		inline := filepath.Join(dir, c.Name+"-inline.html")
		if err := os.WriteFile(inline, []byte(strings.Replace(string(html), "</head>", only, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		alone := filepath.Join(dir, c.Name+"-alone.html")
		page := fmt.Sprintf(`<!DOCTYPE html><html><head><style>html,body{margin:0;padding:0;overflow:hidden}</style></head><body><img style="display:block" width="%d" height="%d" src="data:image/svg+xml;base64,%s"></body></html>`,
			w, h, base64.StdEncoding.EncodeToString(c.SVG))
		if err := os.WriteFile(alone, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		a, b := screenshot(t, browser, inline, w, h), screenshot(t, browser, alone, w, h)
		if differ, all := pixelsApart(a, b); differ*200 > all { // over 0.5 %
			t.Errorf("%s: the inline chart differs from its .svg in %d of %d pixels", c.Name, differ, all)
		}
	}
}

// writtenInBrowser is the lab's report written into a directory, with
// the Chromium to look at it in; the test skips without one.
func writtenInBrowser(t *testing.T) (browser string, r *Report, dir string) {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("needs chromium (Debian's chromium package; .ci/run installs it)")
	}
	r = buildFile(t, "testdata/lab-table-full.jsonl", Options{})
	dir = t.TempDir()
	if _, err := r.Write(dir, false); err != nil {
		t.Fatal(err)
	}
	return browser, r, dir
}

// screenshot renders page in headless Chromium at w × h.
func screenshot(t *testing.T, browser, page string, w, h int) image.Image {
	t.Helper()
	dir := filepath.Dir(page)
	shot := strings.TrimSuffix(page, ".html") + ".png"
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--force-device-scale-factor=1", "--user-data-dir="+filepath.Join(dir, "profile"), fmt.Sprintf("--window-size=%d,%d", w, h),
		"--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img
}

// pixelsApart counts the pixels whose colour differs by more than
// anti-aliasing does, over the area both images cover.
func pixelsApart(a, b image.Image) (differ, all int) {
	r := a.Bounds().Intersect(b.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := color.NRGBAModel.Convert(a.At(x, y)).(color.NRGBA)
			q := color.NRGBAModel.Convert(b.At(x, y)).(color.NRGBA)
			d := max(absDiff(p.R, q.R), absDiff(p.G, q.G), absDiff(p.B, q.B))
			if d > 48 {
				differ++
			}
			all++
		}
	}
	return differ, all
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
