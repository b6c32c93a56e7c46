package promread

import (
	"os"
	"time"

	flag "github.com/spf13/pflag"
)

// Environment variables for Prometheus's secrets: a flag would show them
// in ps.
const (
	EnvPassword = "TABLEFULL_PROMETHEUS_PASSWORD"
	EnvToken    = "TABLEFULL_PROMETHEUS_TOKEN"
)

// AddFlags registers the flags of the console over Prometheus on fs,
// each filling c; its secrets come from the environment (SecretsFromEnv).
func (c *Config) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.URL, "prometheus", "", "watch the fleet in the Prometheus at `URL` (its tablefull exporters)")
	fs.StringVar(&c.Selector, "selector", "", "with --prometheus: label `MATCHERS` that pick the instances, e.g. job=\"tablefull\"")
	fs.DurationVar(&c.Window, "since", time.Hour, "with --prometheus: the window of peaks, pinned time and drill-downs")
	fs.StringVar(&c.BasicUser, "prometheus-user", "", "basic auth `USER` (password from $"+EnvPassword+"; a token from $"+EnvToken+")")
	fs.StringVar(&c.CAFile, "prometheus-ca", "", "CA `FILE` of an https Prometheus")
	fs.StringVar(&c.Alertmanager, "alertmanager", "", "with --prometheus: mark the firing alerts silenced or inhibited as the Alertmanager at `URL` holds them")
}

// SecretsFromEnv sets c's password and token from EnvPassword and
// EnvToken.
func (c *Config) SecretsFromEnv() {
	c.BasicPassword, c.BearerToken = os.Getenv(EnvPassword), os.Getenv(EnvToken)
}
