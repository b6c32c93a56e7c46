package cli

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pflag "github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var updateManifests = flag.Bool("update-manifests", false, "rewrite deploy/kubernetes/rules-configmap.yaml and the PrometheusRules from the rules files")

const kubeDir = "../../../../deploy/kubernetes"

// rulesDir holds the rules files the manifests embed: the alerts and the
// fleet view's recording rules.
const rulesDir = "../../../../deploy/prometheus"

// rulesFiles are those files, each the ConfigMap's key of the same name
// and a PrometheusRule of its own (operatorRules).
var rulesFiles = []string{"tablefull.rules.yml", "tablefull-fleet.rules.yml"}

// documents splits a multi-document YAML file.
func documents(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, d := range bytes.Split(b, []byte("\n---\n")) {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// strictDaemonSet decodes a DaemonSet into the Kubernetes API type: an
// unknown or misspelt field is an error, as the API server's strict
// field validation makes it.
func strictDaemonSet(doc []byte) (appsv1.DaemonSet, error) {
	var ds appsv1.DaemonSet
	return ds, yaml.UnmarshalStrict(doc, &ds)
}

// TestKubernetesManifests: every manifest decodes strictly into its API
// type, and the DaemonSet is what the README promises: the node's network
// and PIDs, a read-only root, every capability dropped but three, limits,
// a liveness probe that opens no connection, flags the exporter takes.
func TestKubernetesManifests(t *testing.T) {
	docs := documents(t, filepath.Join(kubeDir, "daemonset.yaml"))
	if len(docs) != 2 {
		t.Fatalf("daemonset.yaml has %d documents, want the Namespace and the DaemonSet", len(docs))
	}
	var ns corev1.Namespace
	if err := yaml.UnmarshalStrict(docs[0], &ns); err != nil || ns.Kind != "Namespace" {
		t.Fatalf("namespace: %v (%s)", err, ns.Kind)
	}
	ds, err := strictDaemonSet(docs[1])
	if err != nil || ds.Kind != "DaemonSet" {
		t.Fatalf("daemonset: %v (%s)", err, ds.Kind)
	}
	pod := ds.Spec.Template.Spec
	if !pod.HostNetwork || !pod.HostPID {
		t.Error("the exporter must see the node's network namespace and every pod's PID")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("security context %+v: want a read-only root, no escalation, every capability dropped", sc)
	}
	exposure(t, pod, c)
	if sc != nil && sc.Capabilities != nil {
		needed := []corev1.Capability{"SYS_PTRACE", "SYSLOG", "NET_ADMIN", "BPF", "PERFMON"} // as the systemd unit grants them
		for _, cap := range sc.Capabilities.Add {
			if !slices.Contains(needed, cap) {
				t.Errorf("capability %s is not one a part of the exporter needs", cap)
			}
		}
		for _, cap := range needed {
			if !slices.Contains(sc.Capabilities.Add, cap) {
				t.Errorf("capability %s is not granted: a part of the exporter needs it", cap)
			}
		}
	}
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "privileged" {
		t.Errorf("namespace labels %v: hostNetwork, hostPID and hostPath need the privileged Pod Security level", ns.Labels)
	}
	if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
		t.Error("no memory limit or CPU request")
	}
	p := c.LivenessProbe
	if p == nil || p.Exec == nil || p.HTTPGet != nil || p.TCPSocket != nil || p.GRPC != nil {
		t.Fatalf("liveness %+v: want an exec probe (a TCP probe needs an entry in the full table)", p)
	}
	if len(c.Command) != 1 || p.Exec.Command[0] != c.Command[0] || p.Exec.Command[1] != "alive" {
		t.Errorf("the probe %v does not run `tablefull alive` of the container's binary %v", p.Exec.Command, c.Command)
	}
	// The flags are the exporter's and alive's, parsed as the command line does.
	for _, argv := range [][]string{c.Args, p.Exec.Command[1:]} {
		sub := subcommandNamed(t, argv[0])
		fs := subcommandFlags(sub)
		var o options
		o.register(fs)
		if err := fs.Parse(argv[1:]); err != nil {
			t.Errorf("%v: %v", argv, err)
		}
		if hb := fs.Lookup("heartbeat"); hb != nil && !slices.Contains(p.Exec.Command, hb.Value.String()) {
			t.Errorf("the probe reads %v, the exporter touches %s", p.Exec.Command, hb.Value.String())
		}
	}

	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(documents(t, filepath.Join(kubeDir, "rules-configmap.yaml"))[0], &cm); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range rulesFiles {
		rules, err := os.ReadFile(filepath.Join(rulesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = rules
		if cm.Data[name] == string(rules) {
			continue
		}
		if *updateManifests {
			writeEmbedded(t, "rules-configmap.yaml", "  "+name+": |\n", "    ", rules)
		} else {
			t.Errorf("rules-configmap.yaml does not embed deploy/prometheus/%s as it is (go test ./cmd/tablefull/internal/cli -run Kubernetes -update-manifests)", name)
		}
	}
	if len(cm.Data) != len(rulesFiles) {
		t.Errorf("rules-configmap.yaml holds %d files, want %v", len(cm.Data), rulesFiles)
	}
	if promtool, err := exec.LookPath("promtool"); err == nil {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "etc/prometheus/rules"), 0o755)
		cfg, _ := os.ReadFile(filepath.Join(kubeDir, "prometheus-scrape.yml"))
		cfg = bytes.ReplaceAll(cfg, []byte("/etc/prometheus/rules/"), []byte(dir+"/etc/prometheus/rules/"))
		// Debian's Prometheus is built without Kubernetes discovery: the
		// rest of the file is checked with a static target in its place.
		sd := []byte("    kubernetes_sd_configs:\n      - role: node\n")
		if !bytes.Contains(cfg, sd) {
			t.Fatal("prometheus-scrape.yml does not discover the nodes (kubernetes_sd_configs, role node)")
		}
		cfg = bytes.Replace(cfg, sd, []byte("    static_configs:\n      - targets: [\"node:9874\"]\n"), 1)
		for name, rules := range files {
			if !bytes.Contains(cfg, []byte("/etc/prometheus/rules/"+name)) {
				t.Errorf("prometheus-scrape.yml's rule_files do not name %s", name)
			}
			os.WriteFile(filepath.Join(dir, "etc/prometheus/rules", name), rules, 0o644)
		}
		os.WriteFile(filepath.Join(dir, "prometheus.yml"), cfg, 0o644)
		if out, err := exec.Command(promtool, "check", "config", filepath.Join(dir, "prometheus.yml")).CombinedOutput(); err != nil {
			t.Errorf("promtool check config prometheus-scrape.yml: %v\n%s", err, out)
		}
	}
}

// TestKubernetesManifestMisspelt: strict decoding refuses a misspelt
// field, which a lenient decoder (and kubectl before strict validation)
// would drop without a word — here, hostNetwork, without which the
// exporter would watch its own empty namespace.
func TestKubernetesManifestMisspelt(t *testing.T) {
	doc := documents(t, filepath.Join(kubeDir, "daemonset.yaml"))[1]
	bad := bytes.Replace(doc, []byte("hostNetwork:"), []byte("hostNetwrok:"), 1)
	if bytes.Equal(bad, doc) {
		t.Fatal("no hostNetwork field to misspell")
	}
	if _, err := strictDaemonSet(bad); err == nil || !strings.Contains(err.Error(), "hostNetwrok") {
		t.Errorf("a misspelt field decoded: %v", err)
	}
}

func subcommandNamed(t *testing.T, name string) subcommand {
	for _, c := range subcommands {
		if c.name == name {
			if c.flags == nil {
				c.flags = func(*pflag.FlagSet, *flagValues) {}
			}
			return c
		}
	}
	t.Fatalf("no subcommand %q", name)
	return subcommand{}
}

// writeEmbedded rewrites the manifest file around the rules: what
// follows the line marker is the rules file, each line indented, up to
// the next line that is not (the ConfigMap's next key), which stays.
func writeEmbedded(t *testing.T, file, marker, indent string, rules []byte) {
	t.Helper()
	path := filepath.Join(kubeDir, file)
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, embedded, ok := bytes.Cut(old, []byte(marker))
	if !ok {
		t.Fatalf("%s has no line %q", file, marker)
	}
	var b bytes.Buffer
	b.Write(head)
	b.WriteString(marker)
	for _, l := range strings.Split(strings.TrimSuffix(string(rules), "\n"), "\n") {
		if l != "" {
			b.WriteString(indent + l)
		}
		b.WriteString("\n")
	}
	rest := strings.SplitAfter(string(embedded), "\n")
	for i, l := range rest {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, indent) {
			b.WriteString(strings.Join(rest[i:], ""))
			break
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exposure checks what the DaemonSet shows and mounts: the node's /etc is
// never mounted whole (shadow, kubelet's and PKI keys), only the drop-in
// directories tuning persists to, read-only; and the owners' series are
// left to --owner-series' default (auto: not over plain HTTP on the
// node's addresses).
func exposure(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	allowed := []string{"/etc/sysctl.d", "/etc/modprobe.d", "/etc/tmpfiles.d", "/etc/udev/rules.d", "/dev/kmsg"}
	for _, v := range pod.Volumes {
		if hp := v.HostPath; hp != nil && !slices.Contains(allowed, hp.Path) {
			t.Errorf("volume %s mounts the node's %s: only %v", v.Name, hp.Path, allowed)
		}
	}
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(m.MountPath, "/host/") && !m.ReadOnly {
			t.Errorf("%s is mounted writable", m.MountPath)
		}
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--owner-series") && a != "--owner-series=auto" {
			t.Errorf("the DaemonSet sets %s: the owners' series would reach every pod on the node", a)
		}
	}
}
