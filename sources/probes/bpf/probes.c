// SPDX-License-Identifier: GPL-2.0
// The probes: which process and cgroup opens the connections that fill the
// conntrack table, how long they live, and whose packets the table
// drops. Built by bpf2go (sources/probes/generate.go); CO-RE: the kernel types
// of kernel_types.h are the few fields used, relocated against the running
// kernel's BTF.

#include "kernel_types.h"

// Set by the loader: the network namespace whose table is watched (its
// inode). Its drops are the table's; connections are counted in every
// namespace (a pod's go through its node's table), each keyed by its own.
volatile const u32 netns_inum = 0;

// A connection's owner, network namespace, protocol and destination.
struct conn_key {
	u64 cgroup;
	u32 tgid;
	u32 netns;
	u16 dport;
	u8 family;
	u8 proto;
	u8 daddr[16];
};

// What one owner did to one destination since the last read: new
// connections, those closed after they were established and their
// lifetimes from then (log2 ms buckets: <1 ms, <2, <4, ...), those that
// closed unanswered, and the process's name at the first.
struct conn_val {
	u64 opened;
	u64 closed;
	u64 failed;
	u64 life_ns;
	u32 life[LIFE_BUCKETS];
	char comm[16];
};

// A connection still open: when it was made and established (0: not
// yet), and whose.
struct open_val {
	u64 start_ns;
	u64 est_ns;
	struct conn_key key;
	char comm[16];
};

// A packet the table dropped, by owner (cgroup 0: no local socket) and
// tuple.
struct drop_key {
	u64 cgroup;
	u8 saddr[16];
	u8 daddr[16];
	u16 dport;
	u8 proto;
	u8 family;
	u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct conn_key);
	__type(value, struct conn_val);
} conns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, struct open_val);
} open_socks SEC(".maps");

// A UDP socket's destinations already counted: a datagram to a new
// destination starts a flow (a conntrack entry), the next ones do not.
struct udp_seen_key {
	u64 sock;
	u8 daddr[16];
	u16 dport;
	u16 family;
	u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct udp_seen_key);
	__type(value, u8);
} udp_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct drop_key);
	__type(value, u64);
} drops SEC(".maps");

// lost[0]: connections not counted (conns full); lost[1]: drops not
// counted (drops full).
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, u64);
} lost SEC(".maps");

// refused[0] is, per CPU, the packet nf_conntrack_in last refused
// (NF_DROP), which netfilter frees next on the same CPU.
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} refused SEC(".maps");

// elsewhere[0] counts, per CPU, the packets without an entry that
// netfilter dropped though conntrack had not refused them: a rule's drop
// of a packet conntrack found invalid, or one dropped before conntrack.
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} elsewhere SEC(".maps");

// Set by the loader once ct_refused is attached: drops are then told
// apart by where they were decided (conntrack, or a rule); until then
// every netfilter drop of a packet without an entry is the table's.
volatile u32 split_drops = 0;

static __always_inline void count_lost(u32 i)
{
	u64 *n = bpf_map_lookup_elem(&lost, &i);
	if (n)
		*n += 1;
}

static __always_inline u64 sock_cgroup(struct sock *sk)
{
	return BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id);
}

// full_sock is the kernel's sk_fullsock: a request or TIME_WAIT socket
// is only a struct sock_common, and what lies past it (sk_cgrp_data) is
// another object's memory.
static __always_inline int full_sock(struct sock *sk)
{
	u8 state = BPF_CORE_READ(sk, __sk_common.skc_state);
	return state != 6 /* TCP_TIME_WAIT */ && state != 12 /* TCP_NEW_SYN_RECV */;
}

static __always_inline u32 life_bucket(u64 ns)
{
	u64 ms = ns / 1000000;
	u32 b = 0;
#pragma unroll
	for (int i = 0; i < LIFE_BUCKETS - 1; i++) {
		if (ms >= (1ULL << i))
			b = i + 1;
	}
	return b;
}

static __always_inline struct conn_val *conn_entry(struct conn_key *k, const char *comm)
{
	struct conn_val *v = bpf_map_lookup_elem(&conns, k);
	if (v)
		return v;
	struct conn_val zero = {};
	__builtin_memcpy(zero.comm, comm, sizeof(zero.comm));
	if (bpf_map_update_elem(&conns, k, &zero, BPF_NOEXIST) && bpf_map_lookup_elem(&conns, k) == 0) {
		count_lost(0);
		return 0;
	}
	return bpf_map_lookup_elem(&conns, k);
}

