package remote

import (
	"fmt"
	"time"
)

// Dest is one remote the console watches: its stream's process and how
// the user named it ("ssh web-3", "via \"…\"", "netns h1").
type Dest struct {
	P      *Process
	Source string
	// Netns is the file of a --netns namespace of this host ("" for the
	// others): its knobs are tuned from the host, not by its agent.
	Netns string
}

// StartDests starts a stream for every --ssh, --via and --netns, sampled
// every interval; an ssh one carries FullTableHint and, with deploy, the
// copy handshake. The function it returns stops them all.
func StartDests(interval time.Duration, ssh, via, netns []string, deploy bool) ([]Dest, func(), error) {
	var dests []Dest
	stop := func() {
		for _, d := range dests {
			d.P.Stop()
		}
	}
	var dep *Deployer
	if deploy {
		if len(ssh) == 0 {
			return nil, nil, fmt.Errorf("--deploy needs --ssh")
		}
		var err error
		if dep, err = NewDeployer(); err != nil {
			return nil, nil, err
		}
	}
	add := func(name, source string, argv []string, ssh bool) *Dest {
		p := &Process{Argv: argv, Name: name}
		if ssh {
			p.Hint = FullTableHint
			if dep != nil {
				p.Handshake = dep.Handshake
			}
		}
		p.Start(interval)
		dests = append(dests, Dest{P: p, Source: source})
		return &dests[len(dests)-1]
	}
	for _, d := range ssh {
		remoteCmd := []string{"tablefull", "agent"}
		if dep != nil {
			remoteCmd = []string{"sh -c '" + dep.Script() + "'"}
		}
		argv, err := SSHArgv(d, remoteCmd...)
		if err != nil {
			stop()
			return nil, nil, err
		}
		add(d, "ssh "+d, argv, true)
	}
	for _, v := range via {
		argv, err := ViaArgv(v)
		if err != nil {
			stop()
			return nil, nil, err
		}
		add(argv[0], fmt.Sprintf("via %q", v), argv, false)
	}
	for _, n := range netns {
		argv, err := NetnsArgv(n)
		if err != nil {
			stop()
			return nil, nil, err
		}
		path, _ := NetnsPath(n) // NetnsArgv checked it
		add("netns "+n, "netns "+n, argv, false).Netns = path
	}
	return dests, stop, nil
}
