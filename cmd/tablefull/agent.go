package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
)

// controlRequest is one line an agent reads on stdin.
type controlRequest struct {
	Op string `json:"op"`
	MS int64  `json:"ms"`
	On bool   `json:"on"`
}

// agent writes the stream of this host to stdout and takes control
// requests on stdin until stdin closes. It is read-only and never listens.
func agent(o options, stdin io.Reader, stdout io.Writer) error {
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return err
	}
	live := sources.NewLive(c, o.interval)
	defer live.Stop()
	host := live.Host()
	host.Source = "agent"
	enc, err := remote.NewEncoder(stdout, host, time.Now())
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- control(stdin, live) }()
	samples := make(chan error, 1)
	go func() {
		for {
			s, err := live.Next()
			if err != nil {
				samples <- nil
				return
			}
			if err := enc.Sample(s); err != nil {
				samples <- err // the reader went away
				return
			}
		}
	}()
	select {
	case err := <-done:
		return err
	case err := <-samples:
		return err
	}
}

// control applies requests until stdin closes or asks to stop.
func control(r io.Reader, live *sources.Live) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var req controlRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "tablefull agent: ignoring bad request %q\n", sc.Text())
			continue
		}
		switch req.Op {
		case "interval":
			if d := time.Duration(req.MS) * time.Millisecond; d >= 100*time.Millisecond {
				live.SetInterval(d)
			}
		case "census":
			live.SetCensus(req.On)
		case "stop":
			return nil
		default:
			fmt.Fprintf(os.Stderr, "tablefull agent: unknown request %q\n", req.Op)
		}
	}
	return nil
}
