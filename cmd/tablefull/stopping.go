package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// untilStopped is done on SIGINT or SIGTERM, or after d when d > 0: how
// long record and the headless lab run.
func untilStopped(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if d <= 0 {
		return ctx, stop
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, func() { cancel(); stop() }
}
