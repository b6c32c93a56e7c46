package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestOperatorManifests: the PodMonitor and the PrometheusRule decode
// strictly into the Prometheus Operator's own types; the PodMonitor
// selects the DaemonSet's pods on a port they name; the PrometheusRule's
// groups are the rules file's (-update-manifests rewrites them).
func TestOperatorManifests(t *testing.T) {
	var pm monitoringv1.PodMonitor
	if err := yaml.UnmarshalStrict(documents(t, filepath.Join(kubeDir, "podmonitor.yaml"))[0], &pm); err != nil || pm.Kind != "PodMonitor" {
		t.Fatalf("podmonitor.yaml: %v (%s)", err, pm.Kind)
	}
	ds, err := strictDaemonSet(documents(t, filepath.Join(kubeDir, "daemonset.yaml"))[1])
	if err != nil {
		t.Fatal(err)
	}
	pod := ds.Spec.Template
	for k, v := range pm.Spec.Selector.MatchLabels {
		if pod.Labels[k] != v {
			t.Errorf("the PodMonitor selects %s=%s, the DaemonSet's pods are labelled %v", k, v, pod.Labels)
		}
	}
	if pm.Namespace != ds.Namespace || len(pm.Spec.PodMetricsEndpoints) != 1 {
		t.Fatalf("PodMonitor in %q with %d endpoints; the DaemonSet is in %q", pm.Namespace, len(pm.Spec.PodMetricsEndpoints), ds.Namespace)
	}
	ep := pm.Spec.PodMetricsEndpoints[0]
	if ep.Port == nil || !slices.ContainsFunc(pod.Spec.Containers[0].Ports, func(p corev1.ContainerPort) bool { return p.Name == *ep.Port }) {
		t.Errorf("the PodMonitor scrapes port %v, which the exporter's container does not name", ep.Port)
	}

	names := map[string]bool{}
	for _, name := range rulesFiles {
		manifest := operatorRules[name]
		rules, err := os.ReadFile(filepath.Join(rulesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		var want monitoringv1.PrometheusRuleSpec
		if err := yaml.UnmarshalStrict(rules, &want); err != nil {
			t.Fatalf("%s as the operator's type: %v", name, err)
		}
		if len(want.Groups) == 0 {
			t.Errorf("%s holds no groups", name)
		}
		var pr monitoringv1.PrometheusRule
		err = yaml.UnmarshalStrict(documents(t, filepath.Join(kubeDir, manifest))[0], &pr)
		if err != nil || pr.Kind != "PrometheusRule" || !reflect.DeepEqual(pr.Spec, want) {
			if *updateManifests {
				writeEmbedded(t, manifest, "spec:\n", "  ", rules)
				continue
			}
			t.Errorf("%s (%v) does not hold deploy/prometheus/%s's groups (go test ./cmd/tablefull/internal/cli -run 'Kubernetes|Operator' -update-manifests)", manifest, err, name)
		}
		if pr.Namespace != ds.Namespace || names[pr.Name] {
			t.Errorf("%s: PrometheusRule %s/%s; want its own name in the DaemonSet's namespace %q", manifest, pr.Namespace, pr.Name, ds.Namespace)
		}
		names[pr.Name] = true
	}
}

// operatorRules is the PrometheusRule manifest that holds each rules file.
var operatorRules = map[string]string{
	"tablefull.rules.yml":       "prometheusrule.yaml",
	"tablefull-fleet.rules.yml": "prometheusrule-fleet.yaml",
}

// TestDaemonSetImageAndWebConfig: the DaemonSet names the tag make image
// gives, pulled only when missing; the optional web-config Secret is
// mounted, and with its flag uncommented the manifest still decodes and
// the exporter takes the file from under that mount.
func TestDaemonSetImageAndWebConfig(t *testing.T) {
	doc := documents(t, filepath.Join(kubeDir, "daemonset.yaml"))[1]
	ds, err := strictDaemonSet(doc)
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Spec.Template.Spec.Containers[0]
	if want := "ghcr.io/tablefull/tablefull:" + clitest.ImageTag(t); c.Image != want || c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("image %s (pull %q), want %s (make image's tag), IfNotPresent", c.Image, c.ImagePullPolicy, want)
	}
	var secret *corev1.Volume
	for i, v := range ds.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			secret = &ds.Spec.Template.Spec.Volumes[i]
		}
	}
	if secret == nil || secret.Secret.Optional == nil || !*secret.Secret.Optional {
		t.Fatalf("no optional Secret volume for the web config: %+v", secret)
	}
	const commented = "# - --web.config.file="
	if !bytes.Contains(doc, []byte(commented)) {
		t.Fatal("no commented --web.config.file to uncomment")
	}
	on, err := strictDaemonSet(bytes.Replace(doc, []byte(commented), []byte("- --web.config.file="), 1))
	if err != nil {
		t.Fatalf("with --web.config.file uncommented: %v", err)
	}
	oc := on.Spec.Template.Spec.Containers[0]
	fs := subcommandFlags(subcommandNamed(t, oc.Args[0]))
	var o options
	o.register(fs)
	if err := fs.Parse(oc.Args[1:]); err != nil {
		t.Fatalf("%v: %v", oc.Args, err)
	}
	file := fs.Lookup("web.config.file").Value.String()
	mounted := slices.ContainsFunc(oc.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == secret.Name && m.ReadOnly && strings.HasPrefix(file, m.MountPath+"/")
	})
	if file == "" || !mounted {
		t.Errorf("--web.config.file=%q is not under the Secret's read-only mount %v", file, oc.VolumeMounts)
	}
}
