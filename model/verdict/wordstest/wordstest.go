// Package wordstest checks a package's clauses against its table of
// words: every key its source names has words.
package wordstest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/verdict"
)

// KeysNamed are the clause keys the non-test Go files of dir name as
// string literals: the key argument of say(w, key, …), of a method
// say(key, …) or Reason(key, …), and a Part's Key. Keys built at run
// time (a base and a variant) are left to the checks over every frame.
func KeysNamed(t *testing.T, dir string) map[string]token.Position {
	t.Helper()
	fs := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]token.Position{}
	add := func(e ast.Expr) {
		if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if k, err := strconv.Unquote(b.Value); err == nil {
				keys[k] = fs.Position(b.Pos())
			}
		}
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fs, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				switch fun := n.Fun.(type) {
				case *ast.Ident:
					if fun.Name == "say" && len(n.Args) > 1 {
						add(n.Args[1])
					}
				case *ast.SelectorExpr:
					if (fun.Sel.Name == "say" || fun.Sel.Name == "Reason") && len(n.Args) > 0 {
						add(n.Args[0])
					}
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Part" {
					for _, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Key" {
								add(kv.Value)
							}
						}
					}
				}
			}
			return true
		})
	}
	return keys
}

// CheckKeys fails t for each key dir names that ws has no words for, and
// when dir names none (the check would read nothing).
func CheckKeys(t *testing.T, dir string, ws verdict.Words) {
	t.Helper()
	keys := KeysNamed(t, dir)
	if len(keys) == 0 {
		t.Fatalf("%s names no clause key: the check reads nothing", dir)
	}
	for k, pos := range keys {
		if _, ok := ws[k]; !ok {
			t.Errorf("%s: clause key %q has no words in its table", pos, k)
		}
	}
}
