package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/remote/stream"
)

// ErrDisconnected wraps every way a remote stream can stop: the command
// exited, the connection dropped, garbage arrived. A console asks it
// (errors.As to interface{ Disconnected() bool }) to say DISCONNECTED
// rather than show one dropped line as a lost link.
var ErrDisconnected error = linkError("disconnected")

// ErrNotRetried marks a disconnection that is not retried: what the
// command prints is not a tablefull stream, so running it again would
// print the same.
var ErrNotRetried = errors.New("not retrying")

// linkError is ErrDisconnected's type.
type linkError string

// Error implements error.
func (e linkError) Error() string { return string(e) }

// Disconnected reports that the stream is down.
func (linkError) Disconnected() bool { return true }

// permanent reports whether a stream error would come back on every
// retry: a first line that is not a tablefull header (empty is not: a
// host that cannot be reached prints nothing), a newer stream version.
func permanent(err error) bool {
	return errors.Is(err, stream.ErrNewerVersion) || (errors.Is(err, stream.ErrNotStream) && !errors.Is(err, stream.ErrEmptyStream))
}

// Process runs a command that prints an agent stream (ssh running
// `tablefull agent`, kubectl exec, ip netns exec …), decodes its stdout,
// and starts it again with backoff when it stops. It implements the
// console's feed: Next returns samples, or an error describing a
// disconnection while it reconnects.
type Process struct {
	// Argv is the command; it is never passed through a shell.
	Argv []string
	// Name labels the host until the stream's header names it.
	Name string
	// Backoff bounds the wait between attempts: doubling from Min to Max.
	MinBackoff, MaxBackoff time.Duration
	// Hint is added to disconnection messages (e.g. that a full remote
	// table may refuse a new connection).
	Hint string
	// Handshake, when set, talks to the command before the stream starts
	// (e.g. to copy the agent over); it must not read past its own lines.
	Handshake func(stdout *bufio.Reader, stdin io.Writer) error

	items    chan item
	replies  replies
	mu       sync.Mutex
	host     model.Host
	stdin    io.WriteCloser
	interval time.Duration
	census   bool
	stop     chan struct{}
	// exited is closed when the loop has returned: the command is gone.
	exited chan struct{}
	once   sync.Once
}

// stopGrace is how long Stop lets the command exit on its own after its
// stdin closes (an agent exits at once) before it is killed.
const stopGrace = time.Second

type item struct {
	s   model.Sample
	err error
}

// Start begins the first attempt; interval is requested from each agent.
func (p *Process) Start(interval time.Duration) {
	if p.MinBackoff <= 0 {
		p.MinBackoff = time.Second
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 30 * time.Second
	}
	p.items = make(chan item, 8) // a few samples: a big host's are 100 KB each
	p.stop = make(chan struct{})
	p.exited = make(chan struct{})
	p.interval = interval
	p.host = model.Host{Name: p.Name, Source: strings.Join(p.Argv, " ")}
	go p.loop()
}

// Host is the remote host as its stream's header describes it.
func (p *Process) Host() model.Host {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.host
}

// Next blocks for the next sample or disconnection report.
func (p *Process) Next() (model.Sample, error) {
	select {
	case it := <-p.items:
		return it.s, it.err
	case <-p.stop:
		return model.Sample{}, io.EOF
	}
}

// SetInterval asks the running agent (and every later one) for a new
// interval.
func (p *Process) SetInterval(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.interval = d
	if p.stdin != nil {
		writeRequest(p.stdin, Request{Op: OpInterval, MS: d.Milliseconds()})
	}
}

// SetCensus asks the running agent (and every later one) to take table
// censuses, or to stop.
func (p *Process) SetCensus(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.census = on
	if p.stdin != nil {
		writeRequest(p.stdin, Request{Op: OpCensus, On: on})
	}
}

