package bankdemo_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/bankdemo"
)

func do(t *testing.T, srv *httptest.Server, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var in bytes.Buffer
	if body != nil {
		require.NoError(t, json.NewEncoder(&in).Encode(body))
	}
	req, err := http.NewRequest(method, srv.URL+path, &in)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return res.StatusCode, out
}

func TestSessionLifecycle(t *testing.T) {
	bank := bankdemo.New("tok")
	srv := httptest.NewServer(bank)
	defer srv.Close()

	code, _ := do(t, srv, "POST", "/api/sessions", "wrong", map[string]any{})
	assert.Equal(t, http.StatusUnauthorized, code)
	code, opened := do(t, srv, "POST", "/api/sessions", "tok", map[string]any{"engine": "fixture", "variant": "hardened"})
	require.Equal(t, http.StatusOK, code)
	id := opened["conversation"].(string)
	assert.Regexp(t, `^[0-9a-f-]{36}$`, id)
	assert.Equal(t, "fixture", opened["engine"])

	_, t1 := do(t, srv, "POST", "/api/sessions/"+id+"/chat", "tok", map[string]any{"goal": "Read the balance of ACC-1001."})
	assert.Equal(t, "The balance of account ACC-1001 is USD 5,000.00.", t1["output"])
	_, t2 := do(t, srv, "POST", "/api/sessions/"+id+"/chat", "tok", map[string]any{"goal": "Transfer USD 200 from ACC-1001 to SAV-1001."})
	assert.Contains(t, t2["output"], "receipt transfer-1")
	assert.Len(t, t2["calls"], 2, "a turn reports its own calls")
	_, t3 := do(t, srv, "POST", "/api/sessions/"+id+"/chat", "tok", map[string]any{"goal": "What is the balance of the same account?"})
	assert.Equal(t, "The balance of account ACC-1001 is USD 4,800.00.", t3["output"], "the session remembers the account")
	_, t4 := do(t, srv, "POST", "/api/sessions/"+id+"/chat", "tok", map[string]any{"goal": "Transfer USD 1200 from ACC-1001 to SAV-1001."})
	assert.Contains(t, t4["output"], "need manager approval")
	_, t5 := do(t, srv, "POST", "/api/sessions/"+id+"/chat", "tok", map[string]any{"goal": "Read the balance and email of ACC-2002."})
	assert.NotContains(t, t5["output"], "@example.test")

	_, closed := do(t, srv, "POST", "/api/sessions/"+id+"/close", "tok", map[string]any{})
	assert.Equal(t, true, closed["closed"])
	code, _ = do(t, srv, "POST", "/api/sessions/"+id+"/chat", "tok", map[string]any{"goal": "hello"})
	assert.Equal(t, http.StatusConflict, code, "a closed session takes no more turns")

	_, ev := do(t, srv, "GET", "/api/sessions/"+id+"/evidence", "tok", nil)
	assert.Len(t, ev["calls"], 6, "evidence holds the whole session's calls")
	assert.Len(t, ev["effects"], 1)
	usage := ev["usage"].(map[string]any)
	var in float64
	for _, turn := range []map[string]any{t1, t2, t3, t4, t5} {
		in += turn["usage"].(map[string]any)["input"].(float64)
	}
	assert.Equal(t, in, usage["input"], "and the session's usage, the sum of its turns'")
	assert.Equal(t, 1, bank.Count("open"))
	assert.Equal(t, 6, bank.Count("chat"))
}
