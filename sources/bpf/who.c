// SPDX-License-Identifier: GPL-2.0
// who: which process and cgroup opens the connections that fill the
// conntrack table, how long they live, and whose packets the table
// drops. Built by bpf2go (sources/who.go); CO-RE: the kernel types below
// are the few fields used, relocated against the running kernel's BTF.

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

// The map and program types and flags of linux/bpf.h that are used.
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
};
#define BPF_ANY 0
#define BPF_NOEXIST 1

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

struct ns_common { unsigned int inum; } __attribute__((preserve_access_index));
struct net { struct ns_common ns; } __attribute__((preserve_access_index));
typedef struct { struct net *net; } possible_net_t;
struct in6_addr { union { u8 u6_addr8[16]; } in6_u; } __attribute__((preserve_access_index));
struct sock_common {
	possible_net_t skc_net;
	__be32 skc_daddr;
	__be16 skc_dport;
	unsigned short skc_family;
	struct in6_addr skc_v6_daddr;
} __attribute__((preserve_access_index));
struct kernfs_node { u64 id; } __attribute__((preserve_access_index));
struct cgroup { struct kernfs_node *kn; } __attribute__((preserve_access_index));
struct sock_cgroup_data { struct cgroup *cgroup; } __attribute__((preserve_access_index));
struct sock {
	struct sock_common __sk_common;
	struct sock_cgroup_data sk_cgrp_data;
	u16 sk_protocol;
} __attribute__((preserve_access_index));
struct net_device { possible_net_t nd_net; } __attribute__((preserve_access_index));
struct sk_buff {
	struct net_device *dev;
	struct sock *sk;
	unsigned long _nfct;
	__be16 protocol;
	unsigned char *head;
	u16 network_header;
} __attribute__((preserve_access_index));

enum skb_drop_reason { SKB_DROP_REASON_NETFILTER_DROP = 12 };


#define AF_INET 2
#define AF_INET6 10
#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT 2
#define TCP_CLOSE 7
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define LIFE_BUCKETS 16

// Set by the loader: the network namespace watched (its inode).
volatile const u32 netns_inum = 0;

// A connection's owner, protocol and destination.
struct conn_key {
	u64 cgroup;
	u32 tgid;
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
	if (netns_inum && BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) != netns_inum)
		return 0;
	u64 id = (u64)sk;
	if (oldstate == TCP_CLOSE && newstate == TCP_SYN_SENT) { // connect(): the process's own context
		struct open_val o = {.start_ns = bpf_ktime_get_ns()};
		o.key.cgroup = bpf_get_current_cgroup_id();
		o.key.tgid = bpf_get_current_pid_tgid() >> 32;
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

SEC("tp_btf/kfree_skb")
int BPF_PROG(skb_drop, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	if (reason != bpf_core_enum_value(enum skb_drop_reason, SKB_DROP_REASON_NETFILTER_DROP))
		return 0;
	// A packet conntrack refused has no entry attached: a firewall's own
	// DROP, after conntrack, drops packets that have one.
	if (BPF_CORE_READ(skb, _nfct) != 0)
		return 0;
	struct sock *sk = BPF_CORE_READ(skb, sk);
	u32 inum = sk ? BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) : BPF_CORE_READ(skb, dev, nd_net.net, ns.inum);
	if (netns_inum && inum != netns_inum)
		return 0;
	struct drop_key k = {};
	if (sk)
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
