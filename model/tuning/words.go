package tuning

import "github.com/tablefull/tablefull/model/verdict"

// words are the templates of a plan's reasons, by clause key.
var words = verdict.Words{
	"plan.ws.peak":             "peak working set {peak count} (the peak count)",
	"plan.ws.sized":            "peak working set {sized} (",
	"plan.ws.sized.end":        ")",
	"plan.ws.over":             "peak working set {peak count} (the peak count; ",
	"plan.ws.over.end":         " needs {sized})",
	"plan.ws.headroom":         " × 1.5, next power of two",
	"plan.sizing.time-wait":    "{rate}/s × {hold} + {open} open",
	"plan.sizing.open":         "{open} open",
	"plan.sum.term":            "{class} {rate}/s × {hold}",
	"plan.sum.standing":        "{standing} standing open",
	"plan.sum.plus":            " + ",
	"plan.time-wait.ceiling":   "observed {rate}/s against a ceiling of {ceiling}/s ({max} ÷ {hold}): at 30 s the ceiling is {ceiling at 30}/s",
	"plan.buckets.rule":        "1:1 with max, the kernel's own rule since 5.15",
	"plan.buckets.rule-old":    "max ÷ 4, the rule before 5.15",
	"plan.buckets.twice":       "twice the buckets: they outnumber the peak count {peak count}",
	"plan.buckets.twice.why":   ", so the long chains are of entries not read here or of flows that hash alike (max is not the fix)",
	"plan.buckets.peak":        "the next power of two at or above the peak count {peak count}",
	"plan.buckets.not-max":     " (max is not the fix)",
	"plan.buckets.shared":      "the next power of two at or above the working set with the other namespaces' entries (one hash for every namespace)",
	"plan.buckets.depth":       ": chain depth {depth} at the working set",
	"plan.buckets.raised":      " (only ever raised)",
	"plan.others":              " and the other namespaces' {others}",
	"plan.class":               "{class}: {rate}/s held {hold} each need {need} entries; at ",
	"plan.class.retries":       "{proposed} ({lowered} with the {retries} of SYN retries this kernel renews it by)",
	"plan.class.lowered":       "{lowered}",
	"plan.class.need-then":     ", {need then}",
	"plan.class.no-answer":     "; {dest} never answers: the fix is there, not in the table",
	"plan.rate-from":           "; {peak rate}/s is {measured}",
	"plan.standing":            "; standing connections: a timeout frees nothing that is live",
	"plan.standing.idle":       "; {idle} of them idle over an hour, held by nf_conntrack_tcp_timeout_established ({established}): lowering it frees those, and forgets connections that may still be alive",
	"plan.standing.close-wait": "; {close wait} in CLOSE_WAIT: their peers closed and the application has not (nf_conntrack_tcp_timeout_close_wait holds each after its last packet)",
	"plan.edited":              "edited",
	"plan.asked":               "asked for",
	"plan.port-range":          "one destination's sockets hold nearly every local port: 55,296 ports instead of the default 28,232, for each destination",
	"plan.settle":              "free for {watched} at a peak working set of {peak working set}: × 1.5, next power of two (the write-up's way back down)",
	"plan.somaxconn":           "listen queues overflowed: 4,096 lets a burst wait instead of being dropped",
	"plan.syn-backlog":         "half-open connections during the burst: 8,192",
	"plan.tw-reuse":            "reuse TIME_WAIT ports for new outgoing connections when safe (timestamps)",
}

// say is words' clause key of weight w, filled by facts.
func say(w verdict.Weight, key string, facts ...verdict.Fact) verdict.Clause {
	return words.Say(w, key, facts...)
}

// Reason is a change's reason of key from words: "plan.edited" for a
// value the operator typed, "plan.asked" for one --set gave.
func Reason(key string, facts ...verdict.Fact) verdict.Clause {
	return say(verdict.Numbers, key, facts...)
}
