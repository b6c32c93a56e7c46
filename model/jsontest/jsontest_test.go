package jsontest

import (
	"reflect"
	"slices"
	"testing"
)

type inner struct {
	Good  int `json:"good_key"`
	Plain int
}

type outer struct {
	Name   string           `json:"name"`
	Camel  string           `json:"camelCase"`
	Rows   []inner          `json:"rows"`
	ByName map[string]inner `json:"by_name"`
	Hidden int              `json:"-"`
	hidden int
}

var _ = outer{hidden: 0} // an unexported field is no key

// TestKeyFaults: untagged and camelCase fields are found however deep,
// through slices and maps; "-" and unexported fields are not keys.
func TestKeyFaults(t *testing.T) {
	got := KeyFaults(reflect.TypeOf(outer{}))
	want := []string{"Camel", "Rows[].Plain"}
	if !slices.Equal(got, want) {
		t.Errorf("KeyFaults = %v, want %v", got, want)
	}
}
