package probes

// The eBPF programs of programs.go, compiled once with Debian's clang for
// both byte orders and committed (probes_bpfel.*, probes_bpfeb.*) so that
// go build needs no clang; make lint regenerates them and fails when the
// committed ones differ.
//go:generate go tool bpf2go -cc clang -cflags "-O2 -g -Wall -Werror" -target bpfel,bpfeb -no-strip=false probes bpf/probes.c
