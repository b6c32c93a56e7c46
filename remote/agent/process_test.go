package agent

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
	"github.com/tablefull/tablefull/remote/stream"
	"github.com/tablefull/tablefull/remote/stream/streamtest"
)

// next reads with a deadline, so a hang fails the test instead of CI.
func next(t *testing.T, p *Process) (model.Sample, error) {
	t.Helper()
	type r struct {
		s   model.Sample
		err error
	}
	c := make(chan r, 1)
	go func() { s, err := p.Next(); c <- r{s, err} }()
	select {
	case got := <-c:
		return got.s, got.err
	case <-time.After(10 * time.Second):
		t.Fatal("Next hung")
		return model.Sample{}, nil
	}
}

func TestProcessReconnects(t *testing.T) {
	path := recordingtest.StreamFile(t, 2)
	p := &Process{Argv: []string{"sh", "-c", "cat " + path + "; echo 'agent: boom' >&2; exit 3"},
		MinBackoff: 50 * time.Millisecond, Hint: "table may be full"}
	p.Start(time.Second)
	defer p.Stop()
	for round := range 2 { // a second round proves the reconnection
		for i := range 2 {
			s, err := next(t, p)
			if err != nil {
				t.Fatalf("round %d sample %d: %v", round, i, err)
			}
			if s.Conntrack.Count != 4096 {
				t.Fatalf("sample count %d", s.Conntrack.Count)
			}
		}
		_, err := next(t, p)
		if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "agent: boom") || !strings.Contains(err.Error(), "table may be full") {
			t.Fatalf("round %d: error %v, want a disconnection quoting stderr and the hint", round, err)
		}
	}
	if h := p.Host(); h.Name != "remote-box" {
		t.Errorf("host %+v, want the stream header's", h)
	}
}

