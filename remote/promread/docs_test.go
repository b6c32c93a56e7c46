package promread

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	pmodel "github.com/prometheus/common/model"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/fleet.md's queries from the reader's")

// TestQueriesInTheDocs: docs/fleet.md lists the queries one refresh
// sends, as the reader writes them.
func TestQueriesInTheDocs(t *testing.T) {
	const path = "../../docs/fleet.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	q := fleetQueries{s: scope(`job="tablefull"`), w: pmodel.Duration(time.Hour).String()}
	list := append([]string{q.totals(), q.rank(50)}, q.onPage([]string{"web-3:9874", "web-4:9874"}).details()...)
	block := "\n```\n" + strings.Join(list, "\n\n") + "\n```\n"
	open, shut := strings.Index(string(doc), "<!-- queries:"), strings.Index(string(doc), "<!-- /queries -->")
	if open < 0 || shut < open {
		t.Fatalf("%s has no queries block", path)
	}
	head := open + strings.Index(string(doc[open:]), "-->") + len("-->")
	if got := string(doc[head:shut]); got != block {
		if *updateDocs {
			os.WriteFile(path, []byte(string(doc[:head])+block+string(doc[shut:])), 0o644)
			return
		}
		t.Errorf("%s lists other queries than the reader sends (go test ./remote/promread -run TestQueriesInTheDocs -update-docs)", path)
	}
}
