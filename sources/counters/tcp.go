package counters

import (
	"errors"
	"fmt"

	"github.com/prometheus/procfs"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// TCP reads the TCP signals of the caller's network namespace:
// /proc/self/net/{netstat,snmp,sockstat} and ip_local_port_range.
type TCP struct {
	fs        procfs.FS
	self      procfs.Proc
	selfErr   error
	portRange *kernelfs.OpenFile
}

// NewTCP reads under procRoot (normally /proc).
func NewTCP(procRoot string) (*TCP, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("open procfs %s: %w", procRoot, err)
	}
	t := &TCP{fs: fs, portRange: kernelfs.NewOpenFile(kernelfs.SysctlPath(procRoot, "net.ipv4.ip_local_port_range"), 64)}
	t.self, t.selfErr = fs.Self() // once: our pid does not change
	return t, nil
}

// Read returns the TCP counters. Fields the kernel lacks stay zero.
func (t *TCP) Read() (model.TCP, error) {
	var out model.TCP
	if t.selfErr != nil {
		return out, fmt.Errorf("open /proc/self: %w", t.selfErr)
	}
	self := t.self
	var errs []error
	if ns, err := self.Netstat(); err != nil {
		errs = append(errs, fmt.Errorf("read netstat: %w", err))
	} else {
		out.SynRetrans = u(ns.TcpExt.TCPSynRetrans)
		out.ListenOverflows = u(ns.TcpExt.ListenOverflows)
		out.ListenDrops = u(ns.TcpExt.ListenDrops)
	}
	if sn, err := self.Snmp(); err != nil {
		errs = append(errs, fmt.Errorf("read snmp: %w", err))
	} else {
		out.ActiveOpens = u(sn.Tcp.ActiveOpens)
		out.PassiveOpens = u(sn.Tcp.PassiveOpens)
		out.OutRsts = u(sn.Tcp.OutRsts)
		out.Established = u(sn.Tcp.CurrEstab)
	}
	if ss, err := t.fs.NetSockstat(); err != nil {
		errs = append(errs, fmt.Errorf("read sockstat: %w", err))
	} else {
		for _, p := range ss.Protocols {
			if p.Protocol == "TCP" && p.TW != nil {
				out.TimeWait = uint64(max(0, *p.TW))
			}
		}
	}
	if b, err := t.portRange.Read(); err == nil {
		if r, err := kernelfs.ParseFields(b); err == nil && len(r) == 2 {
			out.PortRange = [2]uint64{r[0], r[1]}
		}
	}
	return out, errors.Join(errs...)
}

// Close releases the files kept open between reads.
func (t *TCP) Close() { t.portRange.Close() }

func u(p *float64) uint64 {
	if p == nil || *p < 0 {
		return 0
	}
	return uint64(*p)
}
