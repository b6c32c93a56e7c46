// Package netns creates throw-away network namespaces on this host and
// runs code and commands inside them: the ground our kernel tests and the
// incident lab stand on. Everything here needs root.
package netns

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	"github.com/tablefull/tablefull/sources/nsenter"
)

// NS is a named network namespace created with `ip netns add`.
type NS struct {
	Name string
}

// Create adds namespace name and brings its loopback up.
func Create(name string) (*NS, error) {
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ip netns add %s: %w: %s", name, err, bytes.TrimSpace(out))
	}
	n := &NS{Name: name}
	if out, err := exec.Command("ip", "-n", name, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		n.Delete()
		return nil, fmt.Errorf("ip -n %s link set lo up: %w: %s", name, err, bytes.TrimSpace(out))
	}
	return n, nil
}

// Path is the namespace's bind mount.
func (n *NS) Path() string { return "/run/netns/" + n.Name }

// Delete removes the namespace. Processes still inside keep it alive
// until they exit.
func (n *NS) Delete() error {
	if out, err := exec.Command("ip", "netns", "del", n.Name).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns del %s: %w: %s", n.Name, err, bytes.TrimSpace(out))
	}
	return nil
}

// Command prepares name with args to run inside the namespace.
func (n *NS) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", n.Name, name}, args...)...)
}

// Output runs a command inside the namespace and returns its stdout.
func (n *NS) Output(name string, args ...string) (string, error) {
	cmd := n.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s in %s: %w: %s", name, strings.Join(args, " "), n.Name, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(out), nil
}

// Nft loads an nftables ruleset inside the namespace.
func (n *NS) Nft(ruleset string) error {
	cmd := n.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(ruleset)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nft -f in %s: %w: %s", n.Name, err, bytes.TrimSpace(out))
	}
	return nil
}

// TrackRuleset makes conntrack track the namespace: an input rule that
// matches on ct state, as a stateful firewall would.
const TrackRuleset = `table inet tablefull {
	chain input {
		type filter hook input priority 0; policy accept;
		ct state established,related accept
	}
}
`

// Do runs fn on an OS thread switched into the namespace (nsenter.Net).
func (n *NS) Do(fn func() error) error { return nsenter.Net(n.Path(), fn) }
