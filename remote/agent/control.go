package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/stream"
)

// Op names a control request.
type Op string

// The control requests an agent takes on stdin.
const (
	OpInterval Op = "interval" // sample every MS milliseconds
	OpCensus   Op = "census"   // take table censuses (On) or stop
	OpStop     Op = "stop"     // end the agent
	OpKnobs    Op = "knobs"    // reply with the current knob values
	OpApply    Op = "apply"    // apply Changes (root, Confirm)
	OpPersist  Op = "persist"  // write the boot-time files (root, Confirm)
	OpUndo     Op = "undo"     // restore the last apply (root, Confirm)
	OpEntries  Op = "entries"  // reply with the entries Filter matches
	OpDelete   Op = "delete"   // delete what Filter matches, never established (root, Confirm)
	OpFollow   Op = "follow"   // follow the entries Filter matches (On), or stop
	OpFollowed Op = "followed" // reply with what the follow saw so far
)

// answered reports whether op expects a Reply.
func (op Op) answered() bool {
	return op == OpKnobs || op == OpApply || op == OpPersist || op == OpUndo || op == OpEntries || op == OpDelete || op == OpFollow || op == OpFollowed
}

// Request is one control request: one JSON object on one line of the
// agent's stdin.
type Request struct {
	Op      Op              `json:"op"`
	ID      int64           `json:"id,omitempty"`
	MS      int64           `json:"ms,omitempty"`
	On      bool            `json:"on,omitempty"`
	Confirm bool            `json:"confirm,omitempty"`
	Changes []tuning.Change `json:"changes,omitempty"`
	Count   uint64          `json:"count,omitempty"`
	// Filter (conntrack(8)'s words), Sort, Desc and Limit are an entries
	// or delete request's.
	Filter string `json:"filter,omitempty"`
	Sort   string `json:"sort,omitempty"`
	Desc   bool   `json:"desc,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// Reply is the agent's answer to a control request, carried as an event
// whose type is the request's op and whose text is this JSON.
type Reply struct {
	ID       int64             `json:"id"`
	Error    string            `json:"error,omitempty"`
	Knobs    *tuning.KnobState `json:"knobs,omitempty"`
	Results  []knob.Result     `json:"results,omitempty"`
	Files    []string          `json:"files,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	Entries  *EntriesReply     `json:"entries,omitempty"`
	Deletion *entry.Deletion   `json:"deletion,omitempty"`
	Follow   *FollowReply      `json:"follow,omitempty"`
	// linkCut marks the answer the console gives itself when the stream
	// ended before the agent's (never sent).
	linkCut bool
}

// Limits of a control request.
const (
	// MaxRequest bounds one request line: a full plan is under 2 KB.
	MaxRequest = 64 << 10
	// MinInterval and MaxInterval bound an interval request.
	MinInterval = 100 * time.Millisecond
	MaxInterval = time.Hour
)

// Errors of the control protocol; test them with errors.Is.
var (
	// ErrBadRequest: a request failed validation; nothing was done.
	ErrBadRequest = errors.New("bad request")
	// ErrReadOnly: a change without root or without confirmation.
	ErrReadOnly = errors.New("the agent is read-only: changes need it to run as root and an explicit confirmation")
	// ErrRequestTooLong: a line longer than MaxRequest (or junk without
	// newlines); the agent stops reading.
	ErrRequestTooLong = errors.New("request line too long")
)

// Check validates req as it lands: a known op, an interval in bounds, and
// changes parsed and re-rendered by tuning.CheckChanges (known knobs only;
// no text of the sender's is kept). The agent checks every request, even
// from a console that checked it before sending.
func (req Request) Check() (Request, error) {
	switch req.Op {
	case OpInterval:
		d := time.Duration(req.MS) * time.Millisecond
		if req.MS <= 0 || d < MinInterval || d > MaxInterval {
			return req, fmt.Errorf("%w: interval %d ms is outside %s…%s", ErrBadRequest, req.MS, MinInterval, MaxInterval)
		}
	case OpCensus, OpStop, OpKnobs, OpUndo, OpFollowed:
	case OpEntries, OpDelete, OpFollow:
		f, err := checkEntriesRequest(&req)
		if err != nil {
			return req, fmt.Errorf("%w: %w", ErrBadRequest, err)
		}
		req.Filter = f.String()
	case OpApply, OpPersist:
		changes, err := tuning.CheckChanges(req.Changes)
		if err != nil {
			return req, fmt.Errorf("%w: %w", ErrBadRequest, err)
		}
		if len(changes) == 0 {
			return req, fmt.Errorf("%w: %s without changes", ErrBadRequest, req.Op)
		}
		req.Changes = changes
	default:
		return req, fmt.Errorf("%w: unknown op %q", ErrBadRequest, req.Op)
	}
	return req, nil
}

