package remote

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
)

var updateFormat = flag.Bool("update-format", false, "rewrite FORMAT.md from recordFields")

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
	for _, f := range recordFields {
		keys = append(keys, f.Key)
	}
	sort.Strings(keys)
	return keys
}

// TestRecordFieldsAgree: the encoder's keys are recordFields' keys, and
// the lines with every field (everyFieldLines, which TestScanReadsWhatWeWrite
// reads with the scanner) carry every one of them: a field added to the
// encoder, the description or the scanner alone fails here or there.
func TestRecordFieldsAgree(t *testing.T) {
	described := describedKeys()
	if enc := jsonKeys(reflect.TypeOf(record{})); !reflect.DeepEqual(enc, described) {
		t.Errorf("the encoder writes %q, recordFields describes %q", enc, described)
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
	for _, k := range described {
		if !seen[k] {
			t.Errorf("no line of everyFieldLines carries %q: the scanner is not checked on it", k)
		}
	}
	if len(fieldBits) > 32 {
		t.Errorf("%d fields: the scanner's bits are 32", len(fieldBits))
	}
}

// formatDocument is FORMAT.md: the stream's fields, from recordFields.
func formatDocument() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The tablefull stream, version %d: record fields\n\n", Version)
	b.WriteString("Written by `go test ./remote -update-format` from `recordFields` in\n`remote/fields.go`; the format itself is described in `remote/doc.go`.\n\n")
	b.WriteString("| key | in | holds |\n|---|---|---|\n")
	for _, f := range recordFields {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Key, f.In, strings.ReplaceAll(f.Doc, "|", `\|`))
	}
	return b.Bytes()
}

// TestFormatDocument: FORMAT.md is what recordFields says.
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
		t.Errorf("FORMAT.md is not recordFields' (go test ./remote -update-format rewrites it)")
	}
}
