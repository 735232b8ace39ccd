package rooktest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"testing"

	"github.com/rookgo/rookgo/rooktest"
)

// refunds is a Go agent: each turn it looks the order up with a tool and says what it
// found, reporting the call and the tokens it used, as a hook prints them.
type refunds struct{}

func (refunds) Execute(ctx context.Context, c rooktest.Call) (rooktest.Reply, error) {
	in, out := int64(812), int64(64)
	return rooktest.Reply{
		Output: "Order ORD-2002 was delivered on 2 December.",
		Calls: []rooktest.ToolCall{{
			Name:      "lookup_order",
			Arguments: map[string]any{"order_id": "ORD-2002"},
			Output:    map[string]any{"status": "delivered"},
		}},
		Usage: &rooktest.Usage{Input: &in, Output: &out},
	}, nil
}

// A Go agent's reply with the tool it called and the tokens it used: the runtime reads it
// as it reads a hook's JSON, so check: called, check: usage and the judge see the same.
// The test package registers the agent once, for profiles that say hooks: {go: refunds}:
//
//	func init() { rooktest.RegisterAgent("refunds", func() (rooktest.Agent, error) { return refunds{}, nil }) }
func ExampleReply() {
	reply, err := refunds{}.Execute(context.Background(), rooktest.Call{Phase: "execute", Turn: 1, Message: "Where is ORD-2002?"})
	if err != nil {
		panic(err)
	}
	b, _ := json.MarshalIndent(reply, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "output": "Order ORD-2002 was delivered on 2 December.",
	//   "calls": [
	//     {
	//       "name": "lookup_order",
	//       "arguments": {
	//         "order_id": "ORD-2002"
	//       },
	//       "output": {
	//         "status": "delivered"
	//       }
	//     }
	//   ],
	//   "usage": {
	//     "input_tokens": 812,
	//     "output_tokens": 64
	//   }
	// }
}

// TestAgentTypesListTheirFields: go doc shows an alias's comment, not its fields, so each
// of the Go agent's types lists its fields there; a field added to one and not listed fails.
func TestAgentTypesListTheirFields(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "agent.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Doc != nil {
					docs[ts.Name.Name] = ts.Doc.Text()
				}
			}
		}
	}
	for name, typ := range map[string]reflect.Type{"Call": reflect.TypeFor[rooktest.Call](), "Reply": reflect.TypeFor[rooktest.Reply](),
		"ToolCall": reflect.TypeFor[rooktest.ToolCall](), "Usage": reflect.TypeFor[rooktest.Usage]()} {
		for i := range typ.NumField() {
			if field := typ.Field(i).Name; !regexp.MustCompile(`(?m)^\s+(\w+, )*` + field + `\b`).MatchString(docs[name]) {
				t.Errorf("rooktest.%s's comment does not list its field %s", name, field)
			}
		}
	}
}
