package main

import (
	"io"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
)

// localStream samples this host and writes its stream to w: what both
// the agent and a headless recording are. source labels the header.
type localStream struct {
	live *sources.Live
	enc  *remote.Encoder
	// done reports the end of the samples: nil when stopped, the write
	// error when the reader went away.
	done chan error
}

func startLocalStream(o options, w io.Writer, source string) (*localStream, error) {
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return nil, err
	}
	live := sources.NewLive(c, o.interval)
	host := live.Host()
	host.Source = source
	start := time.Now()
	enc, err := remote.NewEncoder(w, host, start)
	if err != nil {
		live.Stop()
		return nil, err
	}
	ls := &localStream{live: live, enc: enc, done: make(chan error, 1)}
	go func() {
		for {
			s, err := live.Next()
			if err != nil {
				ls.done <- nil
				return
			}
			if err := enc.Sample(remote.SinceStart(s, start)); err != nil {
				ls.done <- err
				return
			}
		}
	}()
	return ls, nil
}

// Stop ends the sampling.
func (ls *localStream) Stop() { ls.live.Stop() }
