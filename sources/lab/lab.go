package lab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/tune"
)

// Options adjust a scenario; zero values take the scenario's defaults.
type Options struct {
	Workers int
	Rate    float64 // requests per second over all workers
	// Buckets is the global hashsize during a lab that lowers the cap
	// (0: the scenario's, max = buckets as the kernel sizes them since
	// 5.15; the host's 262,144 for the old proportions).
	Buckets uint64
	Paths   Paths
}

// Scenario is one incident the lab reproduces.
type Scenario struct {
	Name string
	// What is one line on what the lab builds; LookFor what to watch.
	What, LookFor string
	workers       int
	rate          float64
	burst         time.Duration
	// labMax, when set, lowers the global nf_conntrack_max to it;
	// labBuckets the global hashsize.
	labMax     uint64
	labBuckets uint64
	// hostBuckets keeps the host's hashsize under a lowered cap: the
	// scenario shows the collector's pass over a large, sparse hash (a
	// big host's 262,144 buckets holding few entries), which max =
	// buckets would not.
	hostBuckets bool
	server      func() *netns.Server
	sysctls     map[string]string // per-namespace, set inside the lab
	dialWait    time.Duration
	// keep: the clients keep every connection open (a leaking pool).
	keep bool
	// nft is a ruleset the scenario adds inside the lab (after the one
	// that tracks every flow).
	nft string
	// requests, when set, is how many requests the clients make in a
	// round (the default: until the lab ends); oneRound: one round, then the
	// lab idles.
	requests int
	oneRound bool
	// later are the lab's sysctls set after this long: a knob changed
	// under the entries the load made.
	after time.Duration
	later map[string]string
	// udp, when set, is the scenario's UDP load to LookupsAddr in place of
	// the HTTP server and its clients, answered by UDP echo servers on
	// echo.
	udp  udpLoad
	echo []string
	// laterNft is a ruleset applied at after, beside later.
	laterNft string
	// Census: the lab asks its agent for censuses from the start (the
	// scenario's verdict needs one).
	Census bool
}

// Lab is a running scenario.
type Lab struct {
	Scenario Scenario
	NS       *netns.NS
	// Max is the global nf_conntrack_max during the lab (0: unchanged);
	// Buckets the global hashsize (0: unchanged).
	Max, Buckets uint64
	// Note says what Start repaired first, if anything.
	Note string
	// Clients counts the lab's client requests as they finish.
	Clients netns.Stats

	paths   Paths
	lockF   *os.File
	state   State
	server  *netns.Server
	echo    *netns.Echo
	serving bool
	// saved is set once this lab wrote its state file: Close removes
	// only its own, never a damaged one it found.
	saved bool
	mu    sync.Mutex // guards state
	stop  chan struct{}
	load  sync.WaitGroup
	once  sync.Once
	err   error
}

