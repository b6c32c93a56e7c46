package agent

import (
	"bufio"
	"strings"
	"testing"
)

// TestDeployRefusesOtherArch: a remote of another architecture is
// refused, with how to build for it.
func TestDeployRefusesOtherArch(t *testing.T) {
	d := &Deployer{path: "/nonexistent", sum: "x", size: 1}
	var sent strings.Builder
	err := d.Handshake(bufio.NewReader(strings.NewReader("TABLEFULL-NEED Linux aarch64\n")), &sent)
	if err == nil || !strings.Contains(err.Error(), "GOARCH") || sent.String() != "refuse\n" {
		t.Errorf("handshake with an arm64 remote: %v, sent %q", err, sent.String())
	}
	if got := unameFor("linux", "amd64"); got != "Linux x86_64" {
		t.Errorf("unameFor = %q", got)
	}
}

// TestDeployBoundsTheRemotesLine: a remote that says it needs the binary
// and then never ends its line is refused at the bound, not buffered,
// and its words reach no error raw.
func TestDeployBoundsTheRemotesLine(t *testing.T) {
	d := &Deployer{path: "/nonexistent", sum: "x", size: 1}
	endless := strings.NewReader("TABLEFULL-NEED " + strings.Repeat("A", 64<<20))
	var sent strings.Builder
	err := d.Handshake(bufio.NewReaderSize(endless, 4096), &sent)
	if err == nil || !strings.Contains(err.Error(), "over 256 bytes") || endless.Len() < 60<<20 {
		t.Errorf("an endless line: %v, %d bytes left unread", err, endless.Len())
	}
	err = d.Handshake(bufio.NewReader(strings.NewReader("TABLEFULL-NEED \x1b]0;x\x07 arm\n")), &sent)
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07") {
		t.Errorf("the remote's words raw in the error: %q", err)
	}
}
