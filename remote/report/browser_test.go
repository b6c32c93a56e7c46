package report

import (
	"image"
	"image/color"
	"path/filepath"
	"testing"
)

// TestHTMLInChromium renders report.html in a real browser (Debian's
// chromium, headless, no network) to a PNG and looks at it: the page is
// not blank, the charts were drawn (the verdict band's and the cap's
// red is on it), and nothing was fetched (the page's CSP forbids it).
func TestHTMLInChromium(t *testing.T) {
	t.Parallel()
	browser, _, dir := writtenInBrowser(t)
	page := filepath.Join(dir, "report.html")
	img := screenshot(t, browser, page, 1200, 1800)
	inked, red := census(img)
	total := img.Bounds().Dx() * img.Bounds().Dy()
	if inked*100 < total*3 {
		t.Errorf("the page is nearly blank: %d of %d pixels are not white", inked, total)
	}
	if red < 500 {
		t.Errorf("only %d red pixels: the verdict band and the cap were not drawn", red)
	}
}

// census counts the pixels that are not white, and those close to the
// report's crit red.
func census(img image.Image) (inked, red int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if c.R < 240 || c.G < 240 || c.B < 240 {
				inked++
			}
			if c.R > 150 && c.G < 70 && c.B < 80 {
				red++
			}
		}
	}
	return inked, red
}
