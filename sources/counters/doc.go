// Package counters reads the kernel's numbers from /proc and /sys: the
// conntrack table's count, cap, buckets and timeouts, its per-CPU
// counters (/proc/net/stat/nf_conntrack), the count's peak between
// samples, CPU, disks, TCP's counters and port range, the host's
// identity and the kernel log's "table full" lines. It reads files only:
// no netlink, no processes, and it never writes.
package counters
