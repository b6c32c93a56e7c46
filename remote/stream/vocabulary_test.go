package stream

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
)

var updateFormat = flag.Bool("update-format", false, "rewrite FORMAT.md from the vocabulary")

// jsonKeys are the JSON keys of t's fields, embedded structs flattened.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			keys = append(keys, jsonKeys(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}

func describedKeys() []string {
	var keys []string
	for _, f := range vocabulary {
		keys = append(keys, f.Key)
	}
	sort.Strings(keys)
	return keys
}

// encodedKeys are the keys the encoder writes: wireSample's and
// wireEvent's tags and the vocabulary's parts.
func encodedKeys() []string {
	keys := jsonKeys(reflect.TypeOf(record{}))
	for _, f := range vocabulary {
		if f.part != nil {
			keys = append(keys, f.Key)
		}
	}
	sort.Strings(keys)
	return keys
}

// TestRecordFieldsAgree: the encoder's keys are the vocabulary's, and the
// lines with every field (everyFieldLines, which TestScanReadsWhatWeWrite
// reads with the scanner) carry every row key: a key added to the
// encoder, the vocabulary or the scanner alone fails here or there. The
// parts, written and read through the vocabulary itself, are each
// checked by TestEveryPartCarried.
func TestRecordFieldsAgree(t *testing.T) {
	described := describedKeys()
	if enc := encodedKeys(); !reflect.DeepEqual(enc, described) {
		t.Errorf("the encoder writes %q, the vocabulary describes %q", enc, described)
	}
	seen := map[string]bool{}
	for _, line := range everyFieldLines(t) {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(line, &top); err != nil {
			t.Fatal(err)
		}
		for k := range top {
			seen[k] = true
		}
	}
	for _, f := range vocabulary {
		if k := f.Key; f.part == nil && !seen[k] {
			t.Errorf("no line of everyFieldLines carries %q: the scanner is not checked on it", k)
		}
	}
	if len(vocabulary) > maxObjectKeys {
		t.Errorf("%d fields: the scanner reads at most %d keys of an object", len(vocabulary), maxObjectKeys)
	}
}

// formatDocument is FORMAT.md: the stream's fields, from the vocabulary.
func formatDocument() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The tablefull stream, version %d: record fields\n\n", Version)
	b.WriteString("Written by `go test ./remote/stream -update-format` from `vocabulary` in\n`remote/stream/vocabulary.go`; the format itself is described in `remote/stream/doc.go`.\n\n")
	b.WriteString("| key | in | holds |\n|---|---|---|\n")
	for _, f := range vocabulary {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Key, f.In, strings.ReplaceAll(f.Doc, "|", `\|`))
	}
	return b.Bytes()
}

