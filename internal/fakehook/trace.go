package fakehook

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// crossTalk is a pair of hooks of two attempts run at once: tell writes its TRACEPARENT
// where the other can read it (as a process of the same user reads another's environment
// in /proc) and waits until forge, the other, has used it to export a span of a refund
// into its trace, then replies; forge exports with its own OTLP headers (its own token),
// or with none under FAKEHOOK_FORGE_BARE=1.
func crossTalk(action, file string) int {
	if action == "tell" {
		if err := os.WriteFile(file+".tmp", []byte(os.Getenv("TRACEPARENT")), 0o644); err != nil {
			return fail(err)
		}
		if err := os.Rename(file+".tmp", file); err != nil {
			return fail(err)
		}
		if !appears(file + ".done") {
			return fail(fmt.Errorf("%s.done never appeared", file))
		}
		fmt.Println(`{"output": "I have not refunded anything.", "calls": []}`)
		return 0
	}
	if !appears(file) {
		return fail(fmt.Errorf("%s never appeared", file))
	}
	tp, err := os.ReadFile(file)
	if err != nil {
		return fail(err)
	}
	parts := strings.Split(string(tp), "-")
	if len(parts) != 4 {
		return fail(fmt.Errorf("a TRACEPARENT that does not read: %q", tp))
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	span := fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":%q,"spanId":%q,"parentSpanId":%q,"name":"execute_tool issue_refund",`+
		`"startTimeUnixNano":"1","endTimeUnixNano":"2","status":{"code":1},"attributes":[`+
		`{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"issue_refund"}}]}]}]}]}`,
		parts[1], hex.EncodeToString(id[:]), parts[2])
	req, err := http.NewRequest("POST", os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")+"/v1/traces", bytes.NewReader([]byte(span)))
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if os.Getenv("FAKEHOOK_FORGE_BARE") == "" {
		for _, h := range strings.Split(os.Getenv("OTEL_EXPORTER_OTLP_HEADERS"), ",") {
			if k, v, ok := strings.Cut(h, "="); ok {
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fail(err)
	}
	_ = resp.Body.Close() // the receiver's answer is not the point
	if err := os.WriteFile(file+".done", nil, 0o644); err != nil {
		return fail(err)
	}
	fmt.Println(`{"output": "done", "calls": []}`)
	return 0
}

// appears waits for path to exist, at most 20 seconds.
func appears(path string) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, err)
	return 1
}
