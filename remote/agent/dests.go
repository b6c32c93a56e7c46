package agent

import (
	"fmt"
	"strings"
	"sync"
	"time"

	flag "github.com/spf13/pflag"
)

// Dests are the console's remotes as its flags name them.
type Dests struct {
	SSH, Via, Netns []string
	// Deploy copies this binary to SSH hosts that lack tablefull.
	Deploy bool
}

// AddFlags registers the console's --ssh, --via, --netns and --deploy on
// fs, each filling ds.
func (ds *Dests) AddFlags(fs *flag.FlagSet) {
	fs.StringArrayVar(&ds.SSH, "ssh", nil, "watch `[user@]host[:port]` over the system ssh (repeatable)")
	fs.StringArrayVar(&ds.Via, "via", nil, "watch the agent stream printed by `COMMAND` (repeatable)")
	fs.StringArrayVar(&ds.Netns, "netns", nil, "watch network namespace `NAME|PATH` on this host (repeatable)")
	fs.BoolVar(&ds.Deploy, "deploy", false, "copy this binary to --ssh hosts that lack tablefull (checksum verified)")
}

// Dest is one remote the console watches: its stream's process and how
// the user named it ("ssh web-3", "via \"…\"", "netns h1").
type Dest struct {
	P      *Process
	Source string
	// Netns is the file of a --netns namespace of this host ("" for the
	// others): its knobs are tuned from the host, not by its agent.
	Netns string
}

// Start starts a stream for every --ssh, --via and --netns, sampled
// every interval; an ssh one carries FullTableHint and, with Deploy, the
// copy handshake. The function it returns stops them all.
func (ds Dests) Start(interval time.Duration) ([]Dest, func(), error) {
	ssh, via, netns := ds.SSH, ds.Via, ds.Netns
	var dests []Dest
	stop := func() {
		for _, d := range dests {
			d.P.Stop()
		}
	}
	var dep *Deployer
	if ds.Deploy {
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

// InstanceAgent is the agent on the host of a Prometheus instance label
// (host:port, [v6]:port or a bare host), over ssh as --ssh reaches it,
// not yet started.
func InstanceAgent(instance string) (*Process, error) {
	host := instance
	if i := strings.LastIndexByte(instance, ':'); i > 0 && !strings.HasSuffix(instance, "]") {
		host = instance[:i]
	}
	// The label is Prometheus's word: a user part in it would choose who
	// ssh logs in as. The operator's ssh config and defaults choose that.
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	argv, err := SSHArgv(host, "tablefull", "agent")
	if err != nil {
		return nil, err
	}
	return &Process{Argv: argv, Name: host, Hint: FullTableHint}, nil
}

// Processes are the streams a console started as it went (a namespace
// or a fleet host opened from a panel), stopped together when it ends:
// also one still on screen when q quits, whose command runs in a process
// group of its own and would outlive the console. Safe for concurrent
// use.
type Processes struct {
	mu      sync.Mutex
	started []*Process
}

// Start starts p at interval and keeps it to stop.
func (ps *Processes) Start(p *Process, interval time.Duration) {
	p.Start(interval)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.started = append(ps.started, p)
}

// Stop stops every process started.
func (ps *Processes) Stop() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, p := range ps.started {
		p.Stop()
	}
}
