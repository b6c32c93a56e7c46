package clitest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ManualFiles are the README and the manual's pages in docs/.
func ManualFiles(t testing.TB) []string {
	t.Helper()
	pages, err := filepath.Glob(Repo(t, "docs", "*.md"))
	if err != nil || len(pages) < 5 {
		t.Fatalf("the manual's pages: %v %v", pages, err)
	}
	return append([]string{Repo(t, "README.md")}, pages...)
}

// Manual is the README and every page of docs/, as one text: where a
// test asks what the documentation says, it reads all of it.
func Manual(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	for _, f := range ManualFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(text)
		b.WriteString("\n")
	}
	return b.String()
}

// ImageTag is the tag make image gives by default, from the Makefile.
func ImageTag(t testing.TB) string {
	t.Helper()
	mk, err := os.ReadFile(Repo(t, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mk), "\n") {
		if k, v, ok := strings.Cut(line, "?="); ok && strings.TrimSpace(k) == "IMAGE_TAG" {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("the Makefile sets no IMAGE_TAG")
	return ""
}

// ReadmeBlock is the fenced block under the README's heading title.
func ReadmeBlock(t *testing.T, readme, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "## "+title+"\n")
	if !ok {
		t.Fatalf("the README has no %q", title)
	}
	_, block, ok := strings.Cut(rest, "```\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatalf("no block under %q", title)
	}
	return block
}
