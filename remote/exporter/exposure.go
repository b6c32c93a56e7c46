package exporter

import (
	"fmt"
	"io"
	"net"
	"os"

	"go.yaml.in/yaml/v2"
)

// OwnerSeries says when the owners' series are served: the process
// names, cgroups, pods and destinations that hold and open the table's
// entries, which tell anyone who can scrape who talks to whom on the
// host (a tenant pod that fills its node's table would read its
// neighbours'). "auto" serves them only to a scraper that cannot be just
// anyone: on loopback addresses alone, or behind a web config that
// requires TLS and authentication (basic auth or a client certificate).
const (
	OwnersAuto   = "auto"
	OwnersAlways = "always"
	OwnersNever  = "never"
)

// ownersServed reports whether c serves the owners' series, and why not
// when it does not.
func (c Config) ownersServed() (bool, string) {
	switch c.Owners {
	case OwnersAlways:
		return true, ""
	case OwnersNever:
		return false, "--owner-series=never"
	}
	if loopbackOnly(c.Addresses) {
		return true, ""
	}
	if c.ConfigFile != "" {
		if ok, err := authenticates(c.ConfigFile); err == nil && ok {
			return true, ""
		}
	}
	return false, "served beyond loopback without a web config that requires TLS and authentication (--owner-series=always serves them anyway)"
}

// loopbackOnly reports whether every address listened on is a loopback
// one (none: the default, loopback).
func loopbackOnly(addrs []string) bool {
	for _, a := range addrs {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			return false
		}
		if host == "localhost" {
			continue
		}
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// webAuth is what a web config says of who may scrape.
type webAuth struct {
	TLS struct {
		CertFile   string `yaml:"cert_file"`
		ClientAuth string `yaml:"client_auth_type"`
	} `yaml:"tls_server_config"`
	BasicAuthUsers map[string]string `yaml:"basic_auth_users"`
}

// authenticates reports whether the web config at path requires TLS and
// either basic auth or a verified client certificate.
func authenticates(path string) (bool, error) {
	b, err := readConfig(path)
	if err != nil {
		return false, fmt.Errorf("web config %s: %w", path, err)
	}
	var w webAuth
	if err := yaml.Unmarshal(b, &w); err != nil {
		return false, fmt.Errorf("web config %s: %w", path, err)
	}
	tls := w.TLS.CertFile != ""
	return tls && (len(w.BasicAuthUsers) > 0 || w.TLS.ClientAuth == "RequireAndVerifyClientCert"), nil
}

// maxWebConfig bounds the web config read: a few keys and paths.
const maxWebConfig = 1 << 20

// readConfig reads the web config: a regular file (a link is followed, as
// a Kubernetes Secret's mount is one), of at most maxWebConfig bytes,
// never waiting on a FIFO.
func readConfig(path string) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxWebConfig+1))
	if err == nil && len(b) > maxWebConfig {
		err = fmt.Errorf("larger than %d bytes", maxWebConfig)
	}
	return b, err
}
