// Package probes loads the eBPF programs that count, as they happen,
// which process and cgroup opens new connections and UDP flows and whose
// packets the table drops; Switch loads them only near the cap and
// unloads them after. The programs are CO-RE, built by bpf2go for both
// byte orders and committed. They observe only: every hook allows.
package probes
