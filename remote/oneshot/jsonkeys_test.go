package oneshot

import (
	"reflect"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/jsontest"
)

// TestJSONKeysOneStyle: snapshot --json and census --json print snake_case
// keys all the way down.
func TestJSONKeysOneStyle(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(Snapshot{}), reflect.TypeOf(model.Census{})} {
		if bad := jsontest.KeyFaults(typ); len(bad) > 0 {
			t.Errorf("%s: keys not in snake_case: %v", typ, bad)
		}
	}
}
