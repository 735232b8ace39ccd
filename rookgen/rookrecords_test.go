package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// rookRun is the run folder Rook recorded for its banking demo's scenarios.
var rookRun = filepath.Join(rookSamples, "runs", "2026-09-29T12-11-38Z")

// notRecorded are the keys of Rook's records this project does not write, and why. Every
// other key Rook writes must be in our record of the same scenario, holding the same kind
// of value.
var notRecorded = map[string]string{
	"verdict.yaml:metrics":                "quality scores come from Rook's model judge",
	"verdict.yaml:summary":                "prose from Rook's model judge",
	"verdict.yaml:compromised":            "adversarial scoring comes from Rook's model judge",
	"verdict.yaml:attack_evidence":        "adversarial scoring comes from Rook's model judge",
	"verdict.yaml:attack_confidence":      "adversarial scoring comes from Rook's model judge",
	"response.json:clarifications":        "Rook answers an agent's questions; rooktest sends the scenario's turns only",
	"response.json:fs_note":               "the filesystem is not observed",
	"report.yaml:credits":                 "Rook's billing",
	"report.yaml:metrics.credits":         "Rook's billing",
	"report.yaml:metrics.quality":         "quality scores come from Rook's model judge",
	"report.yaml:metrics.quality_samples": "quality scores come from Rook's model judge",
	"report.yaml:headline":                "prose from Rook's model",
	"report.yaml:narrative":               "prose from Rook's model",
	"report.yaml:next":                    "prose from Rook's model",
	"run.yaml:test_mode":                  "Rook's shared timeline",
	"run.yaml:pins.tree_hash":             "Rook's agent tree; the profile is pinned by its hash",
	"run.yaml:included[].confidence":      "Rook's planner",
	"run.yaml:skipped[].confidence":       "Rook's planner",
	"run.yaml:summary":                    "Rook's planner",
	"run.yaml:name":                       "Rook's --name label; go test names a run by its test",
	"run.yaml:judge_only":                 "Rook re-judges saved responses on resume; -rook.resume carries verdicts or runs again",
	"run.yaml:rca":                        "Rook's root-cause analysis",
	"run.yaml:gapped":                     "undocumented in Rook",
	"run.yaml:stale":                      "undocumented in Rook",
}

// hookData is where a hook's own output sits in hooks.json: its keys are the hook's, so
// only the ones the contract names are compared.
var hookData = []string{"phases.open.data.", "phases.execute.data.", "phases.close.data.", "phases.collect.data."}

var contractData = map[string]bool{
	"phases.open.data.conversation": true, "phases.execute.data.calls": true, "phases.execute.data.conversation": true,
	"phases.collect.data.calls": true, "phases.collect.data.usage": true, "phases.collect.data.evidence_file": true,
	"phases.collect.data.output": true, "phases.collect.data.conversation": true,
}

// shape flattens a decoded document into its key paths and the kind of value at each,
// as criteria[].status: string.
func shape(v any, path string, out map[string]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		out[path] = "map"
		for k, c := range x {
			shape(c, join(k), out)
		}
	case []any:
		out[path] = "list"
		for _, c := range x {
			shape(c, path+"[]", out)
		}
	case string, time.Time: // a timestamp, quoted or not
		out[path] = "string"
	case bool:
		out[path] = "bool"
	case nil:
		out[path] = "null"
	default:
		out[path] = "number"
	}
}

func hasItems(shape map[string]string, list string) bool {
	_, ok := shape[list+"[]"]
	return ok
}

func decodeRecord(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v any
	if strings.HasSuffix(path, ".json") {
		require.NoError(t, json.Unmarshal(data, &v), path)
	} else {
		require.NoError(t, yaml.Unmarshal(data, &v), path)
	}
	out := map[string]string{}
	shape(v, "", out)
	return out
}

// compareWithRook checks every record ours has a counterpart of in Rook's run folder.
func compareWithRook(t *testing.T, ours string) {
	t.Helper()
	compared := 0
	compare := func(rookPath, ourPath string) {
		name := filepath.Base(rookPath)
		want, got := decodeRecord(t, rookPath), decodeRecord(t, ourPath)
		var paths []string
		for p := range want {
			paths = append(paths, p)
		}
		sort.Strings(paths)
	next:
		for _, p := range paths {
			if p == "" {
				continue
			}
			for key := range notRecorded {
				k := strings.TrimPrefix(key, name+":")
				if k != key && (p == k || strings.HasPrefix(p, k+".") || strings.HasPrefix(p, k+"[]")) {
					continue next
				}
			}
			if name == "hooks.json" && !contractData[p] {
				for _, d := range hookData {
					if strings.HasPrefix(p, d) {
						continue next
					}
				}
			}
			if strings.HasPrefix(p, "phases.execute.data.calls[]") || strings.HasPrefix(p, "phases.collect.data.calls[]") {
				continue // the calls' arguments and outputs are the agent's
			}
			if strings.HasPrefix(p, "phases.prepare") {
				continue
			}
			if i := strings.LastIndex(p, "[]"); i >= 0 && got[p[:i]] == "list" && !hasItems(got, p[:i]) {
				continue // an empty list in our record: its items cannot be compared
			}
			kind, ok := got[p]
			if !assert.True(t, ok, "%s: Rook writes %s (%s); we do not", ourPath, p, want[p]) {
				continue
			}
			if want[p] != "null" && kind != "null" {
				assert.Equal(t, want[p], kind, "%s: %s", ourPath, p)
			}
		}
		compared++
	}
	for _, f := range []string{"run.yaml", "report.yaml"} {
		compare(filepath.Join(rookRun, f), filepath.Join(ours, f))
	}
	dirs, err := filepath.Glob(filepath.Join(rookRun, "scenarios", "*"))
	require.NoError(t, err)
	for _, d := range dirs {
		id := filepath.Base(d)
		if _, err := os.Stat(filepath.Join(ours, "scenarios", id)); err != nil {
			continue // a scenario of Rook's run whose file the sample does not hold
		}
		for _, f := range []string{"verdict.yaml", "response.json", "hooks.json", "request.json"} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil {
				compare(filepath.Join(d, f), filepath.Join(ours, "scenarios", id, f))
			}
		}
	}
	assert.Greater(t, compared, 20, "records compared")
	t.Logf("compared %d records with Rook's run %s key by key", compared, filepath.Base(rookRun))

	// The values Rook's records hold, in the same form.
	resp := map[string]any{}
	data, err := os.ReadFile(filepath.Join(ours, "scenarios", "SC-103", "response.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &resp))
	raw, _ := resp["raw_response"].(string)
	var printed map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &printed), "raw_response is the hook's stdout as printed")
	assert.Equal(t, resp["output"], printed["agent_reply"])
	assert.True(t, strings.HasPrefix(raw, `{"output":`), "in the hook's own key order: %.40s", raw)
	for _, a := range resp["artifacts"].([]any) {
		assert.True(t, strings.HasPrefix(a.(string), ".rook/runs/bank/"), "artifacts are workspace-relative: %s", a)
	}
	hooks := map[string]any{}
	data, err = os.ReadFile(filepath.Join(ours, "scenarios", "SC-103", "hooks.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &hooks))
	collect := hooks["phases"].(map[string]any)["collect"].(map[string]any)["data"].(map[string]any)
	assert.True(t, strings.HasPrefix(collect["evidence_file"].(string), ".rook/runs/bank/"),
		"evidence_file is workspace-relative: %s", collect["evidence_file"])
}
