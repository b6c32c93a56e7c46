package remote

import "strings"

// The exporter's metric names: one home, for the exporter that writes
// them (remote/exporter) and the reader that queries them
// (remote/promread). A name changed here changes both; a round-trip test
// reads the exporter's exposition back through promread's parsers.
const (
	MetricEntries         = "tablefull_conntrack_entries"
	MetricPeak            = "tablefull_conntrack_entries_peak"
	MetricLimit           = "tablefull_conntrack_entries_limit"
	MetricBuckets         = "tablefull_conntrack_buckets"
	MetricHold            = "tablefull_conntrack_time_wait_hold_seconds"
	MetricCPUEvents       = "tablefull_conntrack_cpu_events_total"
	MetricEvents          = "tablefull_conntrack_events_total"
	MetricPinned          = "tablefull_conntrack_pinned_seconds_total"
	MetricEpisodes        = "tablefull_conntrack_pinned_episodes_total"
	MetricKernelLines     = "tablefull_kernel_table_full_lines_total"
	MetricSuppressed      = "tablefull_kernel_suppressed_callbacks_total"
	MetricNewEntries      = "tablefull_conntrack_new_entries_total"
	MetricNewEntriesLost  = "tablefull_conntrack_new_entries_lost_total"
	MetricEvicted         = "tablefull_conntrack_evicted_entries_total"
	MetricEntriesDeleted  = "tablefull_entries_deleted_total"
	MetricUserDeleted     = "tablefull_conntrack_user_deleted_entries_total"
	MetricIPVSConns       = "tablefull_ipvs_connections"
	MetricIPVSBuckets     = "tablefull_ipvs_connection_table_buckets"
	MetricClassHold       = "tablefull_conntrack_class_hold_seconds"
	MetricVerdict         = "tablefull_verdict"
	MetricVerdictSeconds  = "tablefull_verdict_seconds_total"
	MetricUp              = "tablefull_up"
	MetricNSEntries       = "tablefull_netns_conntrack_entries"
	MetricNSDrops         = "tablefull_netns_conntrack_drops_total"
	MetricNSOthers        = "tablefull_netns_others"
	MetricNSOthersEntries = "tablefull_netns_others_entries"
	MetricNSUnread        = "tablefull_netns_unread"
	MetricTuningDrift     = "tablefull_tuning_drift"
	MetricLastSample      = "tablefull_last_sample_timestamp_seconds"
	MetricBuildInfo       = "tablefull_build_info"
	MetricOwnerEntries    = "tablefull_conntrack_owner_entries"
	MetricOwnerNew        = "tablefull_owner_new_connections_total"
	MetricOwnerDrops      = "tablefull_owner_drops_total"
	MetricProbesLost      = "tablefull_owner_probes_lost_total"
	MetricListenQueue     = "tablefull_listener_queue"
	MetricListenBacklog   = "tablefull_listener_backlog"
)

// AnyOf is a PromQL regular expression matching exactly the names given.
func AnyOf(names ...string) string { return strings.Join(names, "|") }
