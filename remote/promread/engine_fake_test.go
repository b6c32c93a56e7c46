package promread

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// fakeEngine answers the fleet's totals with hosts instances in scope
// (and nothing else counted),
// its ranking with the first of the ranked instances that topk asks for
// (highest first), and every other query with details.
func fakeEngine(t *testing.T, hosts int, ranked []string, details http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.Form.Get("query")
		switch {
		case strings.Contains(q, TotalsRecord) || strings.Contains(q, RankRecord): // no recording rules
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
		case strings.HasPrefix(q, "label_replace(count") && strings.Contains(q, `"m", "hosts"`):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"m":"hosts"},"value":[1,"%d"]}]}}`, hosts)
		case strings.HasPrefix(q, "label_replace(count"): // the totals' other counts: none
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
		case strings.HasPrefix(q, "sort_desc(topk("):
			w.Header().Set("Content-Type", "application/json")
			var k int
			fmt.Sscanf(q, "sort_desc(topk(%d,", &k)
			var b strings.Builder
			for i, in := range ranked[:min(k, len(ranked))] {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"metric":{"instance":%q},"value":[1,"%d"]}`, in, len(ranked)-i)
			}
			fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[%s]}}`, b.String())
		default:
			details.ServeHTTP(w, r)
		}
	})
}
