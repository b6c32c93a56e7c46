package sources

// The eBPF programs of who.go, compiled once with Debian's clang and
// committed (who_bpfel.go, who_bpfel.o) so that go build needs no clang;
// make lint regenerates them and fails when the committed ones differ.
//go:generate go tool bpf2go -cc clang -cflags "-O2 -g -Wall -Werror" -target bpfel -no-strip=false who bpf/who.c