// tp_btf: a BTF-typed raw tracepoint, attached without tracefs (ip netns
// exec mounts a sysfs of its own, without it).
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tcp_state, struct sock *sk, int oldstate, int newstate)
{
	if (BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol) != 6)
		return 0;
	u64 id = (u64)sk;
	if (oldstate == TCP_CLOSE && newstate == TCP_SYN_SENT) { // connect(): the process's own context
		struct open_val o = {.start_ns = bpf_ktime_get_ns()};
		o.key.cgroup = bpf_get_current_cgroup_id();
		o.key.tgid = bpf_get_current_pid_tgid() >> 32;
		o.key.netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
		o.key.dport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		o.key.family = BPF_CORE_READ(sk, __sk_common.skc_family);
		o.key.proto = 6;
		if (o.key.family == AF_INET) {
			__be32 d = BPF_CORE_READ(sk, __sk_common.skc_daddr);
			__builtin_memcpy(o.key.daddr, &d, 4);
		} else {
			BPF_CORE_READ_INTO(&o.key.daddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
		}
		bpf_get_current_comm(o.comm, sizeof(o.comm));
		struct conn_val *v = conn_entry(&o.key, o.comm);
		if (v)
			__sync_fetch_and_add(&v->opened, 1);
		bpf_map_update_elem(&open_socks, &id, &o, BPF_ANY);
		return 0;
	}
	if (newstate != TCP_CLOSE && newstate != TCP_ESTABLISHED)
		return 0;
	struct open_val *o = bpf_map_lookup_elem(&open_socks, &id);
	if (!o)
		return 0; // not one we saw open (accepted, or opened before we loaded)
	if (newstate == TCP_ESTABLISHED) {
		if (oldstate == TCP_SYN_SENT)
			o->est_ns = bpf_ktime_get_ns();
		return 0;
	}
	u64 est = o->est_ns, life = est ? bpf_ktime_get_ns() - est : 0;
	struct conn_key k = o->key;
	char comm[16];
	__builtin_memcpy(comm, o->comm, sizeof(comm));
	bpf_map_delete_elem(&open_socks, &id);
	struct conn_val *v = conn_entry(&k, comm);
	if (!v)
		return 0;
	if (!est) { // never answered, or refused
		__sync_fetch_and_add(&v->failed, 1);
		return 0;
	}
	__sync_fetch_and_add(&v->closed, 1);
	__sync_fetch_and_add(&v->life_ns, life);
	u32 b = life_bucket(life);
	if (b < LIFE_BUCKETS)
		__sync_fetch_and_add(&v->life[b], 1);
	return 0;
}

// udp_flow counts a UDP socket's connect(2) or its sendmsg(2) to a new
// destination as a new flow of the calling process (its own context).
static __always_inline void udp_flow(struct bpf_sock_addr *ctx, int v6)
{
	if (ctx->protocol != IPPROTO_UDP)
		return;
	struct udp_seen_key s = {.sock = bpf_get_socket_cookie(ctx), .family = v6 ? AF_INET6 : AF_INET};
	s.dport = bpf_ntohs((u16)ctx->user_port);
	if (v6) {
		u32 a[4] = {ctx->user_ip6[0], ctx->user_ip6[1], ctx->user_ip6[2], ctx->user_ip6[3]};
		__builtin_memcpy(s.daddr, a, 16);
	} else {
		u32 a = ctx->user_ip4;
		__builtin_memcpy(s.daddr, &a, 4);
	}
	u8 one = 1;
	if (bpf_map_update_elem(&udp_seen, &s, &one, BPF_NOEXIST))
		return; // this socket's flow to it is counted already
	struct task_struct *task = bpf_get_current_task_btf(); // the sender's namespace: the hook sees no struct net
	struct conn_key k = {.cgroup = bpf_get_current_cgroup_id(), .tgid = bpf_get_current_pid_tgid() >> 32,
			     .netns = BPF_CORE_READ(task, nsproxy, net_ns, ns.inum),
			     .dport = s.dport, .family = s.family, .proto = IPPROTO_UDP};
	__builtin_memcpy(k.daddr, s.daddr, 16);
	char comm[16];
	bpf_get_current_comm(comm, sizeof(comm));
	struct conn_val *v = conn_entry(&k, comm);
	if (v)
		__sync_fetch_and_add(&v->opened, 1);
}

