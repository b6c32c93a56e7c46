package entries

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// entriesIn runs `tablefull entries args…` inside ns and returns its exit
// code, stdout and stderr.
func entriesIn(t *testing.T, ns *netns.NS, args ...string) (int, string, string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := ns.Command(exe, append([]string{"entries"}, args...)...)
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out), stderr.String()
}

// entryTable makes, in ns, TIME_WAIT entries to 127.0.0.1:7000, UDP
// entries to :53 and 3 established connections to :7001 (held until the
// test ends).
func entryTable(t *testing.T, ns *netns.NS) {
	t.Helper()
	nstest.Serve(t, ns, "127.0.0.1:7000", nil)
	nstest.Serve(t, ns, "127.0.0.1:7001", func(c net.Conn) { time.Sleep(time.Minute); c.Close() })
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	if err := ns.Do(func() error {
		for range 5 {
			c, err := net.Dial("tcp", "127.0.0.1:7000")
			if err != nil {
				return err
			}
			c.Close()
		}
		for range 3 {
			c, err := net.Dial("tcp", "127.0.0.1:7001")
			if err != nil {
				return err
			}
			held = append(held, c)
			u, err := net.Dial("udp", "127.0.0.1:53")
			if err != nil {
				return err
			}
			u.Write([]byte("q"))
			u.Close()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the closes reach TIME_WAIT
}

// entriesTuples are the entries' original tuples as tablefull entries
// --json lists them, sorted.
func entriesTuples(t *testing.T, out string) []string {
	t.Helper()
	var doc struct {
		Matched int `json:"matched"`
		Entries []struct {
			Proto, Src, Dst string
			SPort           int `json:"sport"`
			DPort           int `json:"dport"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("entries --json: %v\n%s", err, out)
	}
	var tuples []string
	for _, e := range doc.Entries {
		tuples = append(tuples, strings.Join([]string{e.Proto, e.Src, strconv.Itoa(e.SPort), e.Dst, strconv.Itoa(e.DPort)}, " "))
	}
	if doc.Matched != len(tuples) {
		t.Errorf("%d matched, %d listed under a limit above both", doc.Matched, len(tuples))
	}
	slices.Sort(tuples)
	return tuples
}

// conntrackTuples are the same as conntrack -L lists them.
func conntrackTuples(t *testing.T, ns *netns.NS, args ...string) []string {
	t.Helper()
	out, err := ns.Output("conntrack", append([]string{"-L"}, args...)...)
	if err != nil {
		t.Fatalf("conntrack -L %v: %v: %s", args, err, out)
	}
	return listedTuples(out)
}

// listedTuples are conntrack -L's TCP and UDP rows as "proto src sport
// dst dport" (their original tuples), sorted.
func listedTuples(out string) []string {
	var tuples []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || (f[0] != "tcp" && f[0] != "udp") {
			continue
		}
		kv := map[string]string{}
		for _, w := range f {
			if k, v, ok := strings.Cut(w, "="); ok {
				if _, seen := kv[k]; !seen { // the original tuple comes first
					kv[k] = v
				}
			}
		}
		tuples = append(tuples, strings.Join([]string{f[0], kv["src"], kv["sport"], kv["dst"], kv["dport"]}, " "))
	}
	slices.Sort(tuples)
	return tuples
}

// TestEntriesMatchConntrackL: for each filter in conntrack(8)'s own
// words, tablefull entries lists exactly the entries conntrack -L lists
// for it on the same table.
func TestEntriesMatchConntrackL(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64}) // its own namespace's few entries
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	entryTable(t, ns)
	for _, filter := range [][]string{
		nil,
		{"-p", "udp"},
		{"-p", "tcp", "--dport", "7000"},
		{"-p", "tcp", "--state", "ESTABLISHED"},
		{"-p", "udp", "--dport", "53", "--src", "127.0.0.1"},
		{"-p", "tcp", "--state", "TIME_WAIT", "--dst", "127.0.0.0/8"},
	} {
		code, out, errs := entriesIn(t, ns, append([]string{"--json", "--limit", "1000"}, filter...)...)
		if code != 0 {
			t.Fatalf("entries %v: exit %d: %s", filter, code, errs)
		}
		got, want := entriesTuples(t, out), conntrackTuples(t, ns, filter...)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("filter %v:\ntablefull entries %v\nconntrack -L      %v", filter, got, want)
		}
	}
	if code, _, errs := entriesIn(t, ns, "--dport", "99999"); code != 2 || !strings.Contains(errs, "--dport") {
		t.Errorf("a port out of range: exit %d, %q (want 2, naming --dport)", code, errs)
	}
}

// TestEntriesDeleteAfterAPreview: a deletion shows what it would delete
// and deletes nothing without --yes; one that would take established
// connections is refused without --established, and an empty filter is
// refused outright; with --yes the matching entries go over ctnetlink,
// the read-back says none match, and the journal has the line.
func TestEntriesDeleteAfterAPreview(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64}) // its own namespace's few entries
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	entryTable(t, ns)
	state := t.TempDir()
	journal := filepath.Join(state, "entries.journal")
	count := func() int { return len(conntrackTuples(t, ns)) }
	before := count()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-p", "udp", "--delete"}, "--yes needed"},
		{[]string{"-p", "tcp", "--delete", "--yes"}, "3 of the 8 entries are established"},
		{[]string{"--delete", "--yes"}, "an empty filter matches every entry"},
	} {
		code, out, errs := entriesIn(t, ns, append(c.args, "--state-dir", state)...)
		if code != 3 || !strings.Contains(errs, c.says) || !strings.Contains(out, "entries match") {
			t.Errorf("%v: exit %d, preview %q, %q (want 3, a preview, %q)", c.args, code, out, errs, c.says)
		}
		if n := count(); n != before {
			t.Fatalf("%v deleted %d entries", c.args, before-n)
		}
	}
	if _, err := os.Stat(journal); err == nil {
		t.Error("a refused deletion wrote the journal")
	}
	code, out, errs := entriesIn(t, ns, "-p", "udp", "--dport", "53", "--delete", "--yes", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "deleted 3 (0 already gone") || !strings.Contains(out, "0 match now") {
		t.Fatalf("delete: exit %d: %s%s", code, out, errs)
	}
	if left := conntrackTuples(t, ns, "-p", "udp"); len(left) != 0 || count() != before-3 {
		t.Errorf("after the deletion conntrack -L lists %v udp, %d in all (want none, %d)", left, count(), before-3)
	}
	b, err := os.ReadFile(journal)
	if err != nil || !strings.Contains(string(b), `"filter":"-p udp --dport 53","matched":3,"deleted":3`) {
		t.Errorf("the journal: %q, %v", b, err)
	}
}

// TestEntriesPanelInTmux: the console running inside a namespace, at
// 80×24 and 200×50: E lists its table's entries, / filters them in
// conntrack's words, s sorts by the next column, f follows the filter
// live (and again stops), esc closes the panel; at 200×50, D on the
// filter asks, y deletes them over ctnetlink and journals it, and the
// follow shows the two entries made while it listened, made and ended.
func TestEntriesPanelInTmux(t *testing.T) {
	clitest.NeedKernel(t, "tmux", "conntrack")
	ns := clitest.LabNS(t)
	entryTable(t, ns)
	exe, _ := os.Executable()
	state := t.TempDir()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		s := clitest.StartTmuxArgv(t, size[0], size[1], []string{"ip", "netns", "exec", ns.Name, "env", "TABLEFULL_AS_MAIN=1", exe, "--state-dir", state})
		s.WaitFor("LIVE")
		s.Keys("E")
		s.WaitFor("entries 11 match", "3 established", "TIME_WAIT")
		s.Keys("/")
		s.WaitFor("filter ")
		s.Keys("-l", "--", "-p udp") // literal: tmux would read -p as its own flag
		s.Keys("Enter")
		screen := s.WaitFor("entries 3 match -p udp")
		if strings.Contains(screen, "tcp  TIME_WAIT") {
			t.Errorf("%v: filtered to udp, TCP rows still shown:\n%s", size, screen)
		}
		s.Keys("s")
		s.WaitFor("by proto")
		// A filter refused: said under the header, the prompt closed, the
		// last good filter kept; the next key is the panel's.
		s.Keys("/")
		s.WaitFor("filter -p udp▏")
		s.Keys("-l", " -u UNSET")
		s.Keys("Enter")
		screen = s.WaitFor("filter refused, kept -p udp: --status UNSET: not a status")
		if strings.Contains(screen, "▏") {
			t.Errorf("%v: the prompt stayed open after a refused filter:\n%s", size, screen)
		}
		s.Keys("s")
		s.WaitFor("by state", "entries 3 match -p udp")
		s.Keys("f")
		s.WaitFor("following -p udp since", "0 new · 0 ended · none lost")
		if size[0] == 80 {
			s.Keys("f")
			s.WaitFor("entries 3 match -p udp")
		}
		if size[0] == 200 {
			sendUDP(t, ns, "127.0.0.1:9", 2) // two entries made while the follow listens
			s.WaitFor("2 new · 0 ended · none lost", "+ udp  -", "127.0.0.1:9")
			s.Keys("D")
			s.WaitFor("delete what -p udp matches: 5 entries")
			s.Keys("y")
			s.WaitFor("deleted 5 (0 already gone")
			// the three made before anyone listened end unreported (nf_conntrack_events 2)
			s.WaitFor("2 new · 2 ended · none lost", "− udp")
			if left := conntrackTuples(t, ns, "-p", "udp"); len(left) != 0 {
				t.Errorf("after D y, conntrack -L still lists %v", left)
			}
			if b, err := os.ReadFile(filepath.Join(state, "entries.journal")); err != nil || !strings.Contains(string(b), `"filter":"-p udp","matched":5,"deleted":5`) {
				t.Errorf("the journal: %q %v", b, err)
			}
		}
		s.Keys("Escape")
		for end := time.Now().Add(5 * time.Second); strings.Contains(s.Capture(false), "match -p udp"); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%v: esc left the entries panel open:\n%s", size, s.Capture(false))
			}
		}
		s.Keys("q")
	}
}

// TestStaleDNATEntriesDeleted: 40 clients keep one UDP socket each and
// send every 250 ms to a Service address DNAT'd to a backend that died;
// the rule moves to a live backend, and the clients stay blackholed (their
// entries keep the dead target). STALE DNAT names the entries to drop;
// tablefull entries deletes exactly those, and the clients' traffic
// reaches the new backend within 5 s.
func TestStaleDNATEntriesDeleted(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64})
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	if err := ns.Nft("table ip tft-dnat {\n\tchain out { type nat hook output priority -100; udp dport 53 dnat to 127.0.0.2:5353; }\n}"); err != nil {
		t.Fatal(err)
	}
	echo, err := ns.ServeEcho("127.0.0.1:5353")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- ns.RunSenders(netns.Senders{Addr: "127.0.0.53:53", Sockets: 40, Every: 250 * time.Millisecond, Stop: stop})
	}()
	defer func() { close(stop); <-done }()
	time.Sleep(2 * time.Second)
	if err := ns.Nft("flush chain ip tft-dnat out\nadd rule ip tft-dnat out udp dport 53 dnat to 127.0.0.1:5353"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if n := echo.Answered(); n != 0 {
		t.Fatalf("the live backend answered %d before anything was deleted: the test would not tell", n)
	}
	cen := clitest.CensusIn(t, ns)
	cen.At = time.Now()
	c := model.Conntrack{Status: model.TableTracked, Count: uint64(cen.Total), Peak: uint64(cen.Total), Max: 262144, Buckets: 262144}
	var filter string
	for _, v := range diagnose.Judge(diagnose.Inputs{Sample: model.Sample{Time: cen.At, Interval: time.Second, Conntrack: c}, Census: &cen}) {
		if v.Kind == verdict.StaleDNAT {
			filter = v.Entries
		}
	}
	if filter != "-p udp --reply-src 127.0.0.2" {
		t.Fatalf("STALE DNAT names %q to drop; census %+v", filter, cen.StaleDNAT)
	}
	code, out, errs := entriesIn(t, ns, append(strings.Fields(filter), "--delete", "--yes", "--state-dir", t.TempDir())...)
	if code != 0 || !strings.Contains(out, "deleted 40 (") {
		t.Fatalf("deleting %s: exit %d: %s%s", filter, code, out, errs)
	}
	for end := time.Now().Add(5 * time.Second); echo.Answered() == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the clients' traffic did not reach the new backend within 5 s of the deletion")
		}
	}
}

// sendUDP sends one datagram from each of n sockets in ns to addr: n
// UDP entries, whether anything listens there or not.
func sendUDP(t *testing.T, ns *netns.NS, addr string, n int) {
	t.Helper()
	if err := ns.Do(func() error {
		for range n {
			c, err := net.Dial("udp", addr)
			if err != nil {
				return err
			}
			c.Write([]byte("x"))
			c.Close()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
