package tui

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// A picture's cell, in pixels: a 14 px monospace font.
const (
	cellW    = 8.4
	cellH    = 17.0
	fontSize = 14
)

// pictureBG and pictureFG are the terminal's own background and text
// colours in a picture (a dark terminal's).
const (
	pictureBG = "#1e1e1e"
	pictureFG = "#d4d4d4"
)

// cellStyle is one run's SGR state.
type cellStyle struct {
	fg, bg    string // "" the terminal's own
	bold      bool
	underline bool
	reverse   bool
	faint     bool
}

// textRun is text of one style on a row.
type textRun struct {
	col  int
	text string
	st   cellStyle
}

// svgOf writes frames (screens with ANSI colours) as one SVG, each frame
// shown for hold in turn, for ever; a single frame is a still.
func svgOf(frames []string, cols, rows int, hold time.Duration) []byte {
	w, h := float64(cols)*cellW, float64(rows)*cellH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono,Menlo,Consolas,monospace" font-size="%d">`+"\n", w, h, w, h, fontSize)
	if n := len(frames); n > 1 {
		cycle := hold.Seconds() * float64(n)
		fmt.Fprintf(&b, "<style>.f{opacity:0;animation:show %.0fs step-end infinite}@keyframes show{0%%{opacity:1}%.4f%%{opacity:0}}</style>\n", cycle, 100/float64(n))
	}
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", pictureBG)
	for i, f := range frames {
		if len(frames) > 1 {
			fmt.Fprintf(&b, `<g class="f" style="animation-delay:%.0fs">`+"\n", hold.Seconds()*float64(i))
		} else {
			b.WriteString("<g>\n")
		}
		for r, line := range strings.Split(f, "\n") {
			if r >= rows {
				break
			}
			writeRow(&b, runsOf(line), r)
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// writeRow draws a row's runs: their backgrounds, then their text, each
// run stretched to exactly its cells so that columns line up whatever
// the viewer's font.
func writeRow(b *strings.Builder, runs []textRun, r int) {
	y := float64(r) * cellH
	for _, ru := range runs {
		fg, bg := ru.st.fg, ru.st.bg
		if ru.st.reverse {
			fg, bg = or(bg, pictureBG), or(fg, pictureFG)
		}
		n := ansi.StringWidth(ru.text)
		if bg != "" {
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, float64(ru.col)*cellW, y, float64(n)*cellW, cellH, bg)
		}
		if strings.TrimSpace(ru.text) == "" {
			continue
		}
		attrs := ""
		if ru.st.bold {
			attrs += ` font-weight="bold"`
		}
		if ru.st.underline {
			attrs += ` text-decoration="underline"`
		}
		if ru.st.faint {
			attrs += ` opacity="0.6"`
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="%s" textLength="%.1f" lengthAdjust="spacingAndGlyphs" xml:space="preserve"%s>%s</text>`,
			float64(ru.col)*cellW, y+cellH*0.78, or(fg, pictureFG), float64(n)*cellW, attrs, html.EscapeString(ru.text))
	}
	b.WriteString("\n")
}

// or is s, or alt when s is "".
func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// runsOf splits a line with SGR sequences into runs of one style.
func runsOf(line string) []textRun {
	var out []textRun
	var st cellStyle
	var text strings.Builder
	col, start := 0, 0
	flush := func() {
		if text.Len() > 0 {
			out = append(out, textRun{col: start, text: text.String(), st: st})
			text.Reset()
		}
		start = col
	}
	for i := 0; i < len(line); {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
				j++
			}
			if j < len(line) && line[j] == 'm' {
				flush()
				st = applySGR(st, line[i+2:j])
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		text.WriteRune(r)
		col += ansi.StringWidth(string(r))
		i += size
	}
	flush()
	return out
}

// applySGR applies one SGR sequence's parameters to st.
func applySGR(st cellStyle, params string) cellStyle {
	ps := strings.Split(params, ";")
	if params == "" {
		ps = []string{"0"}
	}
	for k := 0; k < len(ps); k++ {
		n, _ := strconv.Atoi(ps[k])
		switch {
		case n == 0:
			st = cellStyle{}
		case n == 1:
			st.bold = true
		case n == 2:
			st.faint = true
		case n == 4:
			st.underline = true
		case n == 7:
			st.reverse = true
		case n == 22:
			st.bold, st.faint = false, false
		case n == 24:
			st.underline = false
		case n == 27:
			st.reverse = false
		case n >= 30 && n <= 37, n >= 90 && n <= 97:
			st.fg = palette16(n)
		case n >= 40 && n <= 47, n >= 100 && n <= 107:
			st.bg = palette16(n - 10)
		case n == 39:
			st.fg = ""
		case n == 49:
			st.bg = ""
		case (n == 38 || n == 48) && k+1 < len(ps):
			var c string
			c, k = extendedColour(ps, k+1)
			if n == 38 {
				st.fg = c
			} else {
				st.bg = c
			}
		}
	}
	return st
}

// extendedColour reads 5;N (the 256-colour palette) or 2;R;G;B from
// ps[k:], and returns the colour and the index of its last parameter.
func extendedColour(ps []string, k int) (string, int) {
	num := func(i int) int {
		if i >= len(ps) {
			return 0
		}
		v, _ := strconv.Atoi(ps[i])
		return min(max(v, 0), 255)
	}
	switch ps[k] {
	case "2":
		return fmt.Sprintf("#%02x%02x%02x", num(k+1), num(k+2), num(k+3)), k + 3
	case "5":
		return palette256(num(k + 1)), k + 1
	}
	return "", k
}

// ansi16 are a dark terminal's 16 colours.
var ansi16 = []string{"#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
	"#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"}

// palette16 is the colour of SGR 30–37 and 90–97.
func palette16(n int) string {
	if n >= 90 {
		return ansi16[8+n-90]
	}
	return ansi16[n-30]
}

// palette256 is xterm's 256-colour palette.
func palette256(n int) string {
	switch {
	case n < 16:
		return ansi16[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	}
	g := 8 + 10*(n-232)
	return fmt.Sprintf("#%02x%02x%02x", g, g, g)
}
