package fakehook

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// What the hooks log of themselves (FAKEHOOK_LOG, FAKEHOOK_SPANS), and what a test reads
// back of it.

// Call is one logged hook call.
type Call struct {
	Phase string            `json:"phase"`
	Args  []string          `json:"args"`
	Env   map[string]string `json:"env"`
	Stdin string            `json:"stdin"`
	Start time.Time         `json:"start"`
}

// Span is one hook call as FAKEHOOK_SPANS logs it, when it ends: from the hook's start
// to the end of what it did (not its exit).
type Span struct {
	Phase    string    `json:"phase"`
	Scenario string    `json:"scenario"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
}

// MaxAlive is the largest number of spans in progress at one instant.
func MaxAlive(spans []Span) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, s := range spans {
		edges = append(edges, edge{s.Start, 1}, edge{s.End, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if !edges[i].at.Equal(edges[j].at) {
			return edges[i].at.Before(edges[j].at)
		}
		return edges[i].delta < edges[j].delta // an end before a start at the same instant
	})
	alive, most := 0, 0
	for _, e := range edges {
		alive += e.delta
		most = max(most, alive)
	}
	return most
}

// ReadSpans reads the spans logged at path.
func ReadSpans(path string) ([]Span, error) { return readLines[Span](path) }

// appendLine appends v as one JSON line to path; lines under PIPE_BUF are written whole
// by concurrent hooks.
func appendLine(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// ReadLog reads the calls logged at path.
func ReadLog(path string) ([]Call, error) { return readLines[Call](path) }

func readLines[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("fakehook log line %q: %w", line, err)
		}
		out = append(out, v)
	}
	return out, nil
}
