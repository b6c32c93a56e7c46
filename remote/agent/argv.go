package agent

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/shlex"
)

// FullTableHint is said on every ssh disconnection.
const FullTableHint = "while the remote table is full a new connection may not get in"

// SSHArgv builds the system ssh command that runs the agent on dest
// ([user@]host[:port]). It is an argv: nothing passes through a local
// shell, host-key checking is left as the user configured it, and the
// remote command is made of our own words only.
func SSHArgv(dest string, remoteCmd ...string) ([]string, error) {
	userHost, port := dest, ""
	if h, p, err := net.SplitHostPort(dest); err == nil {
		userHost, port = h, p
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("--ssh %s: bad port %q", dest, p)
		}
	}
	if userHost == "" || strings.HasPrefix(userHost, "-") || strings.ContainsAny(userHost, "'\"`$;&|<>\\") ||
		strings.ContainsFunc(userHost, func(r rune) bool { return r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f) }) {
		return nil, fmt.Errorf("--ssh %q: want [user@]host[:port]", dest)
	}
	argv := []string{"ssh", "-T",
		"-o", "BatchMode=yes", // never prompt: the console owns the terminal
		"-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"}
	if port != "" {
		argv = append(argv, "-p", port)
	}
	return append(append(argv, "--", userHost), remoteCmd...), nil
}

// ViaArgv splits a --via command into an argv, shell-style quoting but no
// shell.
func ViaArgv(command string) ([]string, error) {
	argv, err := shlex.Split(command)
	if err != nil {
		return nil, fmt.Errorf("--via %q: %w", command, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("--via: empty command")
	}
	return argv, nil
}

// NetnsArgv runs this binary's agent inside a network namespace: a name
// from `ip netns`, or a path such as /proc/PID/ns/net.
func NetnsArgv(ns string) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this binary: %w", err)
	}
	path, err := NetnsPath(ns)
	if err != nil {
		return nil, err
	}
	if strings.Contains(ns, "/") {
		return []string{"nsenter", "--net=" + path, self, "agent"}, nil
	}
	return []string{"ip", "netns", "exec", ns, self, "agent"}, nil
}

// NetnsAgent is the agent inside network namespace ns (NAME or PATH, as
// NetnsArgv takes it), named for it, not yet started. It is a process of
// this host that starts in milliseconds: it is retried from 200ms.
func NetnsAgent(ns string) (*Process, error) {
	argv, err := NetnsArgv(ns)
	if err != nil {
		return nil, err
	}
	return &Process{Argv: argv, Name: "netns " + ns, MinBackoff: 200 * time.Millisecond}, nil
}

// StartNetnsAgent is NetnsAgent(ns) started at interval: the one feed
// of a namespace that tune and the exporter read.
func StartNetnsAgent(ns string, interval time.Duration) (*Process, error) {
	p, err := NetnsAgent(ns)
	if err != nil {
		return nil, err
	}
	p.Start(interval)
	return p, nil
}

// NetnsPath is the file of the network namespace --netns names: NAME is
// /run/netns/NAME (ip netns), a PATH is itself; either must exist.
func NetnsPath(ns string) (string, error) {
	if strings.Contains(ns, "/") {
		if _, err := os.Stat(ns); err != nil {
			return "", fmt.Errorf("--netns %s: %w", ns, err)
		}
		return ns, nil
	}
	if !validNetnsName(ns) {
		return "", fmt.Errorf("--netns %q: not a namespace name (ip netns list) or a path", ns)
	}
	if _, err := os.Stat("/run/netns/" + ns); err != nil {
		return "", fmt.Errorf("--netns %s: no such namespace (ip netns list)", ns)
	}
	return "/run/netns/" + ns, nil
}

// validNetnsName reports whether name can be an `ip netns` name: what
// iproute2 accepts, so never "." or "..", an option, or control text.
func validNetnsName(name string) bool {
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, "-") || len(name) > 255 {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || r == '/' || r == '\\' {
			return false
		}
	}
	return true
}

// notTheTable are failures a full table on the far side cannot cause:
// the name, the keys, a refusal (the SYN got through and was answered).
var notTheTable = []string{"Could not resolve hostname", "Name or service not known", "Temporary failure in name resolution",
	"Permission denied", "Host key verification failed", "Connection refused", "No route to host", "Network is unreachable"}

// hintFits reports whether a disconnection could be the far table's
// doing (a timeout, a cut session), so that the hint about it is true.
func hintFits(err error) bool {
	for _, s := range notTheTable {
		if strings.Contains(err.Error(), s) {
			return false
		}
	}
	return true
}
