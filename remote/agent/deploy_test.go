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
