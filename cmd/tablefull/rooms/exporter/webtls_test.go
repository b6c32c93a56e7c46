package exporter

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"golang.org/x/crypto/bcrypt"
)

// selfSigned writes a certificate and key for 127.0.0.1 into dir as
// name.crt and name.key, signed by itself (it is its own CA).
func selfSigned(t *testing.T, dir, name string) (crt, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	crt, key = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	os.WriteFile(crt, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return crt, key
}

// TestExporterTLSOnRealPrometheus: the exporter serves over TLS with a
// client certificate required and basic auth, from an exporter-toolkit
// web.config.yml; a real Prometheus with the certificate and the password
// scrapes it; a wrong password, or no client certificate, is refused.
func TestExporterTLSOnRealPrometheus(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{}) // touches no conntrack knob: beside the boot test, after every room's serial ones
	clitest.NeedKernel(t, "prometheus")
	dir := t.TempDir()
	srvCrt, srvKey := selfSigned(t, dir, "server")
	cliCrt, cliKey := selfSigned(t, dir, "client")
	hash, err := bcrypt.GenerateFromPassword([]byte("right"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.config.yml")
	os.WriteFile(webConfig, []byte(fmt.Sprintf(`tls_server_config:
  cert_file: %s
  key_file: %s
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: %s
basic_auth_users:
  ops: %s
`, srvCrt, srvKey, cliCrt, hash)), 0o600)
	exe, _ := os.Executable()
	addr := fmt.Sprintf("127.0.0.1:%d", clitest.FreePort(t))
	exp := exec.Command(exe, "exporter", "--web.listen-address", addr, "--web.config.file", webConfig, "--interval", "500ms")
	exp.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	clitest.StartDaemon(t, exp)

	pool := x509.NewCertPool()
	ca, _ := os.ReadFile(srvCrt)
	pool.AppendCertsFromPEM(ca)
	cert, err := tls.LoadX509KeyPair(cliCrt, cliKey)
	if err != nil {
		t.Fatal(err)
	}
	get := func(certs []tls.Certificate, password string) (int, error) {
		c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: certs}}}
		req, _ := http.NewRequest("GET", "https://"+addr+"/metrics", nil)
		req.SetBasicAuth("ops", password)
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if code, err := get([]tls.Certificate{cert}, "right"); err == nil && code == http.StatusOK {
			break
		} else if time.Now().After(end) {
			t.Fatalf("the TLS exporter never answered: %d %v", code, err)
		}
	}
	if code, err := get([]tls.Certificate{cert}, "wrong"); err != nil || code != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d %v, want 401", code, err)
	}
	if code, err := get(nil, "right"); err == nil {
		t.Errorf("no client certificate: answered %d, want the handshake refused", code)
	}

	promDir := t.TempDir()
	cfg := filepath.Join(promDir, "prometheus.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`global: {scrape_interval: 1s}
scrape_configs:
  - job_name: tablefull
    scheme: https
    tls_config: {ca_file: %q, cert_file: %q, key_file: %q}
    basic_auth: {username: ops, password: right}
    static_configs: [{targets: [%q]}]
`, srvCrt, cliCrt, cliKey, addr)), 0o644)
	prom, _ := clitest.RunPrometheus(t, promDir, cfg)
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(time.Second) {
		v, _, _, err := prom.Query(context.Background(), `up{job="tablefull"} == 1 and on (instance) tablefull_conntrack_entries_limit`, time.Now())
		if err == nil && v.String() != "" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("Prometheus did not scrape the TLS exporter: %v %v", v, err)
		}
	}
}
