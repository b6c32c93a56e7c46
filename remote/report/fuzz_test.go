package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// FuzzReport: whatever a recording holds, Build either refuses it or
// writes documents with no control character of it in them.
func FuzzReport(f *testing.F) {
	lab, err := os.ReadFile("testdata/lab-table-full.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(lab[:min(len(lab), 4000)])
	f.Add(hostileRecording(f))
	f.Add([]byte(`{"tablefull":"stream","v":1,"host":{"name":"h"}}` + "\n" + `{"k":"e","t":1,"type":"apply","text":"{\"results\":[{\"key\":\"net.netfilter.nf_conntrack_max\",\"after\":\"\\u001b[2J\"}]}"}` + "\n"))
	f.Fuzz(func(t *testing.T, rec []byte) {
		r, err := Build(bytes.NewReader(rec), Options{Source: "fuzz"})
		if err != nil {
			return
		}
		h, err := r.HTML()
		if err != nil {
			t.Fatal(err)
		}
		for name, doc := range map[string]string{"html": string(h), "md": string(r.Markdown())} {
			if i := strings.IndexFunc(doc, func(c rune) bool { return c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || (c >= 0x80 && c < 0xa0) }); i >= 0 {
				t.Fatalf("%s carries control character %q at %d", name, doc[i], i)
			}
		}
	})
}
