package lifecycle

import (
	"encoding/json"
	"fmt"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// readTrace reads an attempt's kept trace.
func readTrace(path string) (record.Trace, error) {
	var t record.Trace
	data, err := store.ReadRecord(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("%s is corrupt: %w", tracesFile, err)
	}
	return t, nil
}

// mergeTraces is the trace of an attempt whose phases ran in two processes, each with a
// trace of its own: every span of both, and what either lost.
func mergeTraces(a, b record.Trace) record.Trace {
	out := a
	out.Spans = append(append([]record.Span(nil), a.Spans...), b.Spans...)
	out.Harness = append(append([]string(nil), a.Harness...), b.Harness...)
	out.Dropped += b.Dropped
	out.Duplicates += b.Duplicates
	out.Refused += b.Refused
	out.Unsigned += b.Unsigned
	out.CrossTalk += b.CrossTalk
	out.Foreign += b.Foreign
	if b.Incomplete != "" {
		out.Incomplete = joinWhy(out.Incomplete, b.Incomplete)
	}
	return out
}
