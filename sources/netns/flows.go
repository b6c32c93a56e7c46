package netns

import (
	"fmt"
	"os"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/conntrack"
)

// Insert adds conntrack entries to the namespace's table through
// ctnetlink: no packets, just entries, in a known mix.
func (n *NS) Insert(flows []conntrack.Flow) error {
	f, err := os.Open(n.Path())
	if err != nil {
		return fmt.Errorf("open %s: %w", n.Path(), err)
	}
	defer f.Close()
	c, err := conntrack.Dial(&netlink.Config{NetNS: int(f.Fd())})
	if err != nil {
		return fmt.Errorf("dial ctnetlink in %s: %w", n.Name, err)
	}
	defer c.Close()
	for i, fl := range flows {
		if err := c.Create(fl); err != nil {
			return fmt.Errorf("insert flow %d in %s: %w", i, n.Name, err)
		}
	}
	return nil
}
