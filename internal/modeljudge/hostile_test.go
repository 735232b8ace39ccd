package modeljudge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
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
	j := modeljudge.New(modeljudge.Config{URL: u, Model: "m", APIKey: "sk-judge-key", Retries: 0})
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
