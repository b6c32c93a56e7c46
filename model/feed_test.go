package model

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

// TestFeedEndsOneWay: a feed that played out and one its owner stopped
// end the same way for every reader; any other error does not end it.
func TestFeedEndsOneWay(t *testing.T) {
	for _, c := range []struct {
		err  error
		ends bool
	}{
		{io.EOF, true},
		{ErrFeedStopped, true},
		{fmt.Errorf("agent: %w", io.EOF), true},
		{errors.New("ssh: connection lost"), false},
		{nil, false},
	} {
		if got := FeedEnded(c.err); got != c.ends {
			t.Errorf("FeedEnded(%v) = %v, want %v", c.err, got, c.ends)
		}
	}
}
