package sources

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/owners"
)

// CensusDump counts the conntrack table as ctnetlink.Dump walks it, and
// joins its entries to the sockets that own them. It needs
// CAP_NET_ADMIN and reads the caller's network namespace.
type CensusDump struct {
	// Timeout bounds the whole dump.
	Timeout time.Duration
	// OpenHold is the namespace's established timeout in seconds (0:
	// unknown): with it, entries idle over an hour are counted.
	OpenHold uint64
	// Holds are the classes' holds now in seconds (0: unknown): with them,
	// entries whose timeouts were given under longer ones are counted.
	Holds model.ClassCounts
	// Proc, when set, is the process root the entries' owners are found
	// under (/proc): the census then joins them to the namespace's
	// sockets (Census.Owners).
	Proc string
}

// Run dumps and counts; top is the length of each top list.
func (d CensusDump) Run(top int) (model.Census, error) {
	start := time.Now()
	c := model.CensusCounter{IdleBelow: model.IdleBelow(d.OpenHold), Holds: d.Holds}
	var ix *owners.SocketIndex
	var found *model.Owners
	if d.Proc != "" {
		var err error
		if ix, err = owners.DumpSockets(owners.SocketDump{Timeout: d.Timeout}); err != nil {
			found = &model.Owners{Error: err.Error()}
		} else {
			ix.AwayProc = d.Proc
		}
	}
	err := ctnetlink.Dump(d.Timeout, func(f model.Flow, interrupted bool) {
		if interrupted {
			c.MarkApproximate()
		}
		c.Add(f)
		if ix != nil {
			ix.Add(f)
		}
	})
	if err != nil {
		return model.Census{}, err
	}
	out := c.Census(top)
	if ix != nil {
		o := ix.Owners(owners.NewRoots(d.Proc), model.OwnersShown)
		found = &o
	}
	out.Owners = found
	out.At, out.Took = time.Now(), time.Since(start)
	return out, nil
}
