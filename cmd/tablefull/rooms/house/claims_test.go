package house

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// touchesTheTable are the helpers that make tracked entries or write the
// global knobs: a test that calls one beside others claims what it needs.
var touchesTheTable = map[string]bool{
	"LabNS": true, "LowerMax": true, "SetBuckets": true, "pin": true, "TuneFromHost": true,
	"FollowUntilFree": true, "UndoFromHost": true, "HoldEntries": true,
}

// TestParallelTestsClaim: a test of the command's rooms runs beside others only
// through nstest.Parallel, with its claim of the machine's shared knobs,
// when it tracks entries or writes a knob; a bare t.Parallel is for a
// test that touches neither (a package build, a guest's own kernel).
func TestParallelTestsClaim(t *testing.T) {
	var files []string
	err := filepath.WalkDir(clitest.Repo(t, "cmd", "tablefull"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			bare, touches := false, ""
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fun := call.Fun.(type) {
				case *ast.SelectorExpr:
					if x, ok := fun.X.(*ast.Ident); ok && x.Name == "t" && fun.Sel.Name == "Parallel" {
						bare = true
					}
					if touchesTheTable[fun.Sel.Name] {
						touches = fun.Sel.Name
					}
				case *ast.Ident:
					if touchesTheTable[fun.Name] {
						touches = fun.Name
					}
				}
				return true
			})
			if bare {
				checked++
			}
			if bare && touches != "" {
				t.Errorf("%s: %s runs beside others with a bare t.Parallel and calls %s: claim the knobs with nstest.Parallel", path, fn.Name.Name, touches)
			}
		}
	}
	if checked == 0 {
		t.Error("no test calls t.Parallel: the check reads nothing")
	}
}
