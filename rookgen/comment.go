package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/report"
)

// commentCmd keeps one comment on the pull request (GitHub) or merge request (GitLab) the
// CI job runs for: the run's report against its baseline, created the first time and
// edited in place after, found again by a marker naming the agent and profile. Outside a
// pull request it says why and does nothing. The token is read from the CI engine's
// variables and never printed.
func commentCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen comment", flag.ContinueOnError)
	fs.SetOutput(stderr)
	choice := chooseRun(fs)
	base := fs.String("base", "", "compare with this run (default: the profile's last complete run)")
	dryRun := fs.Bool("n", false, "print the comment's body and where it would go, and post nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: rookgen comment [-run ID | -agent A [-profile P]] [-base ID] [-dir records] [-n]")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rookgen comment: %v\n", err)
		return 1
	}
	target, why := reviewTarget(os.Getenv)
	if target == nil && !*dryRun {
		fmt.Fprintf(stdout, "rookgen comment: %s: nothing posted\n", why)
		return 0
	}
	runDir, err := choice.find()
	if err != nil {
		return fail(err)
	}
	baseDir, err := baseRun(runDir, *base)
	if err != nil {
		return fail(err)
	}
	r, err := report.Build(runDir, baseDir)
	if err != nil {
		return fail(err)
	}
	var md bytes.Buffer
	err = r.Markdown(&md)
	r.Close()
	if err != nil {
		return fail(err)
	}
	marker := fmt.Sprintf("<!-- rookgo comment %s/%s -->", r.Agent, r.Profile)
	limit, link := 65536, ciRunURL()
	if target != nil {
		limit = target.limit
	}
	body := commentBody(marker, md.String(), link, limit)
	if *dryRun {
		where := "nothing (" + why + ")"
		if target != nil {
			where = target.String()
		}
		fmt.Fprintf(stdout, "rookgen comment: -n: would post to %s:\n\n%s", where, body)
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	verb, err := target.upsert(ctx, marker, body)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", target, err))
	}
	fmt.Fprintf(stdout, "rookgen comment: %s the comment on %s\n", verb, target)
	return 0
}

// commentBody is the comment: the marker that finds it again, the report's markdown, and
// the CI run's link, cut to limit bytes at a paragraph's end outside any code block, with a
// note saying so, so that a long report never leaves broken markdown.
func commentBody(marker, md, link string, limit int) string {
	tail := "\n"
	if link != "" {
		tail = "\n[The CI run](" + link + "): its artifacts hold the run's records and report.html.\n"
	}
	if len(marker)+1+len(md)+len(tail) <= limit {
		return marker + "\n" + md + tail
	}
	note := "\n*The report is cut here to fit the comment; the whole of it is report.md and report.html in the run's artifacts.*\n"
	room := limit - len(marker) - 1 - len(tail) - len(note)
	cut, fence := 0, false
	for i := 0; i < len(md); {
		end := strings.IndexByte(md[i:], '\n')
		if end < 0 {
			end = len(md) - i - 1
		}
		line := md[i : i+end+1]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		i += len(line)
		if i > room {
			break
		}
		if !fence && strings.TrimSpace(line) == "" {
			cut = i // after a blank line outside a code block: a paragraph, list or table ended
		}
	}
	return marker + "\n" + md[:cut] + note + tail
}

// review is the pull or merge request a CI job runs for, and how to reach its comments.
type review struct {
	platform string // "GitHub" or "GitLab"
	api      string // the API's base URL
	token    string // never printed
	// repo and number name the pull request (GitHub: owner/name and its number; GitLab: the
	// project's id and the merge request's iid).
	repo, number string
	limit        int // the platform's largest comment, in bytes
	client       *http.Client
}

func (r *review) String() string {
	if r.platform == "GitHub" {
		return fmt.Sprintf("GitHub pull request %s#%s", r.repo, r.number)
	}
	return fmt.Sprintf("GitLab merge request !%s of project %s", r.number, r.repo)
}

// reviewTarget is the pull or merge request this CI job runs for, from the engine's own
// variables, or nil and why there is none. GitHub: GITHUB_TOKEN (or GH_TOKEN),
// GITHUB_REPOSITORY, the pull request's number from the event file GITHUB_EVENT_PATH, and
// GITHUB_API_URL. GitLab: CI_MERGE_REQUEST_IID, CI_PROJECT_ID, CI_API_V4_URL, and a token
// that may write notes in ROOK_GITLAB_TOKEN or GITLAB_TOKEN (CI_JOB_TOKEN cannot).
func reviewTarget(getenv func(string) string) (*review, string) {
	client := &http.Client{Timeout: 30 * time.Second}
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		number, why := githubPullNumber(getenv("GITHUB_EVENT_PATH"))
		if number == "" {
			return nil, why
		}
		token := getenv("GITHUB_TOKEN")
		if token == "" {
			token = getenv("GH_TOKEN")
		}
		if token == "" {
			return nil, "GitHub Actions gave no GITHUB_TOKEN: pass it to the step (env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}, with permissions: pull-requests: write)"
		}
		api := strings.TrimSuffix(getenv("GITHUB_API_URL"), "/")
		if api == "" {
			api = "https://api.github.com"
		}
		return &review{platform: "GitHub", api: api, token: token, repo: getenv("GITHUB_REPOSITORY"), number: number, limit: 65536, client: client}, ""
	case getenv("GITLAB_CI") == "true":
		iid := getenv("CI_MERGE_REQUEST_IID")
		if iid == "" {
			return nil, "this GitLab CI job runs for no merge request (CI_MERGE_REQUEST_IID is unset: a merge request pipeline sets it)"
		}
		token := getenv("ROOK_GITLAB_TOKEN")
		if token == "" {
			token = getenv("GITLAB_TOKEN")
		}
		if token == "" {
			return nil, "no token that may write merge request notes: set ROOK_GITLAB_TOKEN (a project access token with the api scope; CI_JOB_TOKEN cannot write notes)"
		}
		return &review{platform: "GitLab", api: strings.TrimSuffix(getenv("CI_API_V4_URL"), "/"), token: token, repo: getenv("CI_PROJECT_ID"),
			number: iid, limit: 1000000, client: client}, ""
	}
	return nil, "not in a pull request's CI job (neither GitHub Actions nor GitLab CI)"
}