// Controller is what an agent does for control requests: its sampler,
// and the one tuner (tuning.Tuner) of the host it runs on. Serve calls it
// only with checked requests, and calls Apply, Persist and Undo only when
// the agent may write.
type Controller interface {
	model.Sampler
	tuning.Tuner
}

// Serve reads requests from r, one per line, until r ends or a stop
// request. Each is checked (Request.Check) before c sees it; a request
// that fails the check is answered with its error (or noted on warn when
// it expects no answer) and changes nothing. writable says whether this
// agent may change the host at all (it runs as root); each change also
// needs the request's Confirm. Answers go to reply as events.
//
// A line longer than MaxRequest, or input that ends in the middle of a
// request, is an error: the caller exits non-zero.
func Serve(r io.Reader, c Controller, writable bool, reply func(stream.Event) error, warn io.Writer) error {
	var fol following
	defer fol.stop()
	br := bufio.NewReaderSize(r, 4096)
	for n := 1; ; n++ {
		line, err := readRequestLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("request %d: %w", n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintf(warn, "tablefull agent: request %d skipped: not a request: %s\n", n, stream.Snippet(line))
			continue
		}
		checked, err := req.Check()
		if err != nil {
			if !req.Op.answered() {
				fmt.Fprintf(warn, "tablefull agent: request %d skipped: %v\n", n, err)
				continue
			}
		}
		switch checked.Op {
		case OpInterval:
			c.SetInterval(time.Duration(checked.MS) * time.Millisecond)
			continue
		case OpCensus:
			c.SetCensus(checked.On)
			continue
		case OpStop:
			return nil
		}
		if err := reply(answer(c, &fol, checked, err, writable)); err != nil {
			return err
		}
	}
}

// answer runs a checked request that expects a reply.
func answer(c Controller, fol *following, req Request, checkErr error, writable bool) stream.Event {
	rep := Reply{ID: req.ID}
	err := checkErr
	switch {
	case err != nil:
	case req.Op == OpKnobs:
		var k tuning.KnobState
		k, err = c.Read()
		rep.Knobs = &k
	case req.Op == OpEntries:
		rep.Entries, err = listEntries(c, req)
	case req.Op == OpFollow:
		err = fol.start(c, req)
	case req.Op == OpFollowed:
		rep.Follow, err = fol.read()
	case !writable || !req.Confirm:
		err = ErrReadOnly
	case req.Op == OpApply:
		rep.Results, err = c.Apply(req.Changes, req.Count)
	case req.Op == OpPersist:
		rep.Files, rep.Warnings, err = c.Persist(req.Changes)
	case req.Op == OpUndo:
		rep.Results, err = c.Undo()
	case req.Op == OpDelete:
		rep.Deletion, err = deleteEntries(c, req)
	}
	if err != nil {
		rep.Error = err.Error()
	}
	b, _ := json.Marshal(rep) // maps of strings and slices of plain structs always marshal
	return stream.Event{Time: time.Now(), Type: string(req.Op), Text: string(b)}
}

// readRequestLine reads one line of at most MaxRequest bytes. A last line
// without its newline is taken as a request; junk longer than the bound
// is ErrRequestTooLong.
func readRequestLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxRequest {
			return nil, fmt.Errorf("%w: over %d bytes without a newline", ErrRequestTooLong, MaxRequest)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		case err != nil:
			return nil, err
		}
		return line, nil
	}
}

// writeRequest sends one request line in a single Write.
func writeRequest(w io.Writer, req Request) error {
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("send %s: %w", req.Op, err)
	}
	return nil
}
