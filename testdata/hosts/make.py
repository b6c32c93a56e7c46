#!/usr/bin/env python3
"""Writes the fixture host trees used by the sources tests.

Each scenario is a /proc, /sys and /dev tree of a host in a known state.
The file formats are copied from a Linux 6.18 host; the numbers describe
the scenario. Run from this directory: python3 make.py
"""
import os, shutil

MODERN = "entries  clashres found new invalid ignore delete chainlength insert insert_failed drop early_drop icmp_error  expect_new expect_create expect_delete search_restart"
OLD = "entries  searched found new invalid ignore delete delete_list insert insert_failed drop early_drop icmp_error  expect_new expect_create expect_delete search_restart"

SNMP_HDR = "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors"
NETSTAT_HDR = "TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed TW ListenOverflows ListenDrops TCPSynRetrans TCPTimeouts"


def write(root, rel, text, mode=0o644):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def stat_rows(header, entries, rows):
    """rows: list of dicts of column -> value, one per CPU."""
    cols = header.split()
    out = [header]
    for r in rows:
        vals = dict(r, entries=entries)
        out.append(" ".join("%08x" % vals.get(c, 0) for c in cols))
    return "\n".join(out) + "\n"


def host(name, cpus, count, cmax, buckets, tw_hold, header, stat, tcp, kmsg, module=True, stat_file=True):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    shutil.rmtree(root, ignore_errors=True)
    p = lambda rel, text, mode=0o644: write(root, "proc/" + rel, text, mode)
    p("sys/kernel/hostname", name + "\n")
    p("sys/kernel/osrelease", "6.18.44-fixture\n")
    p("sys/net/ipv4/ip_local_port_range", "32768\t60999\n")
    if module:
        p("sys/net/netfilter/nf_conntrack_count", "%d\n" % count)
        p("sys/net/netfilter/nf_conntrack_max", "%d\n" % cmax)
        p("sys/net/netfilter/nf_conntrack_buckets", "%d\n" % buckets)
        p("sys/net/netfilter/nf_conntrack_tcp_timeout_time_wait", "%d\n" % tw_hold)
        if name != "old-columns":  # an older tree without the other holds
            for key, hold in (("tcp_timeout_syn_sent", 120), ("tcp_timeout_established", 432000),
                              ("udp_timeout", 30), ("udp_timeout_stream", 120), ("icmp_timeout", 30),
                              ("generic_timeout", 600)):
                p("sys/net/netfilter/nf_conntrack_" + key, "%d\n" % hold)
        if stat_file:
            p("net/stat/nf_conntrack", stat_rows(header, count, stat))
    lines = ["cpu  %d 0 %d %d 12 0 9 0 0 0" % (400 * cpus, 100 * cpus, 9000 * cpus)]
    for i in range(cpus):
        lines.append("cpu%d %d 0 %d %d 3 0 2 0 0 0" % (i, 400 + i, 100 + i, 9000 + i))
    lines += ["intr 1000 0 0", "ctxt 389938", "btime 1785000000", "processes 1200",
              "procs_running 1", "procs_blocked 0", "softirq 100 0 10 0 50 0 0 40 0 0 0"]
    p("stat", "\n".join(lines) + "\n")
    p("meminfo", "MemTotal:         %d kB\nMemFree:          200000 kB\nMemAvailable:     300000 kB\n" % (512 * 1024 if cpus == 1 else 4 * 1024 * 1024))
    p("diskstats", "   7       0 loop0 5 0 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                   " 254       0 vda 20616 5235 1383778 9391 2633 13691 853176 3807 0 4232 14516 4381 58 155352 1261 176 56\n"
                   " 254       1 vda1 20000 5000 1300000 9000 2600 13000 850000 3800 0 4200 14000 4300 50 150000 1200 170 50\n"
                   " 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
    p("1234/net/snmp", "%s\nTcp: 1 200 120000 -1 %d %d 0 0 %d 3420 3370 0 0 %d 0\n" % (
        SNMP_HDR, tcp["active"], tcp["passive"], tcp["estab"], tcp["rsts"]))
    p("1234/net/netstat", "%s\nTcpExt: 0 0 0 %d %d %d %d 3\n" % (
        NETSTAT_HDR, tcp["tw_total"], tcp["overflows"], tcp["listen_drops"], tcp["syn_retrans"]))
    os.symlink("1234", os.path.join(root, "proc/self"))
    p("net/sockstat", "sockets: used 7\nTCP: inuse 3 orphan 0 tw %d alloc 3 mem 263\nUDP: inuse 0 mem 0\n" % tcp["tw_now"])
    write(root, "sys/block/vda/dev", "254:0\n")
    write(root, "sys/block/vda/stat", "   20616     5235  1383778     9391     2633    13691   853176     3807        0     4232    14516     4381       58   155352     1261      176       56\n")
    write(root, "sys/block/loop0/stat", "       5        0       10        0        0        0        0        0        0        0        0        0        0        0        0        0        0\n")
    if kmsg is not None:
        write(root, "dev/kmsg", kmsg)


QUIET = dict(active=22, passive=2, estab=1, rsts=2, tw_total=20, overflows=0, listen_drops=0, syn_retrans=0, tw_now=0)
BUSY = dict(active=7409, passive=7409, estab=8, rsts=4, tw_total=6245, overflows=0, listen_drops=0, syn_retrans=365, tw_now=3900)
KMSG = ("6,1001,2000000,-;virtio_net virtio0 eth0: link up\n"
        "4,1002,5000000,-;nf_conntrack: nf_conntrack: table full, dropping packet\n"
        " SUBSYSTEM=net\n"
        "4,1003,6000000,-;net_ratelimit: 212 callbacks suppressed\n"
        "4,1004,7000000,-;nf_conntrack: nf_conntrack: table full in netns 4026532177, dropping packet\n")

host("healthy", 2, 525, 262144, 262144, 120, MODERN,
     [dict(search_restart=10, clashres=1), dict(search_restart=4)], QUIET, "6,1,100,-;Linux version 6.18\n")
host("table-pinned", 4, 4096, 4096, 4096, 120, MODERN,
     [dict(drop=5937, early_drop=77, icmp_error=2, search_restart=284734, invalid=6),
      dict(drop=12), dict(), dict(chainlength=3)], BUSY, KMSG)
host("stats-missing", 2, 900, 4096, 4096, 120, MODERN, [], QUIET, None, stat_file=False)
host("module-absent", 2, 0, 0, 0, 0, MODERN, [], QUIET, None, module=False)
host("one-cpu", 1, 4096, 4096, 4096, 30, MODERN, [dict(drop=5937, early_drop=77, search_restart=9)], BUSY, None)
host("old-columns", 2, 3000, 65536, 16384, 120, OLD,
     [dict(drop=3, searched=999, delete_list=5, insert_failed=1), dict(invalid=2)], QUIET, None)
