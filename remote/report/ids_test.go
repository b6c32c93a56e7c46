package report

import (
	"regexp"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/tally"
)

// TestHTMLIdsUnique: every id in report.html is its own, so that each
// inline chart clips to its own data area (five charts sharing one
// clipPath id drew every chart inside the first one's), and each chart
// refers to its own.
func TestHTMLIdsUnique(t *testing.T) {
	r := buildFile(t, "testdata/lab-table-full.jsonl", Options{})
	html, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllSubmatch(html, -1) {
		ids[string(m[1])]++
	}
	if len(ids) < len(r.Charts) {
		t.Fatalf("%d ids for %d charts", len(ids), len(r.Charts))
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q is used %d times in report.html", id, n)
		}
	}
	for _, c := range r.Charts {
		ref := regexp.MustCompile(`clip-path="url\(#([^)]+)\)"`).FindSubmatch(c.SVG)
		def := regexp.MustCompile(`<clipPath id="([^"]+)"`).FindSubmatch(c.SVG)
		if ref == nil || def == nil || string(ref[1]) != string(def[1]) {
			t.Errorf("chart %s clips to %q, defines %q", c.Name, ref, def)
		}
	}
}

// TestCensusTablesOnlyWhatWasCounted: a census of UDP entries lists no
// empty TCP state table.
func TestCensusTablesOnlyWhatWasCounted(t *testing.T) {
	in := incident.New(model.Host{Name: "h"}, time.Second)
	in.Census = &model.Census{Total: 400, ByProto: map[string]int{"udp": 400}, TopPorts: []tally.Count{{Key: "udp/53", N: 400}}}
	sec := narrator{in: in}.census()
	for _, tb := range sec.Tables {
		if len(tb.Rows) == 0 {
			t.Errorf("an empty %q table", tb.Head[0])
		}
	}
	if len(sec.Tables) != 2 {
		t.Errorf("%d tables, want protocol and destination port", len(sec.Tables))
	}
}
