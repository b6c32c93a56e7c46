package incident

import (
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
)

// MaxFullNamespaces bounds the full namespaces an incident tells by name.
const MaxFullNamespaces = 8

// NSFull is another namespace of the host that a recording found full:
// what it was, when it was full, how many packets it dropped meanwhile,
// and its peak count.
type NSFull struct {
	Label       string
	First, Last time.Time
	Drops       uint64
	PeakCount   uint64
	inode       uint64
}

// addFullNS folds the frame's full namespaces into the incident: the
// first MaxFullNamespaces by name, the rest counted.
func (in *Incident) addFullNS(f diagnose.Frame) {
	for _, x := range f.FullNS {
		i := 0
		for i < len(in.FullNamespaces) && in.FullNamespaces[i].inode != x.NS.Inode {
			i++
		}
		if i == len(in.FullNamespaces) {
			if i == MaxFullNamespaces {
				in.FullNamespacesOther++
				continue
			}
			in.FullNamespaces = append(in.FullNamespaces, NSFull{Label: x.NS.Label(), First: f.Sample.Time, inode: x.NS.Inode})
		}
		n := &in.FullNamespaces[i]
		n.Last, n.Drops, n.PeakCount = f.Sample.Time, n.Drops+x.Drops, max(n.PeakCount, x.NS.Count)
	}
}
