package counters

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// TCP reads the TCP signals of the caller's network namespace:
// /proc/self/net/{netstat,snmp,sockstat} and ip_local_port_range.
type TCP struct {
	sockstat  sockstatFile
	netstat   *pairFile
	snmp      *pairFile
	portRange *kernelfs.OpenFile
	vals      [4]uint64
	inUse     uint64
}

// NewTCP reads under procRoot (normally /proc).
func NewTCP(procRoot string) (*TCP, error) {
	net := filepath.Join(procRoot, "self", "net")
	return &TCP{sockstat: sockstatFile{kernelfs.NewOpenFile(filepath.Join(procRoot, "net", "sockstat"), 1024)}, portRange: kernelfs.NewOpenFile(kernelfs.SysctlPath(procRoot, "net.ipv4.ip_local_port_range"), 64),
		netstat: newPairFile(filepath.Join(net, "netstat"), "TcpExt: ", "TCPSynRetrans", "ListenOverflows", "ListenDrops"),
		snmp:    newPairFile(filepath.Join(net, "snmp"), "Tcp: ", "ActiveOpens", "PassiveOpens", "OutRsts", "CurrEstab")}, nil
}

// Read returns the TCP counters. Fields the kernel lacks stay zero.
func (t *TCP) Read() (model.TCP, error) {
	var out model.TCP
	var errs []error
	v := t.vals[:]
	if err := t.netstat.read(v[:3]); err != nil {
		errs = append(errs, fmt.Errorf("read netstat: %w", err))
	} else {
		out.SynRetrans, out.ListenOverflows, out.ListenDrops = v[0], v[1], v[2]
	}
	if err := t.snmp.read(v[:4]); err != nil {
		errs = append(errs, fmt.Errorf("read snmp: %w", err))
	} else {
		out.ActiveOpens, out.PassiveOpens, out.OutRsts, out.Established = v[0], v[1], v[2], v[3]
	}
	if tw, inUse, err := t.sockstat.timeWait(); err != nil {
		errs = append(errs, fmt.Errorf("read sockstat: %w", err))
	} else {
		out.TimeWait, t.inUse = tw, inUse
	}
	if b, err := t.portRange.Read(); err == nil {
		if r, err := kernelfs.ParseFields(b); err == nil && len(r) == 2 {
			out.PortRange = [2]uint64{r[0], r[1]}
		}
	}
	return out, errors.Join(errs...)
}

// InUse is the TCP sockets in use at the last Read but TIME_WAIT ones
// (sockstat's inuse: listeners, connects in SYN_SENT and open
// connections): what gates the read of the ports by destination.
func (t *TCP) InUse() uint64 { return t.inUse }

// Close releases the files kept open between reads.
func (t *TCP) Close() {
	t.portRange.Close()
	t.sockstat.f.Close()
	t.netstat.close()
	t.snmp.close()
}