// The hooks allow every call (return 1): they only count.
SEC("cgroup/connect4")
int udp_connect4(struct bpf_sock_addr *ctx) { udp_flow(ctx, 0); return 1; }
SEC("cgroup/sendmsg4")
int udp_sendmsg4(struct bpf_sock_addr *ctx) { udp_flow(ctx, 0); return 1; }
SEC("cgroup/connect6")
int udp_connect6(struct bpf_sock_addr *ctx) { udp_flow(ctx, 1); return 1; }
SEC("cgroup/sendmsg6")
int udp_sendmsg6(struct bpf_sock_addr *ctx) { udp_flow(ctx, 1); return 1; }

// nf_conntrack_in's verdict: a packet it refuses (NF_DROP: the table
// full, or a tracker's drop) is marked for skb_drop, which netfilter
// calls next to free it.
SEC("fexit/nf_conntrack_in")
int BPF_PROG(ct_refused, struct sk_buff *skb, void *state, unsigned int ret)
{
	if ((ret & 0xff) != 0 /* NF_DROP */)
		return 0;
	u32 zero = 0;
	u64 *mark = bpf_map_lookup_elem(&refused, &zero);
	if (mark)
		*mark = (u64)skb;
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(skb_drop, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	if (reason != bpf_core_enum_value(enum skb_drop_reason, SKB_DROP_REASON_NETFILTER_DROP))
		return 0;
	// A packet conntrack refused has no entry attached: a firewall's own
	// DROP, after conntrack, drops packets that have one.
	if (BPF_CORE_READ(skb, _nfct) != 0)
		return 0;
	u32 zero = 0;
	u64 *mark = bpf_map_lookup_elem(&refused, &zero);
	int by_conntrack = mark && *mark == (u64)skb;
	if (by_conntrack)
		*mark = 0;
	if (split_drops && !by_conntrack) { // a rule's drop: counted apart, never the table's
		u64 *n = bpf_map_lookup_elem(&elsewhere, &zero);
		if (n)
			*n += 1;
		return 0;
	}
	struct sock *sk = BPF_CORE_READ(skb, sk);
	u32 inum = sk ? BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) : BPF_CORE_READ(skb, dev, nd_net.net, ns.inum);
	if (netns_inum && inum != netns_inum)
		return 0;
	struct drop_key k = {};
	if (sk && full_sock(sk))
		k.cgroup = sock_cgroup(sk);
	unsigned char *head = BPF_CORE_READ(skb, head);
	u16 nh = BPF_CORE_READ(skb, network_header);
	u16 proto = bpf_ntohs(BPF_CORE_READ(skb, protocol));
	u8 ports[4];
	if (proto == ETH_P_IP) {
		u8 ip[20];
		if (bpf_probe_read_kernel(ip, sizeof(ip), head + nh))
			return 0;
		k.family = AF_INET;
		k.proto = ip[9];
		__builtin_memcpy(k.saddr, ip + 12, 4);
		__builtin_memcpy(k.daddr, ip + 16, 4);
		if (bpf_probe_read_kernel(ports, sizeof(ports), head + nh + (ip[0] & 0xf) * 4) == 0)
			k.dport = (ports[2] << 8) | ports[3];
	} else if (proto == ETH_P_IPV6) {
		u8 ip[40];
		if (bpf_probe_read_kernel(ip, sizeof(ip), head + nh))
			return 0;
		k.family = AF_INET6;
		k.proto = ip[6];
		__builtin_memcpy(k.saddr, ip + 8, 16);
		__builtin_memcpy(k.daddr, ip + 24, 16);
		if (bpf_probe_read_kernel(ports, sizeof(ports), head + nh + 40) == 0)
			k.dport = (ports[2] << 8) | ports[3];
	} else {
		return 0;
	}
	u64 one = 1, *n = bpf_map_lookup_elem(&drops, &k);
	if (n) {
		__sync_fetch_and_add(n, 1);
	} else if (bpf_map_update_elem(&drops, &k, &one, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&drops, &k);
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			count_lost(1);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
