package tunecmd

import (
	"reflect"
	"testing"

	"github.com/tablefull/tablefull/model/jsontest"
)

// TestJSONKeysOneStyle: tune --json and tune --until-free --json print
// snake_case keys all the way down, verdicts and plans included.
func TestJSONKeysOneStyle(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(tuneReport{}), reflect.TypeOf(LoopStep{})} {
		if bad := jsontest.KeyFaults(typ); len(bad) > 0 {
			t.Errorf("%s: keys not in snake_case: %v", typ, bad)
		}
	}
}