// githubPullNumber is the pull request's number from GitHub's event file, or "" and why.
func githubPullNumber(path string) (string, string) {
	if path == "" {
		return "", "GitHub Actions gave no event file (GITHUB_EVENT_PATH)"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Sprintf("the event file does not read: %v", err)
	}
	var event struct {
		PullRequest *struct {
			Number int `json:"number"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(data, &event); err != nil {
		return "", fmt.Sprintf("the event file is not JSON: %v", err)
	}
	if event.PullRequest == nil || event.PullRequest.Number <= 0 {
		return "", "this GitHub Actions run is not for a pull request (its event holds no pull_request)"
	}
	return strconv.Itoa(event.PullRequest.Number), ""
}

// upsert edits the comment that holds marker, or creates one, and says which it did.
func (r *review) upsert(ctx context.Context, marker, body string) (string, error) {
	id, err := r.find(ctx, marker)
	if err != nil {
		return "", err
	}
	switch {
	case r.platform == "GitHub" && id == "":
		return "created", r.call(ctx, http.MethodPost, fmt.Sprintf("/repos/%s/issues/%s/comments", r.repo, r.number), body, nil, nil)
	case r.platform == "GitHub":
		return "updated", r.call(ctx, http.MethodPatch, fmt.Sprintf("/repos/%s/issues/comments/%s", r.repo, id), body, nil, nil)
	case id == "":
		return "created", r.call(ctx, http.MethodPost, fmt.Sprintf("/projects/%s/merge_requests/%s/notes", url.PathEscape(r.repo), r.number), body, nil, nil)
	}
	return "updated", r.call(ctx, http.MethodPut, fmt.Sprintf("/projects/%s/merge_requests/%s/notes/%s", url.PathEscape(r.repo), r.number, id), body, nil, nil)
}

// maxCommentPages bounds the pages of comments read looking for ours: 100 a page.
const maxCommentPages = 50

// find is the id of the comment that holds marker, "" when none does.
func (r *review) find(ctx context.Context, marker string) (string, error) {
	path := fmt.Sprintf("/repos/%s/issues/%s/comments?per_page=100", r.repo, r.number)
	if r.platform == "GitLab" {
		path = fmt.Sprintf("/projects/%s/merge_requests/%s/notes?per_page=100&sort=asc", url.PathEscape(r.repo), r.number)
	}
	for page := 1; page <= maxCommentPages; page++ {
		var comments []struct {
			ID   json.Number `json:"id"`
			Body string      `json:"body"`
		}
		var header http.Header
		if err := r.call(ctx, http.MethodGet, path+"&page="+strconv.Itoa(page), "", &comments, &header); err != nil {
			return "", err
		}
		for _, c := range comments {
			if strings.HasPrefix(c.Body, marker) {
				return c.ID.String(), nil
			}
		}
		if len(comments) < 100 && !strings.Contains(header.Get("Link"), `rel="next"`) && header.Get("X-Next-Page") == "" {
			return "", nil
		}
	}
	return "", fmt.Errorf("no comment of ours among the first %d pages of comments", maxCommentPages)
}

// call sends one API request with the body as the comment's body (when not ""), and
// decodes the JSON answer into out (when not nil). An error names the method, the path
// and the status with the answer's first line, escaped, and never the token.
func (r *review) call(ctx context.Context, method, path, body string, out any, header *http.Header) error {
	var payload io.Reader
	if body != "" {
		b, _ := json.Marshal(map[string]string{"body": body})
		payload = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.api+path, payload)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if r.platform == "GitHub" {
		req.Header.Set("Authorization", "Bearer "+r.token)
		req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	} else {
		req.Header.Set("PRIVATE-TOKEN", r.token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), r.token, "[token]"))
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		first, _, _ := strings.Cut(strings.ReplaceAll(string(data), r.token, "[token]"), "\n")
		return fmt.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, quoteOutput(first, 200))
	}
	if header != nil {
		*header = resp.Header
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, path, err)
		}
	}
	return nil
}
