// Command tablefull is a terminal console for Linux network-table
// incidents: conntrack pressure, per-CPU drops, CPU and disk, TCP signals,
// the kernel log and a verdict, live, remote, recorded or replayed.
package main

import (
	"os"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/cli"

	// First of the program to initialize: see its doc.
	_ "github.com/tablefull/tablefull/cmd/tablefull/internal/growstack"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
