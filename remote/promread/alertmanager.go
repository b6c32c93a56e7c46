package promread

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/tablefull/tablefull/model/fleet"
)

// maxAlertmanagerAlerts bounds the alerts read from Alertmanager in one
// refresh: past it the answer is refused, as a fleet query's is.
const maxAlertmanagerAlerts = 20000

// amAlert is what tablefull reads of an alert in Alertmanager's API
// (v2): its labels and whether it is suppressed, and by what.
type amAlert struct {
	Labels map[string]string `json:"labels"`
	Status struct {
		State       string   `json:"state"`
		SilencedBy  []string `json:"silencedBy"`
		InhibitedBy []string `json:"inhibitedBy"`
	} `json:"status"`
}

// alertmanager reads what an Alertmanager does with the fleet's alerts.
type alertmanager struct {
	base *url.URL
	hc   *http.Client
}

// newAlertmanager is the Alertmanager at raw ("": none).
func newAlertmanager(raw string) (*alertmanager, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("--alertmanager %s: want http[s]://host:port", redact(raw))
	}
	u.User = nil
	return &alertmanager{base: u, hc: &http.Client{Timeout: 5 * time.Second,
		Transport: boundedTransport{rt: http.DefaultTransport, max: MaxAnswerBytes}}}, nil
}

// mark sets, on each row's alerts, what Alertmanager does with them:
// silenced, inhibited or paged (Known). An alert it does not hold stays
// unknown: Prometheus may not have sent it yet.
func (a *alertmanager) mark(ctx context.Context, rows []fleet.Row) error {
	u := *a.base
	u.Path += "/api/v2/alerts"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return fmt.Errorf("alertmanager: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("alertmanager: %s", resp.Status)
	}
	body, err := io.ReadAll(resp.Body) // bounded by the transport
	if err != nil {
		return fmt.Errorf("alertmanager: %w", err)
	}
	alerts, err := decodeSeries[amAlert](json.RawMessage(body), maxAlertmanagerAlerts)
	if err != nil {
		return fmt.Errorf("alertmanager: %w", err)
	}
	type key struct{ instance, name string }
	listed := map[key]*fleet.Alert{} // the rows' alerts: what Alertmanager says of others is not kept
	for i := range rows {
		for j := range rows[i].Alerts {
			listed[key{rows[i].Instance, rows[i].Alerts[j].Name}] = &rows[i].Alerts[j]
		}
	}
	for _, al := range alerts {
		if x := listed[key{al.Labels["instance"], al.Labels["alertname"]}]; x != nil {
			x.Known, x.Silenced, x.Inhibited = true, len(al.Status.SilencedBy) > 0, len(al.Status.InhibitedBy) > 0
		}
	}
	return nil
}
