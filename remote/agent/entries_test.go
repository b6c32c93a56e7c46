package agent

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
)

// entriesController is a fakeController whose table is flows.
type entriesController struct {
	fakeController
	flows   []model.Flow
	deleted []string
}

func (c *entriesController) ListEntries(f entry.Filter, sort string, desc bool, limit int) (*entry.List, error) {
	l, err := entry.NewList(f, sort, desc, limit)
	if err != nil {
		return nil, err
	}
	for _, e := range c.flows {
		l.Add(e)
	}
	return l, nil
}

func (c *entriesController) DeleteEntries(f entry.Filter) (entry.Deletion, error) {
	c.deleted = append(c.deleted, f.String())
	return entry.Deletion{Matched: 1, Deleted: 1}, nil
}

// TestServeEntries: an entries request is answered with at most
// MaxAgentRows rows and the counts of every match, its filter checked
// as it lands (a word conntrack(8) does not take, a sort that is not a
// column, a limit over the bound: nothing listed); a delete needs an
// agent that may write and the request's confirmation, and reaches the
// controller re-rendered; an agent without a lister says so.
func TestServeEntries(t *testing.T) {
	c := &entriesController{}
	for i := range 100 {
		c.flows = append(c.flows, model.Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"),
			SrcPort: uint16(40000 + i), DstPort: 53, TCPState: -1, Timeout: uint32(i)})
	}
	input := strings.Join([]string{
		`{"op":"entries","id":1,"filter":"-p udp --dport=53","sort":"timeout","desc":true,"limit":64}`,
		`{"op":"entries","id":2,"filter":"--origin 1.2.3.4","limit":10}`,
		`{"op":"entries","id":3,"filter":"-p udp","sort":"owner","limit":10}`,
		`{"op":"entries","id":4,"filter":"-p udp","limit":65}`,
		`{"op":"delete","id":5,"filter":"-p udp  --reply-src 10.80.0.2"}`,
		`{"op":"delete","id":6,"filter":"-p udp  --reply-src 10.80.0.2","confirm":true}`,
	}, "\n") + "\n"
	replies, _, err := serveTo(t, c, input, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 6 {
		t.Fatalf("%d replies, want 6: %+v", len(replies), replies)
	}
	if e := replies[0].Entries; e == nil || len(e.Rows) != MaxAgentRows || e.Matched != 100 || e.Rows[0].Timeout != 99 {
		t.Errorf("entries: %+v, want 64 rows from the longest timeout and 100 matched", replies[0])
	}
	for i, want := range map[int]string{1: "no option --origin", 2: "no column", 3: "limit 65", 4: "read-only"} {
		if r := replies[i]; r.Entries != nil || !strings.Contains(r.Error, want) {
			t.Errorf("request %d: %+v, want an error saying %q", i+1, r, want)
		}
	}
	if r := replies[5]; r.Deletion == nil || r.Deletion.Deleted != 1 || len(c.deleted) != 1 || c.deleted[0] != "-p udp --reply-src 10.80.0.2" {
		t.Errorf("delete: %+v, the controller deleted %q", r, c.deleted)
	}
	_, plain, _, _ := serve(t, `{"op":"entries","id":9,"filter":"-p udp","limit":5}`+"\n", true)
	if len(plain) != 1 || !strings.Contains(plain[0].Error, "does not list entries") {
		t.Errorf("an agent without a lister: %+v", plain)
	}
}
