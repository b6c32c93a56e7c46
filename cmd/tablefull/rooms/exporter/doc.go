// Package exporter is a room of tablefull's end-to-end tests: the exporter on a real Prometheus and Alertmanager, and the fleet view at scale. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package exporter
