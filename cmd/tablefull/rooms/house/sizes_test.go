package house

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoomSizes: the house keeps its proportions. No Go file we wrote is
// over 350 lines, no function over 80 (generated code aside), and cmd's
// wiring, package main and its command line (internal/cli; not its test
// programs in testdata, nor cmd/tablefull/internal's other packages,
// which wire nothing), stays under 800 lines. model's root holds at most 25 files: the data a sample carries;
// what judges it, and the generic helpers beneath it, are rooms of their
// own. Nothing in model/ imports regexp but the JSON key-style check:
// model reads no number back out of words.
func TestRoomSizes(t *testing.T) {
	out, err := exec.Command("git", "-C", "../../../..", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a checkout)", err)
	}
	cmdLines, modelRoot := 0, 0
	for _, rel := range strings.Fields(string(out)) {
		path := filepath.Join("../../../..", rel)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("// Code generated")) {
			continue
		}
		lines := bytes.Count(src, []byte("\n"))
		test := strings.HasSuffix(rel, "_test.go")
		if !test && lines > 350 {
			t.Errorf("%s: %d lines (at most 350)", rel, lines)
		}
		if !test && filepath.Dir(rel) == "model" {
			modelRoot++
		}
		if !test && strings.HasPrefix(rel, "cmd/") && !strings.Contains(rel, "/testdata/") && (!strings.Contains(rel, "/internal/") || strings.Contains(rel, "/internal/cli/")) {
			cmdLines += lines
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if im.Path.Value == `"regexp"` && strings.HasPrefix(rel, "model/") && !strings.HasPrefix(rel, "model/jsontest/") {
				t.Errorf("%s imports regexp: model reads no number back out of words (a test's printed-text oracle is tui/printedtest)", rel)
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || test {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 80 {
				t.Errorf("%s: func %s is %d lines (at most 80)", rel, fn.Name.Name, n)
			}
		}
	}
	if modelRoot > 25 {
		t.Errorf("model's root holds %d files (at most 25: its rooms hold the rest)", modelRoot)
	}
	if cmdLines > 800 {
		t.Errorf("cmd is %d lines of Go (at most 800: wiring)", cmdLines)
	}
}

// TestNoBuildOutputTracked: no build output is in git — no ELF file but
// bpf2go's eBPF objects, which are committed and checked by make
// bpf-check, and no file over 5 MB (a clone downloads every one).
func TestNoBuildOutputTracked(t *testing.T) {
	out, err := exec.Command("git", "-C", "../../../..", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a checkout)", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		path := filepath.Join("../../../..", rel)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // removed in the work tree, or a link
		}
		if fi.Size() > 5<<20 {
			t.Errorf("%s is tracked at %d bytes (over 5 MB)", rel, fi.Size())
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		if n == 4 && bytes.Equal(head, []byte("\x7fELF")) && !strings.HasPrefix(rel, "sources/probes/probes_bpfe") {
			t.Errorf("%s is a tracked ELF file: build output belongs in .gitignore", rel)
		}
	}
}
