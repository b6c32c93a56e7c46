// Package install is a room of tablefull's end-to-end tests: the Debian package and the OCI image. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package install
