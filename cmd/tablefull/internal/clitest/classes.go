package clitest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/netns"
)

// ClassFeed runs the agent inside ns at interval and analyses its
// samples.
type ClassFeed struct {
	P  *agent.Process
	An *diagnose.Analyzer
	// active and passive are the TCP opens/s over the last window.
	Active, Passive float64
}

// StartClassFeed samples ns every interval into frames, until the test
// ends.
func StartClassFeed(t *testing.T, ns *netns.NS, interval time.Duration) *ClassFeed {
	t.Helper()
	// the agent is this test binary as `BIN agent`, which TestMain runs
	// as the command with no environment of ours
	argv, err := agent.NetnsArgv(ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	p := &agent.Process{Argv: argv, Name: ns.Name, MinBackoff: 100 * time.Millisecond}
	p.Start(interval)
	t.Cleanup(p.Stop)
	return &ClassFeed{P: p, An: diagnose.NewAnalyzer(600)}
}

// Until feeds frames until ok says the frame is what the test waits for,
// or the deadline passes (then it fails with the last frame).
func (c *ClassFeed) Until(t *testing.T, within time.Duration, ok func(diagnose.Frame) bool) diagnose.Frame {
	t.Helper()
	end := time.Now().Add(within)
	var f diagnose.Frame
	for time.Now().Before(end) {
		f = c.An.Add(NextSample(t, c.P))
		if ok(f) {
			return f
		}
	}
	t.Fatalf("not within %v; last frame: classes %+v (%s), entries %+v, verdict %v", within, f.Fill.Classes, f.Fill.Basis, f.Sample.Entries, f.Verdict())
	return f
}

// window feeds frames for d and returns the last and the new entries/s
// of the frames counted from events, by class.
func (c *ClassFeed) window(t *testing.T, d time.Duration) (diagnose.Frame, [model.NumClasses]float64) {
	t.Helper()
	var per [model.NumClasses]float64
	var secs, active, passive float64
	var f diagnose.Frame
	for end := time.Now().Add(d); time.Now().Before(end); {
		f = c.An.Add(NextSample(t, c.P))
		if f.Rates.Entries.Basis != model.BasisEvents {
			continue
		}
		s := f.Rates.Elapsed.Seconds()
		for i, v := range f.Rates.Entries.PerClass {
			per[i] += v * s
		}
		active += f.Rates.ActiveOpensPS * s
		passive += f.Rates.PassiveOpensPS * s
		secs += s
	}
	if secs == 0 {
		t.Fatalf("no frame counted from events in %v: %+v", d, f.Sample.Entries)
	}
	for i := range per {
		per[i] /= secs
	}
	c.Active, c.Passive = active/secs, passive/secs
	return f, per
}

// AgainstKernel feeds frames for d while conntrack(8) counts the NEW
// events of the same span: our rates by class and the kernel's by
// protocol.
func (c *ClassFeed) AgainstKernel(t *testing.T, ns *netns.NS, d time.Duration) (diagnose.Frame, [model.NumClasses]float64, map[string]float64) {
	t.Helper()
	kernel := CountEvents(ns, d, "NEW", "-e", "NEW")
	f, per := c.window(t, d)
	return f, per, kernel.Rate(t)
}

// EventCount is a count of conntrack(8)'s events under way on a goroutine
// of its own, which may not end the test: rate does, on the test's.
type EventCount chan eventRate

// eventRate is an EventCount's result.
type eventRate struct {
	perSecond map[string]float64
	err       error
}

// CountEvents starts counting the events of kind conntrack(8) -E shows in
// ns for d with the filter args.
func CountEvents(ns *netns.NS, d time.Duration, kind string, args ...string) EventCount {
	c := make(EventCount, 1)
	go func() {
		n, err := kernelEventRate(ns, d, kind, args...)
		c <- eventRate{n, err}
	}()
	return c
}

// Rate waits for the count: per second, by protocol name ("tcp", "udp").
func (c EventCount) Rate(t *testing.T) map[string]float64 {
	t.Helper()
	r := <-c
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.perSecond
}

// kernelEventRate counts the events of kind conntrack(8) -E shows in ns
// for d with the filter args, by protocol name, per second.
func kernelEventRate(ns *netns.NS, d time.Duration, kind string, args ...string) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.Name, "conntrack", "-E"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("conntrack -E in %s: %w", ns.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("conntrack -E in %s: %w", ns.Name, err)
	}
	start := time.Now()
	n := map[string]float64{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 1 && f[0] == "["+kind+"]" {
			n[f[1]]++
		}
	}
	cmd.Wait()
	secs := time.Since(start).Seconds()
	for k := range n {
		n[k] /= secs
	}
	return n, nil
}

// SetNS sets sysctl key to v inside ns.
func SetNS(t *testing.T, ns *netns.NS, key string, v int) {
	t.Helper()
	if out, err := ns.Output("sysctl", "-qw", fmt.Sprintf("%s=%d", key, v)); err != nil {
		t.Fatalf("sysctl %s=%d in %s: %v %s", key, v, ns.Name, err, out)
	}
}

// Churn serves on addr in ns and runs load l against it, a connection
// per request, until the test ends; it returns the load's live counts.
func Churn(t *testing.T, ns *netns.NS, addr string, l netns.Load) *netns.Stats {
	t.Helper()
	srv := &netns.Server{Body: []byte("x\n")}
	if err := ns.Serve(addr, srv); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	if l.Stats == nil {
		l.Stats = &netns.Stats{}
	}
	l.Addr, l.Requests, l.Deadline, l.Stop = srv.Addr(), 1<<30, 10*time.Minute, stop
	go ns.Run(l)
	t.Cleanup(func() { close(stop); srv.Close() })
	return l.Stats
}

// ResolveAt runs dnsmasq in ns and a client of glibc's resolver looking
// up a name perSecond times a second for d, each lookup a fresh UDP
// socket; the client sees the namespace's resolver through a private
// mount namespace, so the host's /etc is never written. Both end with
// the test.
func ResolveAt(t *testing.T, ns *netns.NS, dir string, perSecond int, d time.Duration) {
	t.Helper()
	dns := ns.Command("dnsmasq", "--keep-in-foreground", "--port=53", "--listen-address=127.0.0.1", "--bind-interfaces",
		"--no-resolv", "--no-hosts", "--user=root", "--pid-file="+filepath.Join(dir, "pid"), "--address=/lab.test/10.1.2.3")
	StartUntilEnd(t, dns)
	resolv := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(resolv, []byte("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`import socket, time
t0 = time.time(); n = 0
while time.time() - t0 < %d:
    try: socket.gethostbyname("x.lab.test")
    except OSError: pass
    n += 1
    time.sleep(max(0, t0 + n / %d.0 - time.time()))
`, int(d.Seconds()), perSecond)
	StartUntilEnd(t, ns.Command("unshare", "-m", "sh", "-c", "mount --bind "+resolv+" /etc/resolv.conf && exec python3 -c '"+script+"'"))
}
