// Package owners names who holds the table's entries and the listeners:
// the sockets (sock_diag), the processes whose file descriptors hold them
// (within a budget of lookups), their cgroups named as units, containers
// and pods, and the addresses of the host's other namespaces. It reads
// /proc, the cgroup v2 tree and sock_diag; it never signals, enters or
// changes a process.
package owners
