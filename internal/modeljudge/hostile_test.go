package modeljudge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
	"github.com/rookgo/rookgo/internal/record"
)

// A judge server that redirects to another port of the same host does not get the API key
// sent on: the Authorization header goes to its own origin only. A password in the judge
// URL is never shown or recorded.
func TestRedirectKeepsTheKeyAtItsOrigin(t *testing.T) {
	other := fakejudge.New(nil)
	b := httptest.NewServer(other)
	t.Cleanup(b.Close)
	var first []string
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first = append(first, r.Header.Get("Authorization"))
		http.Redirect(w, r, b.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(a.Close)
	require.NotEqual(t, a.Listener.Addr(), b.Listener.Addr())
	u := strings.Replace(a.URL, "http://", "http://bob:pw-in-the-url@", 1) + "/v1"
	j := modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: u, Model: "m", APIKey: "sk-judge-key", Retries: 0})
	d := j.Decide(context.Background(), caseFor("SC-1"))
	assert.Equal(t, record.Pass, d.Results["C2"].Status, "%+v", d.Results["C2"])
	require.Equal(t, []string{"Bearer sk-judge-key"}, first)
	reqs := other.Requests("SC-1")
	require.Len(t, reqs, 1)
	assert.Empty(t, reqs[0].Auth, "the key went on to another origin")
	for _, shown := range []string{j.URL(), d.Info.URL} {
		assert.NotContains(t, shown, "pw-in-the-url")
		assert.Contains(t, shown, "bob:xxxxx@127.0.0.1")
	}
}

// A judge server that answers with JSON nested 500,000 deep (in an HTTP 500 body, retried,
// and in a 200; kept indented, each level's lines grow by two spaces), or with invalid
// UTF-8, decides nothing, and what the records keep of it is bounded, valid JSON.
func TestHostileAnswersAreBounded(t *testing.T) {
	deep := strings.Repeat("[", 500_000) + strings.Repeat("]", 500_000)
	answers := map[string]func(w http.ResponseWriter){
		"deep-500": func(w http.ResponseWriter) { http.Error(w, `{"error": `+deep+`}`, http.StatusInternalServerError) },
		"deep-200": func(w http.ResponseWriter) {
			_, _ = w.Write([]byte(`{"model": "m", "choices": [{"message": {"content": "x"}, "extra": ` + deep + `}]}`))
		},
		"deep-content": func(w http.ResponseWriter) {
			b, _ := json.Marshal(map[string]any{"model": "m", "choices": []any{map[string]any{"finish_reason": "stop",
				"message": map[string]any{"content": `{"criteria": ` + deep + `}`}}}})
			_, _ = w.Write(b)
		},
		"bad-utf8-500": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("upstream \xff\xfe said no " + strings.Repeat("\xc3", 1<<20)))
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			tries := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tries++
				answer(w)
			}))
			t.Cleanup(srv.Close)
			j := modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: srv.URL + "/v1", Model: "m", Retries: 2, Backoff: time.Millisecond})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d := j.Decide(context.Background(), caseFor("SC-1"))
			runtime.ReadMemStats(&after)
			assert.Equal(t, record.UnableToVerify, d.Results["C2"].Status)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated to judge one case")
			assert.True(t, json.Valid(d.Response), "judge-response.json is JSON")
			assert.True(t, utf8.Valid(d.Response))
			assert.Less(t, len(d.Response), tries*(300<<10)+4096, "what is kept of %d answers", tries)
		})
	}
}

// The run's secrets never reach the judge server, nor the judge cache: a secret in the
// goal is redacted from the prompt, and a key the server echoes is redacted from the
// answer the cache keeps.
func TestSecretsStayOutOfThePromptAndTheCache(t *testing.T) {
	fake := fakejudge.New(nil)
	fake.EchoAuth = true
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cache := t.TempDir()
	redact := strings.NewReplacer("tok-SECRET-123", "[redacted:TOKEN]", "sk-judge-key", "[redacted:ROOK_JUDGE_API_KEY]").Replace
	j := modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: srv.URL + "/v1", Model: "m", APIKey: "sk-judge-key", CacheDir: cache, Redact: redact})
	c := caseFor("SC-1")
	c.Goal = "Refund order ORD-1 with token tok-SECRET-123."
	d := j.Decide(context.Background(), c)
	assert.Equal(t, record.Pass, d.Results["C2"].Status, "%+v", d.Results["C2"])
	reqs := fake.Requests("SC-1")
	require.Len(t, reqs, 1)
	assert.NotContains(t, reqs[0].Prompt, "tok-SECRET-123")
	assert.Contains(t, reqs[0].Prompt, "[redacted:TOKEN]")
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	b, err := os.ReadFile(filepath.Join(cache, entries[0].Name()))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "sk-judge-key")
	assert.NotContains(t, string(b), "tok-SECRET-123")
	assert.Contains(t, string(b), "[redacted:ROOK_JUDGE_API_KEY]")
}

// A judge with no transport says so at once, without the tries and waits of a server that
// does not answer.
func TestAJudgeWithoutATransportSaysSoAtOnce(t *testing.T) {
	j := modeljudge.New(modeljudge.Config{URL: "http://127.0.0.1:9/v1", Model: "m", Retries: 5, Backoff: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := j.Decide(ctx, caseFor("SC-1"))
	require.NoError(t, ctx.Err(), "no backoff was waited")
	require.NotEmpty(t, d.Results)
	for id, r := range d.Results {
		assert.Equal(t, record.UnableToVerify, r.Status, id)
	}
	for _, r := range d.Results {
		assert.Contains(t, r.Achieved+r.Reason, "links no judge client")
	}
}
