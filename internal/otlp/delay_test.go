package otlp

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/testkit"
)

// BenchmarkExportDelay measures what the settle grace must cover: for an agent
// instrumented with the OpenTelemetry Go SDK that flushes before it replies, with the
// simple span processor and with the batch one, when its last span arrives relative to
// its hook's exit (negative: before it). 20 runs of each per iteration; it reports the
// median and the latest of each, in milliseconds.
func BenchmarkExportDelay(b *testing.B) {
	agent := testkit.OTelAgent(b)
	r, err := Start()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	delays := map[string][]float64{}
	for b.Loop() {
		for _, processor := range []string{"simple", "batch"} {
			for i := range 20 {
				trace := r.Attempt("SC-1", i+1, nil)
				parent, token := r.Traceparent(trace, turn(1))
				header := strings.ToLower(record.TraceTokenHeader) + "=" + token
				cmd := exec.Command(agent)
				cmd.Env = append(os.Environ(), "TRACEPARENT="+parent, "OTEL_EXPORTER_OTLP_ENDPOINT="+r.Endpoint(),
					"OTEL_EXPORTER_OTLP_HEADERS="+header, "TESTAGENT_BATCH="+map[string]string{"simple": "0", "batch": "1"}[processor])
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%s: %v\n%s", processor, err, out)
				}
				exited := time.Now()
				tr := r.Settle(trace, record.TraceWait{Quiet: 200 * time.Millisecond, Most: time.Second}, []record.HookCall{turn(1)})
				s := r.sink(trace)
				s.mu.Lock()
				last := s.arrived.last
				s.mu.Unlock()
				if len(tr.Spans) != 4 {
					b.Fatalf("%s: %d spans arrived, want 4: %s", processor, len(tr.Spans), out)
				}
				delays[processor] = append(delays[processor], float64(last.Sub(exited))/float64(time.Millisecond))
			}
		}
	}
	for p, d := range delays {
		slices.Sort(d)
		b.ReportMetric(d[len(d)/2], fmt.Sprintf("%s-median-ms", p))
		b.ReportMetric(d[len(d)-1], fmt.Sprintf("%s-latest-ms", p))
	}
}
