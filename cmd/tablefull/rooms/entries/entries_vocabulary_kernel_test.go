package entries

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"github.com/tablefull/tablefull/sources/nsenter"
)

// vocabularyTable is a table conntrack -I made, one entry for each
// thing conntrack(8)'s filter tells apart: statuses, marks, a zone of
// both directions and one of the original only, a source and a
// destination NAT, an IPv6 flow.
var vocabularyTable = [][]string{
	{"-p", "tcp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "1", "--dport", "80", "--state", "ESTABLISHED", "-u", "ASSURED,SEEN_REPLY"},
	{"-p", "tcp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "2", "--dport", "80", "--state", "ESTABLISHED", "-u", "SEEN_REPLY"},
	{"-p", "tcp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "3", "--dport", "80", "--state", "SYN_SENT"},
	{"-p", "udp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "4", "--dport", "53", "-m", "0x10"},
	{"-p", "udp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "5", "--dport", "53", "-m", "0x11", "-w", "3"},
	{"-p", "tcp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "8", "--dport", "80", "--state", "ESTABLISHED", "-n", "10.7.7.7"},
	{"-p", "tcp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "9", "--dport", "80", "--state", "ESTABLISHED", "-g", "10.8.8.8"},
	{"-p", "tcp", "-s", "10.1.1.1", "-d", "10.2.2.2", "--sport", "10", "--dport", "80", "--state", "ESTABLISHED", "--orig-zone", "4"},
	{"-p", "tcp", "-s", "fd00::1", "-d", "fd00::2", "--sport", "11", "--dport", "80", "--state", "ESTABLISHED"},
}

// TestEntriesSpeakConntracksFilter: every filter parameter of
// conntrack(8)'s manual, typed as conntrack takes it, lists through
// tablefull entries, and through the words the console's / and an
// agent read (entry.FilterWords), exactly the entries conntrack -L lists
// for the same words on the same table.
func TestEntriesSpeakConntracksFilter(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64}) // its own namespace's few entries
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	for _, e := range vocabularyTable {
		if out, err := ns.Output("conntrack", append(append([]string{"-I"}, e...), "-t", "600")...); err != nil {
			t.Fatalf("conntrack -I %v: %v %s", e, err, out)
		}
	}
	opened, err := nsenter.Open(ns.Path())
	if err != nil {
		t.Fatal(err)
	}
	list, _, _ := sources.NetnsEntries(opened, t.TempDir())
	listed := 0
	for _, filter := range [][]string{
		nil, {"-u", "ASSURED"}, {"-u", "SEEN_REPLY"}, {"-u", "UNREPLIED"}, {"-u", "ASSURED,SEEN_REPLY"}, {"-u", "seen_reply"},
		{"-m", "0x10"}, {"-m", "16"}, {"-m", "0x10/0xf0"}, {"--mark", "0/0xffffffff"},
		{"-w", "3"}, {"--zone", "4"}, {"--orig-zone", "4"}, {"--reply-zone", "4"},
		{"-n"}, {"-g"}, {"-j"}, {"-n", "10.7.7.7"}, {"-g", "10.7.7.7"}, {"-j", "10.8.8.8"}, {"--src-nat", "--dst-nat"},
		{"-f", "ipv4"}, {"-f", "ipv6"}, {"-p", "6"}, {"--protonum", "udp"},
		{"-p", "tcp", "--state", "LISTEN"}, {"-p", "tcp", "--state", "SYN_SENT"},
		{"-p", "tcp", "--reply-port-src", "80"}, {"-p", "tcp", "--orig-port-dst", "80"}, {"-p", "udp", "--reply-port-dst", "5"},
		{"--orig-src", "10.1.1.0/24", "--orig-dst", "10.2.2.2"},
	} {
		want := conntrackTuples(t, ns, filter...)
		listed += len(want)
		code, out, errs := entriesIn(t, ns, append([]string{"--json", "--limit", "1000"}, filter...)...)
		if code != 0 {
			t.Errorf("entries %v: exit %d: %s", filter, code, errs)
			continue
		}
		if got := entriesTuples(t, out); !slices.Equal(got, want) {
			t.Errorf("filter %v:\ntablefull entries %v\nconntrack -L      %v", filter, got, want)
		}
		sameThroughWords(t, list, filter, want)
	}
	if listed == 0 {
		t.Fatal("conntrack -L listed nothing for any filter: the table was not made")
	}
	for _, bad := range []struct {
		args []string
		says string
	}{{[]string{"--dport", "abc"}, "--dport abc: not a port (1–65535)"}, {[]string{"-u", "UNSET"}, "--status UNSET: not a status"},
		{[]string{"-n", "10.7.7.7", "-g"}, "unexpected argument \"10.7.7.7\" (the address of one NAT option"}} {
		if code, _, errs := entriesIn(t, ns, bad.args...); code != 2 || !strings.Contains(errs, bad.says) {
			t.Errorf("entries %v: exit %d, %q: want 2, saying %q", bad.args, code, errs, bad.says)
		}
	}
}

// protoOf is conntrack -L's name of a protocol number in these tests.
func protoOf(p uint8) string { return map[uint8]string{6: "tcp", 17: "udp"}[p] }

// sameThroughWords checks that filter, typed as the console's / and an
// agent read it (entry.FilterWords), lists through list the tuples want.
func sameThroughWords(t *testing.T, list func(entry.Filter, string, bool, int) (*entry.List, error), filter, want []string) {
	t.Helper()
	args, err := entry.FilterWords(strings.Join(filter, " "))
	if err != nil {
		t.Fatalf("/ %v: %v", filter, err)
	}
	f, err := entry.ParseFilter(args)
	if err != nil {
		t.Fatalf("/ %v: %v", filter, err)
	}
	l, err := list(f, "", false, 1000)
	if err != nil {
		t.Fatalf("/ %v: %v", filter, err)
	}
	var got []string
	for _, e := range l.Rows() {
		got = append(got, strings.Join([]string{protoOf(e.Proto), e.Src.String(), strconv.Itoa(int(e.SrcPort)), e.Dst.String(), strconv.Itoa(int(e.DstPort))}, " "))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("/ %v (%s):\nlisted       %v\nconntrack -L %v", filter, f, got, want)
	}
}
