package cluster

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// declaredChangeKinds reads change.go's ChangeKind constants, in order.
func declaredChangeKinds(t *testing.T) []ChangeKind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "change.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []ChangeKind
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ChangeKind" {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					out = append(out, ChangeKind(strings.Trim(lit.Value, `"`)))
				}
			}
		}
	}
	return out
}

// TestEveryChangeKindIsHandled: every ChangeKind constant is in the table
// (ChangeKinds, Subject), and a change of that kind has its own text and
// JSON (not the bare kind the switches fall back to).
func TestEveryChangeKindIsHandled(t *testing.T) {
	declared := declaredChangeKinds(t)
	if len(declared) == 0 {
		t.Fatal("no ChangeKind constant found in change.go")
	}
	if got := ChangeKinds(); !slices.Equal(got, declared) {
		t.Errorf("ChangeKinds() = %v\nthe constants: %v", got, declared)
	}
	for _, k := range declared {
		c := Change{Kind: k, Topic: "t", Partition: 1, Broker: 2, Error: "e", Path: "/p"}
		if c.String() == string(k) {
			t.Errorf("%s: String has no case for it", k)
		}
		b, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if bare := `{"kind":"` + string(k) + `","path":"/p"}`; string(b) == bare {
			t.Errorf("%s: MarshalJSON has no case for it: %s", k, b)
		}
	}
	if ChangeKind("nonsense").Subject() != SubjectZNode {
		t.Error("an unknown kind's subject")
	}
}
