// Package jsontest checks the documents tablefull prints with --json:
// one key style, snake_case, down every field a document can hold.
package jsontest

import (
	"encoding"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
)

// snake is a key in the one style: lower case words joined by "_".
var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

var (
	marshaler     = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
)

// KeyFaults are the fields of t, and of every type it holds, whose JSON
// key is not snake_case, each as its path ("Plan.Changes[].Key"); map
// keys are the data's, not the type's. A type
// that marshals itself is taken at its word.
func KeyFaults(t reflect.Type) []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if t.Kind() != reflect.Pointer {
				path += "[]"
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
			t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
			return
		}
		seen[t] = true
		if path != "" {
			path += "."
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			switch {
			case tag == "-":
				continue
			case f.Anonymous && name == "":
				walk(f.Type, strings.TrimSuffix(path, "."))
				continue
			case name == "" || !snake.MatchString(name):
				out = append(out, path+f.Name)
			}
			walk(f.Type, path+f.Name)
		}
	}
	walk(t, "")
	return out
}