// Stop ends the command and the reconnections, and returns once the
// command and everything it started are gone: its stdin is closed (an
// agent exits), and after stopGrace its process group is killed. Quitting
// the console leaves no ssh behind.
func (p *Process) Stop() {
	p.once.Do(func() {
		close(p.stop)
		p.mu.Lock()
		if p.stdin != nil {
			p.stdin.Close()
		}
		p.mu.Unlock()
	})
	if p.exited != nil {
		<-p.exited
	}
}

func (p *Process) loop() {
	defer close(p.exited)
	wait := p.MinBackoff
	failed := 0 // attempts in a row that brought no sample
	for {
		got, err := p.run()
		p.replies.cut() // whatever was asked of that agent is unanswered
		select {
		case <-p.stop:
			return
		default:
		}
		if got {
			wait, failed = p.MinBackoff, 0 // it worked for a while: retry soon
		}
		failed++
		if !got && permanent(err) {
			p.send(item{err: fmt.Errorf("%w: %w; %w: %s should print the stream `tablefull agent` prints", ErrDisconnected, err, ErrNotRetried, p.Argv[0])})
			return
		}
		msg := fmt.Errorf("%w: %w; attempt %d failed, the next in %s", ErrDisconnected, err, failed, wait.Round(time.Second))
		if p.Hint != "" && hintFits(err) {
			msg = fmt.Errorf("%w (%s)", msg, p.Hint)
		}
		p.send(item{err: msg})
		select {
		case <-p.stop:
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, p.MaxBackoff)
	}
}

func (p *Process) send(it item) {
	select {
	case p.items <- it:
	case <-p.stop:
	}
}

// run does one attempt and reports whether any sample arrived.
func (p *Process) run() (bool, error) {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	// Its own process group, killed whole: a wrapper's children must not
	// keep the pipes open. WaitDelay bounds the wait for them anyway.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("start %s: %w", p.Argv[0], err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() { // Stop must not wait long for a silent remote
		select {
		case <-p.stop:
			select {
			case <-stopped:
			case <-time.After(stopGrace):
			}
			killGroup(cmd)
		case <-stopped:
		}
	}()
	br := bufio.NewReaderSize(out, 64<<10)
	if p.Handshake != nil {
		if err := p.Handshake(br, in); err != nil {
			killGroup(cmd)
			cmd.Wait()
			return false, err
		}
	}
	p.mu.Lock()
	p.stdin = in
	writeRequest(in, Request{Op: OpInterval, MS: p.interval.Milliseconds()})
	if p.census {
		writeRequest(in, Request{Op: OpCensus, On: true})
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.stdin = nil
		p.mu.Unlock()
		in.Close()
		killGroup(cmd)
		cmd.Wait()
	}()

	return p.read(cmd, br, &stderr)
}

// read reads the agent's stream on br until it ends, and reports whether
// any sample arrived.
func (p *Process) read(cmd *exec.Cmd, br *bufio.Reader, stderr *bytes.Buffer) (bool, error) {
	dec := stream.NewDecoder(br)
	if err := dec.Header(); err != nil {
		return false, p.explain(cmd, err, stderr)
	}
	p.mu.Lock()
	p.host = dec.Host
	if p.Name != "" && p.host.Name == "" {
		p.host.Name = p.Name
	}
	p.mu.Unlock()
	got := false
	dec.OnDamaged = func(err error) { // one bad or oversized line: dropped, said, the session goes on
		p.send(item{err: fmt.Errorf("%s: line dropped: %w", p.Argv[0], err)})
	}
	for {
		s, ev, err := dec.Next()
		if errors.Is(err, io.EOF) && dec.Torn != nil {
			err = dec.Torn
		}
		if err != nil {
			return got, p.explain(cmd, err, stderr)
		}
		if ev != nil && ev.Type == stream.EventError { // the agent could not read something: said, the session goes on
			p.send(item{err: fmt.Errorf("%s: %s", p.Argv[0], safe.Text(ev.Text, safe.MaxText))})
		} else if ev != nil {
			p.replies.deliver(*ev)
		}
		if s != nil {
			got = true
			p.send(item{s: *s})
		}
	}
}

// killGroup kills the command and everything it started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
