package recording

import (
	"context"
	"os"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/stream"
)

// Record writes feed's stream, "recorded", to f until ctx ends, then
// syncs f: tablefull record's life. A failed write ends it with its
// error; a feed that ends ends it too.
func Record(ctx context.Context, feed model.Feed, f *os.File) error {
	st, err := stream.Start(feed, f, "recorded")
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case err := <-st.Done:
		if err != nil {
			return err
		}
	}
	return f.Sync()
}
