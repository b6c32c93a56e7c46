package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/google/shlex"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/tune"
	"github.com/tablefull/tablefull/tui"
)

// fullTableHint is said on every remote disconnection.
const fullTableHint = "while the remote table is full a new connection may not get in"

// sshArgv builds the system ssh command that runs the agent on dest
// ([user@]host[:port]). It is an argv: nothing passes through a local
// shell, host-key checking is left as the user configured it, and the
// remote command is made of our own words only.
func sshArgv(dest string, remoteCmd ...string) ([]string, error) {
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

// viaArgv splits a --via command into an argv, shell-style quoting but no
// shell.
func viaArgv(command string) ([]string, error) {
	argv, err := shlex.Split(command)
	if err != nil {
		return nil, fmt.Errorf("--via %q: %w", command, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("--via: empty command")
	}
	return argv, nil
}

// netnsArgv runs this binary's agent inside a network namespace: a name
// from `ip netns`, or a path such as /proc/PID/ns/net.
func netnsArgv(ns string) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this binary: %w", err)
	}
	if strings.Contains(ns, "/") {
		if _, err := os.Stat(ns); err != nil {
			return nil, fmt.Errorf("--netns %s: %w", ns, err)
		}
		return []string{"nsenter", "--net=" + ns, self, "agent"}, nil
	}
	if !validNetnsName(ns) {
		return nil, fmt.Errorf("--netns %q: not a namespace name (ip netns list) or a path", ns)
	}
	if _, err := os.Stat("/run/netns/" + ns); err != nil {
		return nil, fmt.Errorf("--netns %s: no such namespace (ip netns list)", ns)
	}
	return []string{"ip", "netns", "exec", ns, self, "agent"}, nil
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

// feedsFor builds the console's feeds from the flags: the local host when
// no remote is named, else one per --ssh, --via and --netns.
func feedsFor(o options, ssh, via, netns []string, deploy bool) ([]*tui.App, func(), error) {
	var apps []*tui.App
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	var dep *deployer
	if deploy {
		if len(ssh) == 0 {
			return nil, nil, fmt.Errorf("--deploy needs --ssh")
		}
		var err error
		if dep, err = newDeployer(); err != nil {
			return nil, nil, err
		}
	}
	// add starts a feed; an ssh one carries the full-table hint and,
	// with --deploy, the copy handshake.
	add := func(name, source string, argv []string, ssh bool) {
		p := &remote.Process{Argv: argv, Name: name}
		if ssh {
			p.Hint = fullTableHint
			if dep != nil {
				p.Handshake = dep.handshake
			}
		}
		p.Start(o.interval)
		stops = append(stops, p.Stop)
		tee := &remote.Tee{Source: p}
		apps = append(apps, tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: &remote.RemoteTuner{P: p}, Source: source}))
	}
	for _, d := range ssh {
		remoteCmd := []string{"tablefull", "agent"}
		if dep != nil {
			remoteCmd = []string{"sh -c '" + dep.script() + "'"}
		}
		argv, err := sshArgv(d, remoteCmd...)
		if err != nil {
			stop()
			return nil, nil, err
		}
		add(d, "ssh "+d, argv, true)
	}
	for _, v := range via {
		argv, err := viaArgv(v)
		if err != nil {
			stop()
			return nil, nil, err
		}
		add(argv[0], fmt.Sprintf("via %q", v), argv, false)
	}
	for _, n := range netns {
		argv, err := netnsArgv(n)
		if err != nil {
			stop()
			return nil, nil, err
		}
		add("netns "+n, "netns "+n, argv, false)
	}
	if len(apps) > 0 {
		return apps, stop, nil
	}
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return nil, nil, err
	}
	live := sources.NewLive(c, o.interval)
	tee := &remote.Tee{Source: live}
	return []*tui.App{tui.New(tee, tui.Options{Interval: o.interval, Recorder: tee, Tuner: tune.NewLocal(o.roots, o.stateDir)})}, live.Stop, nil
}
