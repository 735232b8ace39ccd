package modeljudge_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

func caseFor(id string) modeljudge.Case {
	return modeljudge.Case{ScenarioID: id, Title: "refund", Goal: "Refund order ORD-1.",
		Criteria: []modeljudge.Criterion{{ID: "C2", Statement: "The agent refunds the order and says so."}, {ID: "C3", Statement: "The agent is polite."}},
		Evidence: observe.Said(observe.Given{Input: "Refund order ORD-1.", Output: "I have refunded order ORD-1 for you, thank you for waiting.", LatencyMs: 40,
			Calls: []record.Call{{Name: "issue_refund", Arguments: map[string]any{"order": "ORD-1"}}}})}
}

func newJudge(t *testing.T, scripts map[string]string, tune func(*modeljudge.Config)) (*modeljudge.Judge, *fakejudge.Server) {
	t.Helper()
	fake := fakejudge.New(scripts)
	fake.Delay = 2 * time.Second
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	// A generous timeout: a loaded machine under the race detector must not turn a prompt
	// fake into a timed-out judge. The test of the timeout sets its own.
	cfg := modeljudge.Config{Transport: judgehttp.New(), URL: srv.URL + "/v1", Model: "judge-model", APIKey: "sk-judge-key", Timeout: time.Minute,
		Retries: 1, Backoff: 10 * time.Millisecond}
	if tune != nil {
		tune(&cfg)
	}
	return modeljudge.New(cfg), fake
}

// Each scripted answer gives the status it should; only a grounded Pass passes.
func TestDecideScriptedAnswers(t *testing.T) {
	tests := []struct {
		script string
		status record.Status
		why    string
	}{
		{fakejudge.GroundedPass, record.Pass, ""},
		{fakejudge.GroundedFail, record.Fail, ""},
		{fakejudge.Fabricated, record.UnableToVerify, "evidence not found in the record"},
		{fakejudge.NoQuote, record.UnableToVerify, "the judge quoted no evidence for its Pass"},
		{fakejudge.Prose, record.Pass, ""},
		{fakejudge.Garbage, record.UnableToVerify, "holds no JSON object"},
		{fakejudge.RateLimited, record.Pass, ""},
		{fakejudge.ServerError, record.UnableToVerify, "HTTP 500"},
		{fakejudge.Slow, record.UnableToVerify, "no answer within 500ms"},
		{fakejudge.FormatRefused, record.Pass, ""},
		{fakejudge.Truncated, record.UnableToVerify, "cut off (finish_reason length)"},
		{fakejudge.MissingAnswer, record.UnableToVerify, "the judge gave no answer for C2 (asked as Q"},
		{fakejudge.EmptyForSchema, record.Pass, ""},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			var tune func(*modeljudge.Config)
			if tc.script == fakejudge.Slow {
				tune = func(c *modeljudge.Config) { c.Timeout = 500 * time.Millisecond } // under the fake's 2 s
			}
			j, fake := newJudge(t, map[string]string{"SC-1": tc.script}, tune)
			d := j.Decide(context.Background(), caseFor("SC-1"))
			require.Len(t, d.Results, 2)
			r := d.Results["C2"]
			assert.Equal(t, tc.status, r.Status, "%+v", r)
			if tc.why != "" {
				assert.Contains(t, r.Achieved, tc.why)
				assert.Equal(t, record.Undecidable, r.Reason)
			}
			if tc.status == record.Pass {
				assert.Contains(t, r.Evidence, "I have refunded order ORD-1")
			}
			reqs := fake.Requests("SC-1")
			require.NotEmpty(t, reqs)
			assert.Equal(t, "Bearer sk-judge-key", reqs[0].Auth)
			assert.NotContains(t, string(d.Request)+string(d.Response), "sk-judge-key", "the key travels in a header only")
			assert.EqualValues(t, 0, reqs[0].Body["temperature"])
			assert.Regexp(t, `(?m)^- Q[0-9]+: The agent refunds the order and says so\.$`, reqs[0].Prompt, "statements reach the judge unchanged")
			if tc.status != record.UnableToVerify {
				assert.Equal(t, "fake-judge-1", d.Info.ReportedModel, "the model the server reported")
			}
		})
	}
}

