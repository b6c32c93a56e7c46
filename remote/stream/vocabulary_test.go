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
		}
	}
}
