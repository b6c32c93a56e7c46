package metrics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// TestAllListsEveryMetric: every Metric this package declares is in All,
// which the exporter describes and serves from: one left out would have
// no description, and its series none either.
func TestAllListsEveryMetric(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "names.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range All {
		if listed[m.Name] {
			t.Errorf("%s is in All twice", m.Name)
		}
		listed[m.Name] = true
	}
	declared := 0
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if id, isIdent := lit.Type.(*ast.Ident); !isIdent || id.Name != "Metric" {
			return true
		}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if key, isIdent := kv.Key.(*ast.Ident); !isIdent || key.Name != "Name" {
				continue
			}
			name, err := strconv.Unquote(kv.Value.(*ast.BasicLit).Value)
			if err != nil {
				t.Fatal(err)
			}
			declared++
			if !listed[name] {
				t.Errorf("%s is declared in names.go and not in All", name)
			}
		}
		return true
	})
	if declared != len(All) {
		t.Errorf("%d metrics declared, %d in All", declared, len(All))
	}
}
