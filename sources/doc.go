// Package sources composes the kernel's readers into model values: the
// Collector takes one whole sample of a table from every reader, Live
// paces it by the fast-sampling rule, the census joins the table's
// entries to the sockets that hold them, and the attribution runs beside
// the sample within its budget. The readers live in packages by concern:
//
//   - kernelfs: roots, bounded reads, kept-open files, private state files
//   - counters: the table's count and cap, conntrack's per-CPU counters,
//     CPU, disks, TCP, the kernel log
//   - nldump and ctnetlink: netlink dumps; the table's events, dumps and
//     the one flow parser
//   - owners: sockets and cgroups, who holds an entry or a listener
//   - probes: the eBPF programs that count connects and drops as they happen
//   - namespaces: every network namespace of the host
//   - pods, ruleset, ipvs, cilium: Kubernetes' words — pods' names, the
//     Services kube-proxy wrote, IPVS's table, Cilium's maps
//   - tune: the knobs, and writing, persisting and undoing them
//
// Every reader takes its filesystem roots from its constructor, so tests
// run on fixture trees under testdata/. Data that is missing on this
// kernel or needs privileges is reported in the sample (a status or a
// note), never as an error that hides the rest. Nothing here writes to
// the host but package tune.
package sources
