package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryPageOpensWithItsCommands: each page of docs/ opens, under its
// headings, with a block of the commands that do its job (a how-to), and
// explains after; every tablefull command there is one tablefull takes:
// its subcommand's --help names each flag the line gives.
func TestEveryPageOpensWithItsCommands(t *testing.T) {
	pages, err := filepath.Glob("../../../../docs/*.md")
	if err != nil || len(pages) < 5 {
		t.Fatalf("the manual's pages: %v %v", pages, err)
	}
	for _, page := range pages {
		if filepath.Base(page) == "README.md" { // the manual's index: links only
			continue
		}
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		block, ok := openingBlock(string(text))
		if !ok {
			t.Errorf("%s does not open with the commands that do its job", filepath.Base(page))
			continue
		}
		for _, line := range strings.Split(block, "\n") {
			words := strings.Fields(line)
			if len(words) > 0 && words[0] == "sudo" {
				words = words[1:]
			}
			if len(words) == 0 || words[0] != "tablefull" {
				continue
			}
			checkCommandLine(t, filepath.Base(page), line)
		}
	}
}

// openingBlock is the first fenced block of a page, when nothing but
// headings and blank lines come before it.
func openingBlock(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch {
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#"):
			continue
		case strings.HasPrefix(l, "```"):
			for j := i + 1; j < len(lines); j++ {
				if strings.HasPrefix(lines[j], "```") {
					return strings.Join(lines[i+1:j], "\n"), j > i+1
				}
			}
		}
		return "", false
	}
	return "", false
}

// flagWord finds the flags of a command line: --name or -x, bracketed or
// in alternatives (-o|--output) as the usage lines write them.
var flagWord = regexp.MustCompile(`(?:^|[\s\[|])(--?[a-z][a-z0-9.-]*)`)

// quoted is a quoted argument: its words are not tablefull's flags;
// columns is the gap before a usage line's description; subcommandWord a
// word that names one.
var (
	quoted         = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	columns        = regexp.MustCompile(`\s{3,}`)
	subcommandWord = regexp.MustCompile(`^[a-z]+$`)
)

// checkCommandLine asks tablefull's help of line's subcommand (the first
// word after tablefull that is not a flag, or none) for each flag line
// gives, up to a # comment, a pipe or a usage line's description.
func checkCommandLine(t *testing.T, page, line string) {
	t.Helper()
	cmd, _, _ := strings.Cut(line, " #")
	cmd, _, _ = strings.Cut(cmd, " | ")
	cmd = columns.Split(cmd, 2)[0]
	_, args, _ := strings.Cut(quoted.ReplaceAllString(cmd, "ARG"), "tablefull")
	helpArgs := []string{"--help"}
	if f := strings.Fields(args); len(f) > 0 && subcommandWord.MatchString(f[0]) {
		helpArgs = []string{f[0], "--help"}
	}
	var out bytes.Buffer
	Run(helpArgs, &out, &out)
	help := out.String()
	if !strings.Contains(help, "tablefull") {
		t.Errorf("%s: %q: tablefull %s gives no help: %s", page, line, strings.Join(helpArgs, " "), help)
		return
	}
	for _, m := range flagWord.FindAllStringSubmatch(args, -1) {
		if name := strings.TrimLeft(m[1], "-"); !regexp.MustCompile(`(^|[\s,])--?` + regexp.QuoteMeta(name) + `\b`).MatchString(help) {
			t.Errorf("%s: %q: tablefull %s does not take %s", page, line, strings.Join(helpArgs, " "), m[1])
		}
	}
}
