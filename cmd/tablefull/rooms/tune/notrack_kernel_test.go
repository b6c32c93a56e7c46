package tune

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"golang.org/x/sys/unix"
)

// adviceInput is the input chain the README and the shipped rule advise
// on an exporter host whose firewall accepts only established flows.
const adviceInput = "ct state untracked tcp dport 9874 accept"

// TestShippedNotrackOpensNothing: on an exporter host with the shipped
// notrack rule and an input chain that accepts only established flows
// and, as advised, the untracked scrape, a client in another namespace
// that binds source port 9874 cannot reach a port the firewall closes;
// a scrape of port 9874 still gets in.
func TestShippedNotrackOpensNothing(t *testing.T) {
	clitest.NeedKernel(t)
	rule, err := os.ReadFile("../../../../deploy/nftables/tablefull-exporter-notrack.nft")
	if err != nil {
		t.Fatal(err)
	}
	readme := []byte(clitest.Manual(t))
	if !strings.Contains(string(rule), adviceInput) || !strings.Contains(string(readme), adviceInput) {
		t.Fatalf("the rule's comment and the README do not advise %q", adviceInput)
	}
	host, client := clitest.VethPair(t)
	if err := host.Nft(string(rule)); err != nil {
		t.Fatalf("the shipped rule does not load: %v", err)
	}
	if err := host.Nft(`table inet firewall {
	chain input {
		type filter hook input priority 0; policy drop;
		iif "lo" accept
		ct state established,related accept
		` + adviceInput + `
	}
}`); err != nil {
		t.Fatal(err)
	}
	nstest.Serve(t, host, "10.77.0.1:18022", nil)
	nstest.Serve(t, host, "10.77.0.1:9874", nil)
	dial := func(port int, fromPort int) error {
		return client.Do(func() error {
			d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(10, 77, 0, 2), Port: fromPort},
				Control: func(_, _ string, c syscall.RawConn) error {
					return c.Control(func(fd uintptr) { unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1) })
				}}
			c, err := d.Dial("tcp", net.JoinHostPort("10.77.0.1", strconv.Itoa(port)))
			if err == nil {
				c.Close()
			}
			return err
		})
	}
	if err := dial(18022, 9874); err == nil {
		t.Error("a client bound to source port 9874 reached a port the firewall closes")
	}
	if err := dial(18022, 0); err == nil {
		t.Error("the closed port is open to anyone: the test proves nothing")
	}
	if err := dial(9874, 0); err != nil {
		t.Errorf("a scrape of the exporter's port: %v", err)
	}
}
