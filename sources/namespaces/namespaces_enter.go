package namespaces

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/nsenter"
)

// enteredNetlinkTimeout bounds a namespace's ctnetlink stats request.
const enteredNetlinkTimeout = 2 * time.Second

// readEntered reads the table of the network namespace at nsPath (a bind
// mount, or /proc/PID/ns/net) from a thread switched into it: the
// fallback for a namespace no process is in (ip netns add leaves one: a
// router's, a CNI's) and where /proc/PID/net/stat is absent. Inside, the
// thread's own stat file is read as a process's would be; without one (a
// kernel without conntrack's procfs) the count is the namespace's
// nf_conntrack_count and the drops its ctnetlink stats, read when the
// count is at least dropsFrom. Entering needs CAP_SYS_ADMIN.
func (n *Namespaces) readEntered(nsPath string, dropsFrom uint64) (count uint64, drops dropCounts, whole bool, err error) {
	err = nsenter.Net(nsPath, func() error {
		f, err := os.Open(filepath.Join(n.proc, "thread-self", n.statFile))
		if err == nil {
			defer f.Close()
			count, drops, whole, err = n.readStatOpen(f, dropsFrom)
			return err
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if count, err = kernelfs.ReadSysctlUint(filepath.Join(n.proc, "sys", "net", "netfilter", "nf_conntrack_count")); err != nil {
			return fmt.Errorf("read the count: %w (%v)", kernelfs.ErrUnavailable, err) // not gone: unreadable
		}
		if count < dropsFrom {
			return nil
		}
		s, err := ctnetlink.CTStatNetlink{Timeout: enteredNetlinkTimeout}.Read()
		if err != nil {
			return err
		}
		drops, whole = dropsOf(s.Total(model.Drop), s.Total(model.InsertFailed), s.Total(model.ChainTooLong)), true
		return nil
	})
	return count, drops, whole, err
}

// File is the file to enter ns by, under the process root proc: its
// process's ns/net, or its bind mount when no process is in it.
func File(proc string, ns model.NetNS) string {
	if ns.PID <= 0 {
		return ns.Path
	}
	return filepath.Join(proc, strconv.Itoa(ns.PID), "ns", "net")
}
