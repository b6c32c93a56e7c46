package agent

import (
	"context"
	"io"

	"github.com/tablefull/tablefull/remote/stream"
)

// ServeControl serves the control requests read from r beside the
// stream st (Serve, answered as the stream's events) until r ends, the
// stream ends or ctx does (nil then): the agent's life.
func ServeControl(ctx context.Context, st *stream.Stream, r io.Reader, c Controller, writable bool, warn io.Writer) error {
	done := make(chan error, 1)
	go func() { done <- Serve(r, c, writable, st.Enc.Event, warn) }()
	select {
	case err := <-done:
		return err
	case err := <-st.Done:
		return err
	case <-ctx.Done():
		return nil
	}
}
