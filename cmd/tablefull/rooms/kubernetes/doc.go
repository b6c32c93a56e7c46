// Package kubernetes is a room of tablefull's end-to-end tests: kube-proxy's Services, containerd's pods, Cilium, IPVS and the cgroups that name a pod. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package kubernetes
