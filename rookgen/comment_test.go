package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/testkit"
)

// reviewAPI is a fake of GitHub's issue comments and GitLab's merge request notes: it
// checks every request's token, path and body, pages its list of comments two at a time,
// and keeps what it was sent.
type reviewAPI struct {
	t        *testing.T
	gitlab   bool
	token    string
	mu       sync.Mutex
	comments []map[string]any
	created  int
	edited   int
}

func (a *reviewAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list, one := "/repos/acme/shop/issues/7/comments", "/repos/acme/shop/issues/comments/"
	auth := r.Header.Get("Authorization") == "Bearer "+a.token
	if a.gitlab {
		list, one = "/api/v4/projects/42/merge_requests/9/notes", "/api/v4/projects/42/merge_requests/9/notes/"
		auth = r.Header.Get("PRIVATE-TOKEN") == a.token
	}
	if !auth {
		http.Error(w, `{"message": "Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	var in struct{ Body string }
	if r.Method == http.MethodPost || r.Method == http.MethodPatch || r.Method == http.MethodPut {
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
			http.Error(w, `{"message": "no body"}`, http.StatusUnprocessableEntity)
			return
		}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == list:
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		from, to := min((page-1)*2, len(a.comments)), min(page*2, len(a.comments))
		if to < len(a.comments) {
			if a.gitlab {
				w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
			} else {
				w.Header().Set("Link", fmt.Sprintf(`<%s?page=%d>; rel="next"`, list, page+1))
			}
		}
		_ = json.NewEncoder(w).Encode(a.comments[from:to])
	case r.Method == http.MethodPost && r.URL.Path == list:
		a.created++
		a.comments = append(a.comments, map[string]any{"id": 1000 + len(a.comments), "body": in.Body})
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(a.comments[len(a.comments)-1])
	case (r.Method == http.MethodPatch && !a.gitlab || r.Method == http.MethodPut && a.gitlab) && strings.HasPrefix(r.URL.Path, one):
		id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, one))
		for _, c := range a.comments {
			if c["id"] == id {
				c["body"] = in.Body
				a.edited++
				_ = json.NewEncoder(w).Encode(c)
				return
			}
		}
		http.NotFound(w, r)
	default:
		a.t.Errorf("unexpected %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

// rookgen comment keeps one comment per pull request (GitHub) and merge request (GitLab):
// the first run creates it after other people's comments, on a later page; the second
// finds it by its marker and edits it; the body is the run's report and the CI run's link;
// the token is sent and never printed.
func TestCommentIsCreatedThenUpdated(t *testing.T) {
	root := t.TempDir()
	testkit.WriteRun(t, filepath.Join(root, "fake", "2026-12-05T10-00-00Z"), "2026-12-05T10-00-00Z",
		map[string]record.Verdict{"SC-1": {Status: record.Pass}, "SC-2": {Status: record.Fail}})
	const token = "ghs_tok3n-that-must-not-print"
	for _, gitlab := range []bool{false, true} {
		name := map[bool]string{false: "GitHub", true: "GitLab"}[gitlab]
		t.Run(name, func(t *testing.T) {
			api := &reviewAPI{t: t, gitlab: gitlab, token: token}
			for i := range 3 {
				api.comments = append(api.comments, map[string]any{"id": 10 + i, "body": "LGTM " + strconv.Itoa(i)})
			}
			srv := httptest.NewServer(api)
			defer srv.Close()
			var env map[string]string
			if gitlab {
				env = map[string]string{"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "9", "CI_PROJECT_ID": "42",
					"CI_API_V4_URL": srv.URL + "/api/v4", "ROOK_GITLAB_TOKEN": token, "CI_JOB_URL": "https://gitlab.example/acme/shop/-/jobs/5"}
			} else {
				event := filepath.Join(t.TempDir(), "event.json")
				require.NoError(t, os.WriteFile(event, []byte(`{"pull_request": {"number": 7}}`), 0o644))
				env = map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": "acme/shop",
					"GITHUB_API_URL": srv.URL, "GITHUB_TOKEN": token, "GITHUB_SERVER_URL": "https://github.example", "GITHUB_RUN_ID": "77"}
			}
			for _, k := range []string{"GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_RUN_ID", "CI_JOB_URL"} {
				t.Setenv(k, "")
			}
			for k, v := range env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run([]string{"comment", "-dir", root}, &stdout, &stderr), stderr.String())
			assert.Contains(t, stdout.String(), "rookgen comment: created the comment on "+name)
			require.Equal(t, 0, run([]string{"comment", "-dir", root}, &stdout, &stderr), stderr.String())
			assert.Contains(t, stdout.String(), "rookgen comment: updated the comment on "+name)
			assert.Equal(t, 1, api.created, "one comment")
			assert.Equal(t, 1, api.edited, "edited in place")
			require.Len(t, api.comments, 4)
			body := api.comments[3]["body"].(string)
			assert.True(t, strings.HasPrefix(body, "<!-- rookgo comment fake/p -->\n"), body)
			assert.Contains(t, body, "## rook run 2026-12-05T10-00-00Z: fake / p")
			assert.Contains(t, body, "**1 failed**")
			if gitlab {
				assert.Contains(t, body, "[The CI run](https://gitlab.example/acme/shop/-/jobs/5)")
			} else {
				assert.Contains(t, body, "[The CI run](https://github.example/acme/shop/actions/runs/77)")
			}
			assert.NotContains(t, stdout.String()+stderr.String(), token)

			// A refused token is said with the API's answer, and the token is not printed.
			api.token = "another"
			stdout.Reset()
			stderr.Reset()
			assert.Equal(t, 1, run([]string{"comment", "-dir", root}, &stdout, &stderr))
			assert.Contains(t, stderr.String(), "answered 401")
			assert.NotContains(t, stdout.String()+stderr.String(), token)
		})
	}
}

// Outside a pull request (a push build, a GitLab branch pipeline, no CI at all) comment
// says why and exits 0, posting nothing.
func TestCommentOutsideAPullRequest(t *testing.T) {
	event := filepath.Join(t.TempDir(), "push.json")
	require.NoError(t, os.WriteFile(event, []byte(`{"ref": "refs/heads/main"}`), 0o644))
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "not in a pull request's CI job"},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": event}, "this GitHub Actions run is not for a pull request"},
		{map[string]string{"GITLAB_CI": "true"}, "this GitLab CI job runs for no merge request"},
		{map[string]string{"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "9"}, "set ROOK_GITLAB_TOKEN"},
	} {
		for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITLAB_CI", "CI_MERGE_REQUEST_IID", "ROOK_GITLAB_TOKEN", "GITLAB_TOKEN"} {
			t.Setenv(k, tc.env[k])
		}
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 0, run([]string{"comment", "-dir", t.TempDir()}, &stdout, &stderr), stderr.String())
		assert.Contains(t, stdout.String(), tc.want)
		assert.Contains(t, stdout.String(), "nothing posted")
	}
}

// A body over the platform's limit is cut at a paragraph's end outside any code block,
// with a note; it never ends inside a fence or a table.
func TestCommentBodyIsCutCleanly(t *testing.T) {
	var md strings.Builder
	md.WriteString("## rook run\n\n**headline**\n\n| a | b |\n|---|---|\n")
	for i := range 200 {
		fmt.Fprintf(&md, "| row %d | value |\n", i)
	}
	md.WriteString("\n```\n")
	for i := range 200 {
		fmt.Fprintf(&md, "code line %d\n", i)
	}
	md.WriteString("```\n\n- the end\n")
	marker := "<!-- rookgo comment a/p -->"
	whole := commentBody(marker, md.String(), "", 1<<20)
	assert.Equal(t, marker+"\n"+md.String()+"\n", whole, "under the limit: whole")
	for _, limit := range []int{300, 3000, 6000} {
		body := commentBody(marker, md.String(), "https://ci.example/run/1", limit)
		assert.LessOrEqual(t, len(body), limit)
		assert.Contains(t, body, "The report is cut here to fit the comment")
		assert.Equal(t, 0, strings.Count(body, "```")%2, "no code block left open at %d", limit)
		before, _, _ := strings.Cut(body, "\n*The report is cut here")
		assert.True(t, strings.HasSuffix(before, "\n\n"), "cut after a blank line at %d: %q", limit, before[max(0, len(before)-40):])
		assert.Contains(t, body, "[The CI run](https://ci.example/run/1)")
	}
}
