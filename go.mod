module github.com/tablefull/tablefull

go 1.26.8

require (
	github.com/mdlayher/netlink v1.11.2
	github.com/prometheus/procfs v0.23.0
	github.com/ti-mo/netfilter v0.5.3
	golang.org/x/sys v0.49.0
)

require (
	github.com/aymanbagabas/go-udiff v0.2.0 // indirect
	github.com/charmbracelet/x/exp/golden v0.0.0-20241011142426-46044092ad91 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/mdlayher/socket v0.6.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/net v0.53.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
