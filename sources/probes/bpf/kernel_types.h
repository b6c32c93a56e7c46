// SPDX-License-Identifier: GPL-2.0
// The types probes.c uses: the integer types, the map types, and the few
// fields of kernel structures it reads, relocated by CO-RE against the
// running kernel's BTF (so no vmlinux.h); the cgroup hooks' context is
// UAPI, a fixed layout.
#ifndef WHO_TYPES_H
#define WHO_TYPES_H

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
	volatile unsigned char skc_state;
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
struct nsproxy { struct net *net_ns; } __attribute__((preserve_access_index));
struct task_struct { struct nsproxy *nsproxy; } __attribute__((preserve_access_index));
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

// The context of the cgroup socket-address hooks (linux/bpf.h, UAPI: a
// fixed layout the verifier rewrites, not a kernel type).
struct bpf_sock_addr {
	__u32 user_family;
	__u32 user_ip4;
	__u32 user_ip6[4];
	__u32 user_port;
	__u32 family;
	__u32 type;
	__u32 protocol;
};
#define IPPROTO_UDP 17

#endif
