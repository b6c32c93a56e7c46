package main

import (
	"io"
	"path/filepath"
	"time"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// snapshot prints one sample of the host and exits.
func snapshot(o options, asJSON bool, w io.Writer) error {
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return err
	}
	defer c.Close()
	c.DrainKernelLog = true
	return remote.WriteSnapshot(w, remote.Snapshot{Schema: remote.SnapshotSchema, Host: c.Host(), Sample: c.Sample(time.Now(), 0)}, asJSON)
}

// census prints what fills the table of this network namespace; with
// the established timeout read, the idle open connections too.
func census(o options, asJSON bool, w io.Writer) error {
	start := time.Now()
	hold, _ := kernelfs.ReadSysctlUint(filepath.Join(o.roots.Proc, "sys/net/netfilter/nf_conntrack_tcp_timeout_established"))
	c, err := sources.CensusDump{Timeout: 60 * time.Second, OpenHold: hold, Proc: o.roots.Proc}.Run(10)
	if err != nil {
		return err
	}
	return remote.WriteCensus(w, c, time.Since(start), asJSON)
}
