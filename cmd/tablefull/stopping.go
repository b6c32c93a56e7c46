package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// untilStopped is done on SIGINT, SIGTERM or SIGHUP (the terminal closed),
// or after d when d > 0: how long record, the exporter and the headless
// lab run. Each ends cleanly on every one of them: no data lost, the host
// restored.
func untilStopped(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if d <= 0 {
		return ctx, stop
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, func() { cancel(); stop() }
}