func TestProcessBadStreams(t *testing.T) {
	path := recordingtest.StreamFile(t, 1)
	tests := []struct {
		name, script, want string
	}{
		{"garbage", "cat " + path + "; echo '{{{not json'; sleep 5", "garbage"},
		{"truncated", "head -c 300 " + path + "; exit 0", "truncated"},
		{"truncated mid-sample", "cat " + path + " | head -c $(($(wc -c < " + path + ") - 10))", "truncated"},
		{"not an agent", "echo hello", "not a tablefull stream"},
		{"newer version", `echo '{"tablefull":"stream","v":7}'; sleep 5`, "newer"},
		{"command missing", "exec /no/such/agent", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Process{Argv: []string{"sh", "-c", tt.script}, MinBackoff: time.Hour}
			p.Start(time.Second)
			defer p.Stop()
			var err error
			for range 3 {
				if _, err = next(t, p); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestProcessSendsInterval(t *testing.T) {
	out := filepath.Join(t.TempDir(), "requests")
	path := recordingtest.StreamFile(t, 1)
	p := &Process{Argv: []string{"sh", "-c", "cat " + path + "; cat > " + out}, MinBackoff: time.Hour}
	p.Start(2 * time.Second)
	if _, err := next(t, p); err != nil {
		t.Fatal(err)
	}
	p.SetInterval(500 * time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	p.Stop()
	time.Sleep(200 * time.Millisecond)
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), `{"op":"interval","ms":2000}`) || !strings.Contains(string(b), `{"op":"interval","ms":500}`) {
		t.Errorf("agent got %q, want the start interval and the change", b)
	}
}

func TestRecordingTornAndNotARecording(t *testing.T) {
	path := recordingtest.StreamFile(t, 3)
	b, _ := os.ReadFile(path)
	torn := filepath.Join(t.TempDir(), "torn.jsonl")
	os.WriteFile(torn, b[:len(b)-15], 0o644) // killed mid-line
	f, _ := os.Open(torn)
	defer f.Close()
	rec, err := recording.ReadRecording(f)
	if err != nil || len(rec.Samples) != 2 || !rec.Torn {
		t.Errorf("torn recording: %v, %d samples, torn=%v; want 2 samples and torn", err, len(rec.Samples), rec != nil && rec.Torn)
	}
	other := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(other, []byte("shopping list\n"), 0o644)
	if _, err := recording.OpenReplay(other, "replay"); err == nil || !strings.Contains(err.Error(), other) || !errors.Is(err, stream.ErrNotStream) {
		t.Errorf("not a recording: %v, want ErrNotStream naming %s", err, other)
	}
}

// TestProcessProtocolErrorNotRetried: a command that prints something
// other than a stream is run once and not again, and says so; one that
// prints nothing (a host that cannot be reached) is retried.
func TestProcessProtocolErrorNotRetried(t *testing.T) {
	for _, c := range []struct {
		name, script string
		retried      bool
	}{
		{"not a stream", "echo hello", false},
		{"newer version", `echo '{"tablefull":"stream","v":7}'`, false},
		{"nothing printed", "echo 'ssh: Could not resolve hostname nosuchhost' >&2; exit 255", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs := filepath.Join(t.TempDir(), "runs")
			p := &Process{Argv: []string{"sh", "-c", "echo x >> " + runs + "; " + c.script}, MinBackoff: 50 * time.Millisecond}
			p.Start(time.Second)
			defer p.Stop()
			_, err := next(t, p)
			var d interface{ Disconnected() bool }
			if err == nil || !errors.As(err, &d) || !d.Disconnected() {
				t.Fatalf("error %v is not a disconnection", err)
			}
			if got := errors.Is(err, ErrNotRetried); got == c.retried {
				t.Errorf("%v: not retried %v, want %v", err, got, !c.retried)
			}
			time.Sleep(400 * time.Millisecond)
			b, _ := os.ReadFile(runs)
			if n := strings.Count(string(b), "x"); (n > 1) != c.retried {
				t.Errorf("ran %d times, retried want %v (%v)", n, c.retried, err)
			}
		})
	}
}

// TestHintOnlyWhereTrue: a name that does not resolve is not a full
// table: ssh's own words are quoted without the hint about one.
func TestHintOnlyWhereTrue(t *testing.T) {
	p := &Process{Argv: []string{"sh", "-c", "echo 'ssh: Could not resolve hostname nosuchhost.invalid: Name or service not known' >&2; exit 255"},
		MinBackoff: 50 * time.Millisecond, Hint: FullTableHint}
	p.Start(time.Second)
	defer p.Stop()
	_, err := next(t, p)
	if err == nil || !strings.Contains(err.Error(), "Could not resolve hostname") || strings.Contains(err.Error(), FullTableHint) {
		t.Errorf("an unresolvable name: %v", err)
	}
}

// TestSSHsErrorFirst: where ssh fails before any stream began, its own
// words lead ("not a tablefull stream: empty (ssh: …)" led before), then
// which attempt failed and when the next one is; the count goes on.
func TestSSHsErrorFirst(t *testing.T) {
	const refused = "ssh: connect to host 127.0.0.1 port 2299: Connection refused"
	p := &Process{Argv: []string{"sh", "-c", "echo '" + refused + "' >&2; exit 255"}, MinBackoff: 50 * time.Millisecond}
	p.Start(time.Second)
	defer p.Stop()
	for i := 1; i <= 2; i++ {
		_, err := next(t, p)
		want := "disconnected: " + refused + " (no stream began); attempt " + strconv.Itoa(i) + " failed, the next in"
		if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrDisconnected) {
			t.Errorf("attempt %d: %v, want %q…", i, err, want)
		}
	}
}

// TestProcessSaysTheAgentsErrors: an error event of the agent's stream
// (something it could not read) reaches the console as an error of the
// feed, sanitised, and the samples go on.
func TestProcessSaysTheAgentsErrors(t *testing.T) {
	var buf bytes.Buffer
	enc, _ := stream.NewEncoder(&buf, model.Host{Name: "remote-box"}, streamtest.T0)
	enc.Event(stream.Event{Time: streamtest.T0, Type: stream.EventError, Text: "read disk \x1b[2J: gone"})
	enc.Sample(streamtest.TwoCPUSample(0))
	path := filepath.Join(t.TempDir(), "stream.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Process{Argv: []string{"sh", "-c", "cat " + path + "; sleep 5"}}
	p.Start(time.Second)
	defer p.Stop()
	if _, err := next(t, p); err == nil || !strings.Contains(err.Error(), "read disk") || strings.Contains(err.Error(), "\x1b") || errors.Is(err, ErrDisconnected) {
		t.Fatalf("first: %v, want the agent's error, sanitised, not a disconnection", err)
	}
	if s, err := next(t, p); err != nil || s.Conntrack.Count != 4096 {
		t.Fatalf("then %+v %v, want the sample", s, err)
	}
}