// TestFormatDocument: FORMAT.md is what the vocabulary says.
func TestFormatDocument(t *testing.T) {
	want := formatDocument()
	if *updateFormat {
		if err := os.WriteFile("FORMAT.md", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("FORMAT.md is not the vocabulary's (go test ./remote/stream -update-format rewrites it)")
	}
}

// filled sets every exported field of v, however deep, to a value that
// is not zero (strings with bytes a terminal or JSON must escape), so a
// test can carry a field it was not written for.
func filled(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		filled(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(t0))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				filled(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		filled(v.Index(0), depth+1)
	case reflect.Array:
		for i := range v.Len() {
			filled(v.Index(i), depth+1)
		}
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		filled(k, depth+1)
		filled(e, depth+1)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("a\x1b<é>\"")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	}
}

// TestEveryPartCarried: each field of a sample the vocabulary carries as
// its model's JSON, filled however it is shaped, is written by the
// encoder, read alike by the scanner and by encoding/json, and arrives in
// the decoded sample. A field added to the vocabulary is checked here
// without a line of this test changing.
func TestEveryPartCarried(t *testing.T) {
	for _, f := range vocabulary {
		if f.part == nil {
			continue
		}
		s := model.Sample{Time: t0}
		filled(reflect.ValueOf(f.part.at(&s)).Elem(), 0)
		legal(reflect.ValueOf(&s).Elem())
		var buf bytes.Buffer
		enc, err := NewEncoder(&buf, model.Host{Name: "h"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Sample(s); err != nil {
			t.Fatalf("%s: %v", f.Key, err)
		}
		line := bytes.SplitAfter(buf.Bytes(), []byte("\n"))[1]
		var d lineDecoder
		scanned, ok := d.scan(line)
		if !ok {
			t.Errorf("%s: the scanner does not read %s", f.Key, line)
			continue
		}
		want, err := decodeJSON(line)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(scanned, want) {
			t.Errorf("%s: scan %+v\njson %+v", f.Key, scanned, want)
		}
		got, err := fromWire(&scanned)
		if err != nil {
			t.Errorf("%s: %v", f.Key, err)
			continue
		}
		if !f.part.present(&got) {
			t.Errorf("%s: written as %s, not in the decoded sample", f.Key, line)
			continue
		}
		for _, fault := range carriedFaults(f.Key, reflect.ValueOf(f.part.at(&s)).Elem(), reflect.ValueOf(f.part.at(&got)).Elem()) {
			t.Errorf("written as %s: %s", line, fault)
		}
	}
}

// legal makes the filled values a stream may carry only from a set
// legal: an owner's kind one tablefull writes, a drifted knob one it
// tunes (anything else is dropped on landing, by design).
func legal(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			legal(v.Elem())
		}
	case reflect.Struct:
		switch x := v.Addr().Interface().(type) {
		case *model.Owner:
			x.Kind = "unit"
			return
		case *knob.Drifts:
			x.Checked = []string{knob.Max}
			for i := range x.Drifted {
				x.Drifted[i].Knob = knob.Max
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				legal(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			legal(v.Index(i))
		}
	}
}

// notTaken are the fields a stream may write that a console never takes
// from it, by design.
var notTaken = map[string]bool{
	"NetNS.Path": true, // a path from a stream is never opened here (TestDriftOnTheWire)
}

// carriedFaults are where came differs from sent: a number or a flag
// changed, a list or a map of another length, a string neither kept nor
// made safe (safe.Text) on landing. Fields not on the wire (json:"-")
// and unexported ones are left out.
func carriedFaults(path string, sent, came reflect.Value) []string {
	switch sent.Kind() {
	case reflect.Pointer:
		if sent.IsNil() != came.IsNil() {
			return []string{path + ": nil on one side only"}
		}
		if sent.IsNil() {
			return nil
		}
		return carriedFaults(path, sent.Elem(), came.Elem())
	case reflect.Struct:
		if t, ok := sent.Interface().(time.Time); ok {
			if !t.Equal(came.Interface().(time.Time)) {
				return []string{fmt.Sprintf("%s: %v, arrived %v", path, t, came.Interface())}
			}
			return nil
		}
		var out []string
		for i := range sent.NumField() {
			f := sent.Type().Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" || notTaken[sent.Type().Name()+"."+f.Name] {
				continue
			}
			out = append(out, carriedFaults(path+"."+f.Name, sent.Field(i), came.Field(i))...)
		}
		return out
	case reflect.Slice, reflect.Array:
		if sent.Len() != came.Len() {
			return []string{fmt.Sprintf("%s: %d long, arrived %d", path, sent.Len(), came.Len())}
		}
		var out []string
		for i := range sent.Len() {
			out = append(out, carriedFaults(fmt.Sprintf("%s[%d]", path, i), sent.Index(i), came.Index(i))...)
		}
		return out
	case reflect.Map:
		if sent.Len() != came.Len() {
			return []string{fmt.Sprintf("%s: %d keys, arrived %d", path, sent.Len(), came.Len())}
		}
		var out []string
		for _, k := range sent.MapKeys() {
			v := came.MapIndex(k)
			if !v.IsValid() && k.Kind() == reflect.String {
				v = came.MapIndex(reflect.ValueOf(safe.Text(k.String(), safe.MaxText)).Convert(k.Type()))
			}
			if !v.IsValid() {
				out = append(out, fmt.Sprintf("%s[%v]: missing", path, k))
				continue
			}
			out = append(out, carriedFaults(fmt.Sprintf("%s[%v]", path, k), sent.MapIndex(k), v)...)
		}
		return out
	case reflect.String:
		if s, c := sent.String(), came.String(); c != s && c != safe.Text(s, safe.MaxText) {
			return []string{fmt.Sprintf("%s: %q, arrived %q", path, s, c)}
		}
		return nil
	case reflect.Interface, reflect.Func, reflect.Chan:
		return nil
	}
	if !reflect.DeepEqual(sent.Interface(), came.Interface()) {
		return []string{fmt.Sprintf("%s: %v, arrived %v", path, sent.Interface(), came.Interface())}
	}
	return nil
}
