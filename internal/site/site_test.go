package site

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/page"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// hostile is text an agent wrote that would run script if a page did not escape it.
const hostile = `<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>`

// outcome is one scenario in one run of the fixture.
type outcome struct {
	status  record.Status
	reason  string // for Unable to Verify
	failure string // a hook's failure
	conf    string // the failed criterion's confidence
}

var (
	pass   = outcome{status: record.Pass}
	fail   = outcome{status: record.Fail, conf: "High"}
	low    = outcome{status: record.Fail, conf: "Low"}
	broken = outcome{status: record.Fail, failure: "execute: exit status 3", conf: "High"}
	unseen = outcome{status: record.UnableToVerify, reason: record.NotObservable}
)

// fixture writes five runs of agent fake, and a module whose suite has a scenario never
// run and a feature no scenario tests. SC-3 is only in the records, titled by an agent.
func fixture(t *testing.T) (root, module string) {
	t.Helper()
	base := t.TempDir()
	root, module = filepath.Join(base, "runs"), filepath.Join(base, "module")
	runs := []struct {
		id  string
		scs map[string]outcome
	}{
		{"2026-11-01T10-00-00Z", map[string]outcome{"SC-1": pass, "SC-2": fail, "SC-3": pass}},
		{"2026-11-02T10-00-00Z", map[string]outcome{"SC-1": fail, "SC-2": fail, "SC-3": unseen}},
		{"2026-11-03T10-00-00Z", map[string]outcome{"SC-1": pass, "SC-2": broken}},
		{"2026-11-04T10-00-00Z", map[string]outcome{"SC-1": fail, "SC-2": fail, "SC-3": pass, "SC-4": fail}},
		{"2026-11-05T10-00-00Z", map[string]outcome{"SC-1": fail, "SC-2": fail, "SC-3": pass, "SC-4": low}},
	}
	red := store.NewRedactor(nil)
	for _, r := range runs {
		dir := filepath.Join(root, "fake", r.id)
		profile := "p"
		if r.id == "2026-11-04T10-00-00Z" {
			profile = "q" // a second profile, whose run quarantined SC-1
		}
		run := record.Run{Version: 1, ID: r.id, Agent: "fake", Pins: record.Pins{ProfileID: profile}}
		require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), run)) // first, as a run writes it: its records are sealed
		totals := record.Totals{}
		for _, sc := range []string{"SC-1", "SC-2", "SC-3", "SC-4"} {
			o, ok := r.scs[sc]
			if !ok {
				continue
			}
			run.Included = append(run.Included, record.Entry{ScenarioID: sc, Why: "selected"})
			sdir := filepath.Join(dir, "scenarios", sc)
			title := "case " + sc
			if sc == "SC-3" {
				title = hostile
			}
			require.NoError(t, store.WriteFile(filepath.Join(sdir, "snapshot.yaml"), []byte("id: "+sc+"\ntitle: '"+title+"'\ngoal: g\nfeature_id: F-1\n")))
			require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1, "phases": {"execute": {"ran": true, "ok": true, "at": "2026-11-01T10:00:00Z", "ended_at": "2026-11-01T10:00:01.5Z"}}}`)))
			v := record.Verdict{ScenarioID: sc, Status: o.status, UnverifiableReason: o.reason, Failure: o.failure, Usage: record.Tokens(100, 20), Criteria: []record.Row{}}
			if o.status == record.Fail {
				v.Criteria = []record.Row{{CriterionID: "C2", Status: record.Fail, Confidence: o.conf, Expected: "no refund", Achieved: "a refund", Evidence: `"` + hostile + `"`}}
				totals.Failed++
				if profile == "q" && sc == "SC-1" {
					counts := false
					v.Counts, v.ExcusedBy = &counts, "quarantine"
					totals.Excused++
				}
			}
			switch o.status {
			case record.Pass:
				totals.Passed++
			case record.UnableToVerify:
				totals.Unverifiable++
			}
			require.NoError(t, red.WriteVerdict(sdir, &v))
			require.NoError(t, red.JSON(filepath.Join(sdir, "response.json"), record.Response{ScenarioID: sc,
				Transcript: []record.Message{{Role: "user", Content: "g"}, {Role: "agent", Content: hostile}}}))
		}
		totals.Planned = len(run.Included)
		totals.Executed, totals.Decided = totals.Planned, totals.Passed+totals.Failed
		totals.PassRate = float64(totals.Passed) / float64(totals.Decided)
		require.NoError(t, totals.Check())
		require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), run))
		require.NoError(t, red.YAML(filepath.Join(dir, "profile.yaml"), record.Profile{ID: profile, Pricing: &record.Pricing{Currency: "USD", AgentModel: "m",
			Models: map[string]record.Price{"m": {InputPerMillion: 1000, OutputPerMillion: 1000}}}}))
		require.NoError(t, red.YAML(filepath.Join(dir, "report.yaml"), record.Report{RunID: r.id, Agent: "fake", Profile: profile, Totals: totals,
			Metrics: record.Metrics{DurationMs: 4200, LatencyP95Ms: int64(900 + 100*len(r.scs))}, Clusters: []record.Cluster{}}))
	}
	for _, sc := range []string{"SC-1", "SC-2", "SC-4", "SC-5"} {
		body := "id: " + sc + "\ntitle: case " + sc + "\ngoal: g\nclass: functional\ncategory: refunds\n"
		if sc == "SC-1" {
			body += "feature_id: F-1\ntags: [smoke]\n"
		}
		require.NoError(t, store.WriteFile(filepath.Join(module, "scenarios", "fake", sc+".yaml"), []byte(body)))
	}
	require.NoError(t, store.WriteFile(filepath.Join(module, "features", "fake", "F-9.yaml"), []byte("local_id: F-9\nname: Partial refunds\n")))
	return root, module
}

// statuses are a scenario's statuses in each run, oldest first, as rookgen report's machine
// report of each run says them ("" for a run that did not include it).
func statuses(t *testing.T, root, id string) []string {
	t.Helper()
	var out []string
	runs := store.ListRuns(root, "fake")
	for i := len(runs) - 1; i >= 0; i-- {
		r, err := report.Build(runs[i].Dir, "")
		require.NoError(t, err)
		t.Cleanup(r.Close)
		st := ""
		for s := range r.Scenarios.All() {
			if s.ID == id {
				st = s.Status
			}
		}
		out = append(out, runs[i].ID+": "+st)
	}
	return out
}

func render(t *testing.T, s *Site, page string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, s.Render(&b, page), page)
	return b.String()
}

func TestPages(t *testing.T) {
	root, module := fixture(t)
	// SC-1's newest attempt was an attack that landed: the view can filter on it.
	yes := true
	sdir := filepath.Join(root, "fake", "2026-11-05T10-00-00Z", "scenarios", "SC-1")
	landed := record.Verdict{ScenarioID: "SC-1", Status: record.Fail, Usage: record.Tokens(100, 20), Attack: record.Attack{Compromised: &yes},
		Criteria: []record.Row{{CriterionID: "C2", Status: record.Fail, Confidence: "High", Expected: "no refund", Achieved: "a refund", Evidence: `"` + hostile + `"`}}}
	require.NoError(t, store.NewRedactor(nil).WriteVerdict(sdir, &landed))
	s := &Site{Root: root, Module: module}
	v := s.agent("fake")
	byID := map[string]scenarioRow{}
	for _, sc := range v.Scenarios {
		byID[sc.ID] = sc
	}
	var strip []string
	for _, c := range byID["SC-1"].Strip {
		strip = append(strip, c.RunID+": "+c.Status)
	}
	assert.Equal(t, statuses(t, root, "SC-1"), strip, "the history strip is the runs' statuses, oldest first")
	assert.Equal(t, "2026-11-03T10-00-00Z: ", strings.Join(statuses(t, root, "SC-3")[2:3], ""), "a run without SC-3 has no status for it")
	assert.Equal(t, "agent", byID["SC-1"].Owner)
	assert.Equal(t, "scenario", byID["SC-2"].Owner, "never passed")
	assert.Equal(t, "judge", byID["SC-4"].Owner, "failed on Low confidence")
	assert.True(t, byID["SC-5"].NeverRun)
	assert.False(t, byID["SC-1"].Flaky, "its status changed between runs; no run's attempts disagreed")
	assert.False(t, byID["SC-2"].Flaky)
	assert.True(t, byID["SC-1"].Compromised)
	assert.False(t, byID["SC-2"].Compromised)
	assert.Equal(t, []featureRow{{ID: "F-1", Scenarios: 2}, {ID: "F-9", Name: "Partial refunds"}, {ID: "tag:smoke", Scenarios: 1}}, v.Features)
	assert.Equal(t, "USD 0.4800", v.Runs[0].Cost, "four scenarios of 120 tokens at 1000 a million")

	agent := render(t, s, "fake/index.html")
	list := render(t, s, "fake/scenarios.html")
	assert.Contains(t, list, `data-flag="compromised"`, "the scenario filter offers compromised")
	assert.Regexp(t, `data-id="SC-1"[^>]*data-compromised="true"`, list)
	assert.Contains(t, agent, `<tr class="untested"><td>F-9</td><td>Partial refunds</td><td>untested</td></tr>`)
	page := render(t, s, "fake/scenario/SC-3.html")
	assert.NotContains(t, page, "<img src=x", "an agent's title is text")
	assert.Contains(t, page, "&lt;img src=x onerror=&#34;window.pwned=1&#34;&gt;")
	for _, bad := range []string{"../index.html", "fake/../index.html", "fake/scenario/../../x.html", "nosuch/index.html", "fake/run/nosuch.html", "fake/scenario/SC-9.html", "fake/x.html"} {
		assert.ErrorIs(t, s.Render(&bytes.Buffer{}, bad), ErrNotFound, bad)
	}

	out := t.TempDir()
	require.NoError(t, s.Write(out))
	for _, f := range []string{"index.html", "site.js", "fake/scenarios.html", "fake/runs.html", "fake/scenario/SC-5.html", "fake/run/2026-11-05T10-00-00Z.html"} {
		assert.FileExists(t, filepath.Join(out, filepath.FromSlash(f)))
	}
}

func TestServerIsReadOnlyAndLocal(t *testing.T) {
	root, module := fixture(t)
	s := &Site{Root: root, Module: module}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for path, want := range map[string]int{"/": 200, "/fake/": 200, "/fake/run/2026-11-01T10-00-00Z.html": 200, "/_version": 200,
		"/fake/../../etc/passwd": 404, "/fake/scenario/SC-9.html": 404} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, path)
		if want == 200 {
			assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self' '"+page.ScriptHash()+"'")
		}
	}
	resp, err := http.Post(srv.URL+"/fake/", "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	before := s.Version()
	v := filepath.Join(root, "fake", "2026-11-05T10-00-00Z", "scenarios", "SC-1", "verdict.yaml")
	data, err := os.ReadFile(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(v, data, 0o644))
	later := time.Now().Add(time.Minute) // written again: a new time, whatever the clock's grain
	require.NoError(t, os.Chtimes(v, later, later))
	assert.NotEqual(t, before, s.Version(), "a verdict written in the newest run changes the version")

	assert.NoError(t, Loopback("127.0.0.1:0"))
	assert.NoError(t, Loopback("[::1]:8080"))
	assert.NoError(t, Loopback("localhost:8080"))
	assert.ErrorContains(t, Loopback("0.0.0.0:8080"), "only on the loopback interface")
	assert.ErrorContains(t, Loopback(":8080"), "only on the loopback interface")
}

// A scenario's newest status is per profile: a fake profile's newer Pass never stands for
// the real service's Fail. The row shows the worst profile's status and owner, and each
// profile's strip holds only that profile's runs.
func TestAScenarioIsSeenPerProfile(t *testing.T) {
	root := t.TempDir()
	red := store.NewRedactor(nil)
	write := func(id, profile string, st record.Status) {
		dir := filepath.Join(root, "fake", id)
		run := record.Run{Version: 1, ID: id, Agent: "fake", Pins: record.Pins{ProfileID: profile}, Included: []record.Entry{{ScenarioID: "SC-4", Why: "selected"}}}
		require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), run))
		sdir := filepath.Join(dir, "scenarios", "SC-4")
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
		v := record.Verdict{ScenarioID: "SC-4", Status: st, Criteria: []record.Row{}}
		if st == record.Fail {
			v.Criteria = []record.Row{{CriterionID: "C1", Status: record.Fail, Confidence: "High"}}
		}
		require.NoError(t, red.WriteVerdict(sdir, &v))
	}
	write("2026-12-01T10-00-00Z", "real", record.Pass)
	write("2026-12-02T10-00-00Z", "real", record.Fail)
	write("2026-12-03T10-00-00Z", "fake", record.Pass) // the newest run is the fake's

	s := &Site{Root: root}
	row := s.agent("fake").Scenarios[0]
	assert.Equal(t, "Fail", row.Status, "the real service's Fail, not the fake's newer Pass")
	assert.Equal(t, "agent", row.Owner)
	require.Len(t, row.Profiles, 2)
	assert.Equal(t, "real", row.Profiles[0].Profile)
	assert.Equal(t, "Fail", row.Profiles[0].Status)
	assert.Len(t, row.Profiles[0].Strip, 2, "the real profile's two runs")
	assert.Equal(t, "fake", row.Profiles[1].Profile)
	assert.Equal(t, "Pass", row.Profiles[1].Status)
	assert.Len(t, row.Profiles[1].Strip, 1)
	page := render(t, s, "fake/scenario/SC-4.html")
	assert.Contains(t, page, `Newest in profile <b>real</b>: <span class="st s-fail">Fail</span>`)
	assert.Contains(t, page, `Newest in profile <b>fake</b>: <span class="st s-pass">Pass</span>`)
}
