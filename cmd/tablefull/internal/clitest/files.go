package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildPackage builds the Debian package of this tree into out and
// returns its path.
func BuildPackage(t *testing.T, out string) string {
	t.Helper()
	cmd := exec.Command(Repo(t, "deploy", "debian", "build"), "1.2.3-4-gtest", out)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("build the package: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// GrepLines are the lines of text holding any of words.
func GrepLines(text string, words ...string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for _, w := range words {
			if strings.Contains(l, w) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// WriteFile writes text to path with mode, its directories made.
func WriteFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}
