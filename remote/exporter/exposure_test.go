package exporter

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOwnerSeriesExposure: the owners' series (who talks to whom) are
// served by default only on loopback, or beyond it behind a web config
// that requires TLS and authentication; never for a plain-HTTP listener
// on a node's address, nor for TLS alone or basic auth in the clear.
func TestOwnerSeriesExposure(t *testing.T) {
	dir := t.TempDir()
	web := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o600)
		return p
	}
	tlsAuth := web("tls-auth.yml", "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\nbasic_auth_users:\n  prometheus: $2y$10$x\n")
	tlsClient := web("tls-client.yml", "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n")
	tlsOnly := web("tls.yml", "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n")
	authClear := web("auth.yml", "basic_auth_users:\n  prometheus: $2y$10$x\n")
	for _, c := range []struct {
		name  string
		cfg   Config
		serve bool
	}{
		{"the default, loopback", Config{}, true},
		{"loopback addresses", Config{Web: Web{Addresses: []string{"127.0.0.1:9874", "[::1]:9874", "localhost:9874"}}}, true},
		{"a node's address, plain HTTP", Config{Web: Web{Addresses: []string{":9874"}}}, false},
		{"TLS and basic auth", Config{Web: Web{Addresses: []string{":9874"}, ConfigFile: tlsAuth}}, true},
		{"TLS and client certificates", Config{Web: Web{Addresses: []string{":9874"}, ConfigFile: tlsClient}}, true},
		{"TLS alone", Config{Web: Web{Addresses: []string{":9874"}, ConfigFile: tlsOnly}}, false},
		{"basic auth in the clear", Config{Web: Web{Addresses: []string{":9874"}, ConfigFile: authClear}}, false},
		{"always", Config{Web: Web{Addresses: []string{":9874"}}, Owners: OwnersAlways}, true},
		{"never, on loopback", Config{Owners: OwnersNever}, false},
	} {
		if got, why := c.cfg.ownersServed(); got != c.serve || !got && why == "" {
			t.Errorf("%s: served %v (%q), want %v", c.name, got, why, c.serve)
		}
	}
}