// Start builds the scenario and starts its traffic. Close undoes all of
// it; call it on every path (Start cleans up itself when it fails).
func Start(name string, o Options) (l *Lab, err error) {
	sc, ok := Scenarios[name]
	if !ok {
		return nil, fmt.Errorf("no scenario %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("the lab needs root: it builds a network namespace and changes the global nf_conntrack_max")
	}
	o.Paths = o.Paths.orHost()
	if o.Workers > 0 {
		sc.workers = o.Workers
	}
	if o.Rate > 0 {
		sc.rate = o.Rate
	}
	l = &Lab{Scenario: sc, paths: o.Paths, stop: make(chan struct{})}
	if l.lockF, err = lock(o.Paths); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	if l.Note, err = Repair(o.Paths); err != nil {
		return l, err
	}
	l.state = State{PID: os.Getpid(), NS: NSName}
	if sc.labMax > 0 {
		// The max is global but counted per namespace: the host's own
		// traffic would hit the lowered cap if it tracks that much.
		if n, _ := kernelfs.ReadSysctlUint(filepath.Join(o.Paths.Proc, "sys", "net", "netfilter", "nf_conntrack_count")); n > sc.labMax/2 {
			return l, fmt.Errorf("the host namespace tracks %d connections: lowering the global nf_conntrack_max to %d would drop its own traffic; run the lab on a quieter host", n, sc.labMax)
		}
		l.Max = sc.labMax
	}
	l.Buckets = labBuckets(sc, o.Buckets)
	if err := l.saveGlobals(); err != nil {
		return l, err
	}
	if l.NS, err = netns.Create(NSName); err != nil {
		return l, err
	}
	if err := l.NS.Nft(netns.TrackRuleset); err != nil {
		return l, err
	}
	if sc.nft != "" {
		if err := l.NS.Nft(sc.nft); err != nil {
			return l, err
		}
	}
	if err := l.setSysctls(); err != nil {
		return l, err
	}
	if l.Max > 0 {
		if err := setGlobal(o.Paths, GlobalMax, strconv.FormatUint(l.Max, 10)); err != nil {
			return l, fmt.Errorf("lower nf_conntrack_max: %w", err)
		}
	}
	if l.Buckets > 0 {
		if err := setGlobal(o.Paths, GlobalHashsize, strconv.FormatUint(l.Buckets, 10)); err != nil {
			return l, err
		}
		if n, err := o.Paths.read(GlobalHashsize); err == nil {
			l.Buckets = n // the kernel rounds it up to a page of buckets
		}
	}
	if err := l.serve(); err != nil {
		return l, err
	}
	l.startLoad()
	return l, nil
}

// saveGlobals writes the state file with the global knobs the scenario
// changes as they are now, before any change.
func (l *Lab) saveGlobals() error {
	if l.Max > 0 {
		if err := l.Remember(GlobalMax); err != nil {
			return err
		}
	}
	if l.Buckets > 0 {
		if err := l.Remember(GlobalHashsize); err != nil {
			return err
		}
	}
	if err := saveState(l.paths, l.state); err != nil {
		return err
	}
	l.saved = true
	return nil
}

func (l *Lab) setSysctls() error { return l.set(l.Scenario.sysctls) }

// set writes the lab's own sysctls (its namespace's, never the host's)
// through tune's one writer of sysctls, from inside the namespace.
func (l *Lab) set(sysctls map[string]string) error {
	return l.NS.Do(func() error {
		if err := tune.NewSysctls(kernelfs.Roots{Proc: "/proc", Sys: "/sys"}).Settle(sysctls); err != nil {
			return fmt.Errorf("set the lab's sysctls: %w", err)
		}
		return nil
	})
}

// Warmup is the quiet before the traffic starts: the baseline the climb
// stands out against.
const Warmup = 3 * time.Second

func (l *Lab) startLoad() {
	sc := l.Scenario
	l.load.Add(1)
	go func() {
		defer l.load.Done()
		select {
		case <-l.stop:
			return
		case <-time.After(Warmup):
		}
		if sc.after > 0 { // Close waits for it (l.load) before the namespace goes
			l.load.Add(1)
			go func() {
				defer l.load.Done()
				select {
				case <-l.stop:
				case <-time.After(sc.after - Warmup):
					l.set(sc.later)
					if sc.laterNft != "" {
						l.NS.Nft(sc.laterNft)
					}
				}
			}()
		}
		switch sc.udp {
		case racingLookups:
			l.NS.RunLookups(netns.Lookups{Addr: LookupsAddr, Workers: sc.workers, Stop: l.stop, Stats: &l.Clients})
			return
		case steadySenders:
			l.NS.RunSenders(netns.Senders{Addr: LookupsAddr, Sockets: sc.workers, Every: 250 * time.Millisecond, Stop: l.stop, Stats: &l.Clients})
			return
		}
		requests := 1 << 30
		if sc.requests > 0 {
			requests = sc.requests
		}
		for {
			l.NS.Run(netns.Load{Addr: l.server.Addr(), Workers: sc.workers, Requests: requests,
				DialTimeout: sc.dialWait, Deadline: 24 * time.Hour, Rate: sc.rate, Burst: sc.burst, Stop: l.stop, Stats: &l.Clients, Keep: sc.keep})
			if sc.oneRound {
				return
			}
			select {
			case <-l.stop:
				return
			default:
			}
		}
	}()
}

// Close stops the traffic and restores the host: the global max, the
// namespace (with its nft table and sockets), the state file, the lock.
// It is safe to call more than once.
func (l *Lab) Close() error {
	l.once.Do(func() {
		close(l.stop)
		var errs []error
		l.load.Wait() // dials in flight are cancelled by stop
		if l.serving {
			l.server.Close()
		}
		if l.echo != nil {
			l.echo.Close()
		}
		l.mu.Lock()
		if _, err := restoreGlobals(l.paths); err != nil {
			errs = append(errs, err)
		}
		l.mu.Unlock()
		if l.NS != nil {
			if err := l.NS.Delete(); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) == 0 && l.saved {
			os.Remove(l.paths.state())
		}
		if l.lockF != nil {
			l.lockF.Close()
		}
		l.err = errors.Join(errs...)
	})
	return l.err
}

// Remember records, in tune's undo record in the lab's directory and
// before any change, the value a global knob has now, unless it is
// recorded already: Close, a Repair after kill -9 and tablefull tune
// --undo put it back. Call it before changing g.
func (l *Lab) Remember(g Global) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := tune.RecordLive(l.paths.undoDir(), l.paths.sysctls(), string(g)); err != nil {
		return fmt.Errorf("record %s before changing it: %w", g, err)
	}
	return nil
}

// Tuning tunes the lab's namespace from the host through host: each
// global knob's value kept (Remember) before its first write.
func (l *Lab) Tuning(host *tune.Sysctls) *tune.LabTuning {
	return &tune.LabTuning{Host: host, Path: l.NS.Path(), Remember: func(key string) error { return l.Remember(Global(key)) }}
}
