package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/tablefull/tablefull/remote/stream"
)

// explain turns a stream error into the message the user sees: what ssh
// or the agent printed on stderr says more than "EOF".
func (p *Process) explain(cmd *exec.Cmd, err error, stderr *bytes.Buffer) error {
	killGroup(cmd)
	waitErr := cmd.Wait()
	msg := strings.TrimSpace(stderr.String())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	switch {
	case errors.Is(err, stream.ErrEmptyStream) && msg != "":
		return commandFailed{said: msg, err: err}
	case errors.Is(err, io.EOF) && msg != "":
		return fmt.Errorf("%s exited: %s", p.Argv[0], msg)
	case errors.Is(err, io.EOF) && waitErr != nil:
		return fmt.Errorf("%s exited: %w", p.Argv[0], waitErr)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s closed the stream", p.Argv[0])
	case msg != "":
		return fmt.Errorf("%w (%s)", err, msg)
	}
	return err
}

// commandFailed is an attempt whose command (ssh) failed before any
// stream began: its own words are the reason, said first.
type commandFailed struct {
	said string
	err  error
}

// Error implements error.
func (e commandFailed) Error() string { return e.said + " (no stream began)" }

// Unwrap is the stream's error, so the attempt is retried as any empty
// stream is.
func (e commandFailed) Unwrap() error { return e.err }

// limited keeps the first n bytes written.
type limited struct {
	w io.Writer
	n int
}

// Write implements io.Writer.
func (l *limited) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(len(b), l.n)
		l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}
