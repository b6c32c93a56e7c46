// Package netns creates throw-away network namespaces on this host and
// runs code and commands inside them: the ground our kernel tests and the
// incident lab stand on. Everything here needs root.
package netns

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
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

// Do runs fn on an OS thread switched into the namespace (Enter).
func (n *NS) Do(fn func() error) error { return Enter(n.Path(), fn) }

// Enter runs fn on an OS thread switched into the network namespace at
// path (/run/netns/NAME, /proc/PID/ns/net). Sockets fn creates belong to
// the namespace for their whole life, whichever thread uses them later;
// /proc/sys/net opened by fn is the namespace's. The thread is switched
// back before it is released; one that cannot be is never reused (it
// dies with its goroutine). The main thread is never the one: /proc/self
// — the process's own namespace and table — follows the main thread, and
// would read the namespace's while fn runs.
func Enter(path string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() { // the main thread: /proc/self follows it wherever it goes
			err := Enter(path, fn) // this goroutine holds it, so the nested one runs on another
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- fmt.Errorf("open this thread's namespace: %w", err)
			return // still locked: the thread dies with the goroutine
		}
		defer home.Close()
		f, err := os.Open(path)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("open %s: %w", path, err)
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("setns %s: %w", path, err)
			return
		}
		err = fn()
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread() // home again: the thread may serve others
		}
		errc <- err
	}()
	return <-errc
}
