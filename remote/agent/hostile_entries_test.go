package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
	"github.com/tablefull/tablefull/remote/stream"
	"github.com/tablefull/tablefull/remote/stream/streamtest"
)

// TestHostileAgentEntries: a fake agent over the real transport (a
// process, its stream, the request on its stdin) answers an entries
// request with a row whose IPv6 zone carries terminal escapes (an OSC 52
// clipboard write, a title change, a screen clear): netip takes any
// bytes after "%". The answer is refused where it lands, and the follow
// view draws no such row.
func TestHostileAgentEntries(t *testing.T) {
	zone := "\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07\x1b[2J"
	evil := model.Flow{Proto: 6, Src: netip.MustParseAddr("fe80::1%" + zone), Dst: netip.MustParseAddr("fe80::2"),
		SrcPort: 4000, DstPort: 80, TCPState: 3}
	if evil.Src.Zone() != zone {
		t.Fatalf("netip kept zone %q: the attack is not what it was", evil.Src.Zone())
	}
	b, _ := json.Marshal(Reply{ID: 1, Entries: &EntriesReply{Rows: []model.Flow{evil}, Matched: 1}})
	var ev bytes.Buffer
	enc, _ := stream.NewEncoder(&ev, model.Host{Name: "remote-box"}, streamtest.T0)
	ev.Reset() // the header is the stream file's
	enc.Event(stream.Event{Time: streamtest.T0, Type: string(OpEntries), Text: string(b)})
	reply := filepath.Join(t.TempDir(), "reply.jsonl")
	if err := os.WriteFile(reply, ev.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The agent answers once the entries request came: the Process writes
	// its interval first, so that line is read past (a reply sent before
	// the request is waited for has no one to go to, and the request waits
	// out its timeout: seen on a loaded machine).
	p := &Process{Argv: []string{"sh", "-c", "cat " + recordingtest.StreamFile(t, 1) + "; read interval; read req; cat " + reply + "; sleep 30"}, MinBackoff: time.Second}
	p.Start(time.Second)
	defer p.Stop()
	if _, err := next(t, p); err != nil {
		t.Fatal(err)
	}
	l, err := RemoteEntries{P: p}.List(entry.Filter{}, "", false, 10)
	if !errors.Is(err, ErrBadReply) || !errors.Is(err, model.ErrForeignFlow) {
		t.Fatalf("the hostile row was taken: %v, %+v", err, l)
	}
	if strings.ContainsRune(err.Error(), '\x1b') {
		t.Errorf("the refusal quotes the escapes: %q", err)
	}
	fol, _ := followOf(entry.Filter{}, FollowReply{Recent: []entry.Event{{Flow: evil}}})
	if len(fol.Recent) != 0 {
		t.Errorf("the follow view takes the hostile row: %+v", fol.Recent)
	}
}
