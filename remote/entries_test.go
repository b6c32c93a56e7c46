package remote

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestEntriesOnTheStream: a stream older than the classes says so; a
// hostile entries record is bounded and its counts never negative; a
// source other than events is not counted.
func TestEntriesOnTheStream(t *testing.T) {
	head := `{"tablefull":"stream","v":1,"host":{"name":"h"}}` + "\n"
	for _, c := range []struct {
		name, line string
		counted    bool
		note       string
		tops       int
	}{
		{"older stream", `{"k":"s","t":5,"ct":{"s":"tracked","n":1,"pk":1,"max":2,"b":2,"tw":1}}`, false, NoteNoClasses, 0},
		{"not counted, with why", `{"k":"s","t":5,"en":{"note":"needs CAP_NET_ADMIN"}}`, false, "needs CAP_NET_ADMIN", 0},
		{"a source we do not know", `{"k":"s","t":5,"en":{"src":"guess","n":[5,0,0,0],"e":[0,0,0,0,0,0,0]}}`, false, "", 0},
		{"counted, a negative top clamped", `{"k":"s","t":5,"en":{"src":"events","ep":2,"n":[5,1,0,0],"e":[1,0,0,0,0,0,0],"td":[["tcp/80",-9]]}}`, true, "", 1},
		{"evicted, never more than ended", `{"k":"s","t":5,"en":{"src":"events","ep":2,"n":[5,0,0,0],"e":[1,0,0,0,0,0,0],"v":[9,0,0,0,0,0,0]}}`, true, "", 0},
		{"counted without arrays is not counted", `{"k":"s","t":5,"en":{"src":"events"}}`, false, "", 0},
	} {
		d := NewDecoder(strings.NewReader(head + c.line + "\n"))
		if err := d.Header(); err != nil {
			t.Fatal(err)
		}
		s, _, err := d.Next()
		if err != nil || s == nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		e := s.Entries
		if e.Counted() != c.counted || e.Note != c.note || len(e.TopDests) != c.tops {
			t.Errorf("%s: %+v", c.name, e)
		}
		for _, top := range e.TopDests {
			if top.N < 0 {
				t.Errorf("%s: negative count %+v", c.name, top)
			}
		}
		if c.counted && (e.Epoch != 2 || e.New[model.ProtoTCP] != 5 || e.Ended[model.ClassTCPDone] != 1 || e.Evicted[model.ClassTCPDone] > 1) {
			t.Errorf("%s: counts %+v", c.name, e)
		}
	}
}
