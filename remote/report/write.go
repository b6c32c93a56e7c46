package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/remote/recording"
)

//go:embed templates/report.html.tmpl
var templates embed.FS

// page is parsed when a report is first written, not as the program
// starts: every subcommand would pay for the parse (its code and a deeper
// stack) otherwise.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
		"svg":     inlineSVG,
		"numeric": numeric,
	}).ParseFS(templates, "templates/report.html.tmpl"))
})

// inlineSVG is a chart for the page: its SVG without the XML
// prolog. It is our own drawing (its text escaped by svg.go),
// never a string of the recording's.
func inlineSVG(c Chart) template.HTML {
	s := string(c.SVG)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s) // #nosec: drawn here, its text escaped (svg.go)
}

// numeric reports whether a cell is a number, to align it right.
func numeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != ',' && r != '.' {
			return false
		}
	}
	return true
}

// meta is the line under the heading.
func (r *Report) meta() string {
	in := r.Incident
	return fmt.Sprintf("%s · kernel %s · %s – %s UTC · %s", safe.Text(in.Host.Name, 64), safe.Text(in.Host.Kernel, 64),
		in.From.UTC().Format("2006-01-02 15:04:05"), in.To.UTC().Format("2006-01-02 15:04:05"), safe.Text(r.Source, 200))
}

// HTML is report.html: one file, charts inline, no script, no network.
func (r *Report) HTML() ([]byte, error) {
	var b bytes.Buffer
	err := page().Execute(&b, struct {
		Heading, Meta string
		Sections      []section
	}{r.Heading(), r.meta(), r.sections()})
	if err != nil {
		return nil, fmt.Errorf("render report.html: %w", err)
	}
	return b.Bytes(), nil
}

// Files are the report's files by name: report.html, report.md and a
// .svg a chart.
func (r *Report) Files() (map[string][]byte, error) {
	h, err := r.HTML()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{"report.html": h, "report.md": r.Markdown()}
	for _, c := range r.Charts {
		files[c.Name+".svg"] = c.SVG
	}
	return files, nil
}

// Write writes the files into dir (made if missing). Without force it
// refuses to replace any of them; with force it replaces regular files
// only, never writing through a symlink.
func (r *Report) Write(dir string, force bool) ([]string, error) {
	files, err := r.Files()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	if !force {
		for _, name := range names {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return nil, fmt.Errorf("%s exists: choose another directory or pass --force", filepath.Join(dir, name))
			}
		}
	}
	var written []string
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		f, err := recording.CreateFile(path, force)
		if err != nil {
			return written, err
		}
		_, werr := f.Write(files[name])
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return written, fmt.Errorf("write %s: %w", path, werr)
		}
		written = append(written, path)
	}
	return written, nil
}
