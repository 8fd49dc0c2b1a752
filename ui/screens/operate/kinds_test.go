package operate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
)

// declaredOperationKinds reads ui/nav's OperationKind constants, in
// order: one iota block, so the i-th has the value i.
func declaredOperationKinds(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../nav/nav.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		in := false
		for i, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "OperationKind" {
				if v, ok := vs.Values[0].(*ast.Ident); i != 0 || len(vs.Values) != 1 || !ok || v.Name != "iota" {
					t.Fatalf("nav.%s: the OperationKinds are not one iota block starting at 0", vs.Names[0].Name)
				}
				in = true
			} else if vs.Type != nil || vs.Values != nil {
				in = false
			}
			if in {
				for _, n := range vs.Names {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}

// TestEveryOperationKind: every nav.OperationKind has its row in kinds
// (how to make it, how the shell refuses it), and the wizard opens it on
// a cluster: a kind without a row would be a nil function called at open.
func TestEveryOperationKind(t *testing.T) {
	declared := declaredOperationKinds(t)
	if len(declared) == 0 {
		t.Fatal("no OperationKind constant found in ui/nav/nav.go")
	}
	if len(kinds) != len(declared) {
		t.Errorf("kinds has %d rows, nav declares %d OperationKinds: %v", len(kinds), len(declared), declared)
	}
	for i, name := range declared {
		t.Run(name, func(t *testing.T) {
			if i >= len(kinds) {
				t.Fatalf("nav.%s has no row in kinds", name)
			}
			k := kinds[i]
			if k.make == nil || k.what == nil || k.unavailable == "" {
				t.Fatalf("nav.%s: its row in kinds is incomplete (make %t, what %t, unavailable %q)", name, k.make != nil, k.what != nil, k.unavailable)
			}
			op := nav.Operation{Kind: nav.OperationKind(i), Broker: 3, Topic: "orders"}
			readOnly, noWriter := Refusals(op)
			if !strings.HasPrefix(readOnly, "read-only mode: refusing to ") || len(readOnly) == len("read-only mode: refusing to ") || noWriter == "" {
				t.Errorf("refusals %q, %q", readOnly, noWriter)
			}
			e := newAnyEnv(t, spec(), op, 120, 40)
			if e.m.Operation() != op || e.m.op.subject() == "" || !strings.Contains(e.m.Title(), e.m.op.subject()) {
				t.Errorf("opened as %+v, title %q", e.m.Operation(), e.m.Title())
			}
			if out := view(e.m); out == "" {
				t.Error("it shows nothing")
			}
		})
	}
}

// busyOp is an operation that says whether it is still busy.
type busyOp struct {
	operation
	working bool
}

func (b *busyOp) busy() bool { return b.working }

var _ detacher = (*reassign)(nil)

// TestDetachBusy: once its stage says done, the wizard goes on in the
// background only while its operation is busy (a detacher: a
// reassignment removing its throttles); an operation that is not a
// detacher is then closed.
func TestDetachBusy(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   func(operation) operation
		want bool
	}{
		{"busy", func(op operation) operation { return &busyOp{op, true} }, true},
		{"idle", func(op operation) operation { return &busyOp{op, false} }, false},
		{"no detacher", func(op operation) operation { return op }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newAnyEnv(t, spec(), nav.Operation{Kind: nav.OpElect, Topic: "orders"}, 120, 40)
			e.m.op = tc.op(e.m.op)
			e.m.fr.Finish()
			if got := e.m.Detach(); got != tc.want || e.m.fr.Detached() != tc.want {
				t.Errorf("Detach at done = %t (detached %t), want %t", got, e.m.fr.Detached(), tc.want)
			}
		})
	}
	// While it works, any operation goes on in the background.
	e := newAnyEnv(t, spec(), nav.Operation{Kind: nav.OpElect, Topic: "orders"}, 120, 40)
	e.m.fr.Begin()
	if !e.m.Detach() {
		t.Error("closed while writing")
	}
	if e.m.fr.Stage != wizard.StageWriting {
		t.Errorf("stage %s", e.m.fr.Stage)
	}
}