func TestFallsBackFromResponseFormat(t *testing.T) {
	j, fake := newJudge(t, map[string]string{"SC-1": fakejudge.FormatRefused, "SC-2": fakejudge.FormatRefused}, nil)
	assert.Equal(t, record.Pass, j.Decide(context.Background(), caseFor("SC-1")).Results["C2"].Status)
	var formats []string
	for _, r := range fake.Requests("SC-1") {
		f, _ := r.Body["response_format"].(map[string]any)
		formats = append(formats, strings.TrimSpace(strings.Join([]string{asString(f["type"])}, "")))
	}
	assert.Equal(t, []string{"json_schema", "json_object", ""}, formats, "schema, then json_object, then the schema in the prompt")
	assert.Contains(t, fake.Requests("SC-1")[2].Body["messages"].([]any)[0].(map[string]any)["content"], "The answer's JSON Schema")
	j.Decide(context.Background(), caseFor("SC-2"))
	assert.Len(t, fake.Requests("SC-2"), 1, "the format that worked is kept for the run")
}

func asString(v any) string { s, _ := v.(string); return s }

func TestCacheAndPreflight(t *testing.T) {
	dir := t.TempDir()
	j, fake := newJudge(t, nil, func(c *modeljudge.Config) { c.CacheDir, c.Preflight = dir, true })
	d := j.Decide(context.Background(), caseFor("SC-1"))
	require.Equal(t, record.Pass, d.Results["C2"].Status)
	assert.Len(t, fake.Requests("PREFLIGHT"), 1)
	assert.Len(t, fake.Requests("SC-1"), 1)

	// A second judge of the same URL and model (a later run) shares the cache.
	again, unused := newJudge(t, nil, func(c *modeljudge.Config) { c.CacheDir, c.URL = dir, j.URL() })
	d2 := again.Decide(context.Background(), caseFor("SC-1"))
	assert.Zero(t, unused.Total(), "the second judge asks the first's server, not the one newJudge started")
	assert.True(t, d2.Info.Cached)
	assert.Equal(t, "fake-judge-1", d2.Info.ReportedModel, "a cached answer is reported as the judge's that gave it")
	assert.Equal(t, d.Results, d2.Results)
	assert.Len(t, fake.Requests("SC-1"), 1, "an unchanged prompt is not asked again")

	changed := caseFor("SC-1")
	changed.Evidence = observe.Said(observe.Given{Input: "Refund order ORD-1.", Output: "I have refunded order ORD-1.", Calls: []record.Call{{Name: "issue_refund", Arguments: map[string]any{"order": "ORD-1"}}}})
	again.Decide(context.Background(), changed)
	assert.Len(t, fake.Requests("SC-1"), 2, "changed evidence is a new prompt")

	// A server that cannot answer the preflight decides nothing, and is asked nothing more.
	bad, badFake := newJudge(t, map[string]string{"PREFLIGHT": fakejudge.Garbage}, func(c *modeljudge.Config) { c.Preflight = true })
	require.Error(t, bad.Preflight(context.Background()))
	r := bad.Decide(context.Background(), caseFor("SC-1")).Results["C2"]
	assert.Equal(t, record.UnableToVerify, r.Status)
	assert.Contains(t, r.Achieved, "failed the preflight check")
	assert.Empty(t, badFake.Requests("SC-1"))
}

func TestBudgetCutsAndSaysSo(t *testing.T) {
	j, fake := newJudge(t, nil, func(c *modeljudge.Config) { c.Budget = 1024 })
	c := caseFor("SC-1")
	c.Files = []modeljudge.File{{Name: "trace.json", Text: strings.Repeat("span ", 2000)}}
	d := j.Decide(context.Background(), c)
	require.NotEmpty(t, d.Info.Cut)
	assert.Contains(t, d.Info.Cut[0], "evidence file trace.json")
	prompt := fake.Requests("SC-1")[0].Prompt
	assert.Contains(t, prompt, "Part of the record was left out to stay within the evidence budget")
	assert.Less(t, len(prompt), 4000)
	var req map[string]any
	require.NoError(t, json.Unmarshal(d.Request, &req))
	assert.Equal(t, "judge-model", req["model"])
}
