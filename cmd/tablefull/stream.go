package main

import (
	"io"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
)

// startLocalStream samples this host and writes its stream to w: what
// both the agent and a recording are. source labels the header.
func startLocalStream(o options, w io.Writer, source string) (*sources.Live, *remote.Stream, error) {
	live, err := sources.StartLive(o.roots, o.interval)
	if err != nil {
		return nil, nil, err
	}
	st, err := remote.StartStream(live, w, source)
	if err != nil {
		live.Stop()
		return nil, nil, err
	}
	return live, st, nil
}
