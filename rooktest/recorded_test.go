package rooktest_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// The example's Go agent runs live (demo-go) with its spans exported by the OpenTelemetry
// Go SDK's OTLP exporter into a file, as the collector's file exporter writes; the same
// scenarios then judge the recorded conversations (demo-recorded) without calling the
// agent. Every criterion a trace can show has the live run's status; the one that reads
// collect's data, which no trace holds, is Unable to Verify, never Pass. The committed
// recording is what the agent exports today (ROOK_UPDATE_DOCS=1 writes it again).
func TestARecordedRunDecidesAsTheLiveRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example agent's suites")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	dependOnExample(t, root)
	committed := filepath.Join(root, "profiles", "helpdesk", "recorded", "helpdesk.jsonl")
	profile := filepath.Join(root, "profiles", "helpdesk", "demo-recorded.yaml")
	if os.Getenv("ROOK_UPDATE_DOCS") != "" {
		tmp := t.TempDir()
		fresh := filepath.Join(tmp, "fresh.jsonl")
		runHelpdesk(t, root, "^TestDemoGo$", tmp, fresh)
		writeRecording(t, root, fresh, committed, profile, conversationsOf(t, tmp))
	}
	tmp := t.TempDir()
	fresh := filepath.Join(tmp, "fresh.jsonl")
	runHelpdesk(t, root, "^TestDemo(Go|Recorded)$", tmp, fresh)

	runs := map[string]string{}
	for _, r := range store.ListRuns(filepath.Join(tmp, "runs"), "helpdesk") {
		runs[r.ProfileID] = r.Dir
	}
	require.Contains(t, runs, "demo-go")
	require.Contains(t, runs, "demo-recorded")
	live, replayed := statuses(t, runs["demo-go"]), statuses(t, runs["demo-recorded"])
	require.Len(t, replayed, len(live))
	same := 0
	for _, id := range slices.Sorted(maps.Keys(live)) {
		want, got := live[id], replayed[id]
		t.Logf("%-12s live %-16s recorded %s", id, want.Status, got.Status)
		if id == "SC-002/C2" { // json_path over collect's data: the session's state, in no span
			assert.Equal(t, record.UnableToVerify, got.Status, id)
			assert.Contains(t, got.Achieved, "collect", id)
			continue
		}
		if assert.Equal(t, want.Status, got.Status, "%s: live %q, recorded %q", id, want.Achieved, got.Achieved) {
			same++
		}
	}
	t.Logf("%d of %d criteria decided as the live run decided them; the other is one no trace can show", same, len(live))

	// The committed recording is the agent's spans of today, conversation by conversation.
	mapped := profileConversations(t, profile)
	for sc, conv := range conversationsOf(t, tmp) {
		assert.Equal(t, spanShapes(t, fresh, conv), spanShapes(t, committed, mapped[sc]),
			"%s: the committed recording is not what the agent exports today (ROOK_UPDATE_DOCS=1 go test ./rooktest -run TestARecordedRunDecidesAsTheLiveRun writes it)", sc)
	}
}

// runHelpdesk runs the example's suites matching pattern, with records under dir and the
// Go agent's spans exported to traces.
func runHelpdesk(t *testing.T, root, pattern, dir, traces string) {
	t.Helper()
	cmd := exec.Command("go", "test", "./scenarios/helpdesk", "-run", pattern, "-count=1", "-rook.dir="+filepath.Join(dir, "runs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HELPDESK_TRACES_FILE="+traces)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// conversationsOf are the conversations of demo-go's run under dir, by scenario.
func conversationsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range store.ListRuns(filepath.Join(dir, "runs"), "helpdesk") {
		if r.ProfileID != "demo-go" {
			continue
		}
		scs, err := filepath.Glob(filepath.Join(r.Dir, "scenarios", "SC-*"))
		require.NoError(t, err)
		for _, sc := range scs {
			h, err := store.ReadHooks(sc)
			require.NoError(t, err)
			out[filepath.Base(sc)] = h.Conversation
		}
	}
	require.NotEmpty(t, out)
	return out
}

// statuses are a run's criteria, by scenario/criterion.
func statuses(t *testing.T, run string) map[string]record.Row {
	t.Helper()
	out := map[string]record.Row{}
	dirs, err := filepath.Glob(filepath.Join(run, "scenarios", "*"))
	require.NoError(t, err)
	for _, dir := range dirs {
		v, err := store.ReadVerdict(dir)
		require.NoError(t, err, dir)
		for _, row := range v.Criteria {
			out[v.ScenarioID+"/"+row.CriterionID] = row
		}
	}
	return out
}

// spanShapes is what a conversation's spans say, without their ids and times: each span's
// name and attributes, the conversation's id and the run's canary left out.
func spanShapes(t *testing.T, file, conversation string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	type span struct {
		trace, shape string
		conv         bool
	}
	var spans []span
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(line))
		require.NoError(t, err)
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			ss := td.ResourceSpans().At(i).ScopeSpans()
			for j := 0; j < ss.Len(); j++ {
				for k := 0; k < ss.At(j).Spans().Len(); k++ {
					sp := ss.At(j).Spans().At(k)
					attrs := sp.Attributes().AsRaw()
					c, _ := attrs["gen_ai.conversation.id"].(string)
					delete(attrs, "gen_ai.conversation.id")
					shape := canaryText.ReplaceAllString(fmt.Sprint(sp.Name(), attrs), "ROOK-CANARY-x") // each run plants its own
					spans = append(spans, span{trace: sp.TraceID().String(), shape: shape, conv: c == conversation})
				}
			}
		}
	}
	ours := map[string]bool{}
	for _, s := range spans {
		if s.conv {
			ours[s.trace] = true
		}
	}
	var out []string
	for _, s := range spans {
		if ours[s.trace] {
			out = append(out, s.shape)
		}
	}
	sort.Strings(out)
	require.NotEmpty(t, out, "no span of conversation %s in %s", conversation, file)
	return out
}

var canaryText = regexp.MustCompile(`ROOK-CANARY-[0-9a-f]+`)

var conversationLine = regexp.MustCompile(`(?m)^      (SC-\d+): (\S+)$`)

// profileConversations are demo-recorded's conversations, by scenario.
func profileConversations(t *testing.T, profile string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(profile)
	require.NoError(t, err)
	out := map[string]string{}
	for _, m := range conversationLine.FindAllStringSubmatch(string(data), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// writeRecording makes the fresh recording the committed one, with its conversations in
// the profile, and generates the suite again (the profile's hash is in it).
func writeRecording(t *testing.T, root, fresh, committed, profile string, conversations map[string]string) {
	t.Helper()
	data, err := os.ReadFile(fresh)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(committed, data, 0o644))
	text, err := os.ReadFile(profile)
	require.NoError(t, err)
	updated := conversationLine.ReplaceAllStringFunc(string(text), func(line string) string {
		m := conversationLine.FindStringSubmatch(line)
		return "      " + m[1] + ": " + conversations[m[1]]
	})
	require.NoError(t, os.WriteFile(profile, []byte(updated), 0o644))
	gen := exec.Command("go", "run", "./rookgen")
	gen.Dir = root
	out, err := gen.CombinedOutput()
	require.NoError(t, err, "%s", out)
}
