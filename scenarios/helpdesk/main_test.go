package helpdesk_test

import (
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/rookgo/rookgo/internal/fakejudge"
)

// TestMain keeps a bare go test ./... green in this repository, as the Makefile's targets
// are: the example agent's key is given a demo value when none is set, and demo-broken and
// demo-leaky, the twins that fail on purpose, run only when HELPDESK_DEMO_BROKEN=1 (make
// junit sets it). A suite of your own needs neither: its keys are real, and all its profiles run.
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("HELPDESK_API_KEY") == "" {
		_ = os.Setenv("HELPDESK_API_KEY", "helpdesk-demo-key") // a valid name and value
	}
	if os.Getenv("HELPDESK_DEMO_BROKEN") != "1" {
		skip := "^TestDemo(Broken|Leaky)$"
		if cur := flag.Lookup("test.skip").Value.String(); cur != "" {
			skip = cur + "|" + skip
		}
		if err := flag.Set("test.skip", skip); err != nil {
			fmt.Fprintln(os.Stderr, "helpdesk: skip the failing twins:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "helpdesk: TestDemoBroken and TestDemoLeaky are not run: they fail on purpose; HELPDESK_DEMO_BROKEN=1 runs them (make junit does)")
	}
	stop := scriptedUser()
	code := m.Run()
	stop()
	os.Exit(code)
}

// scriptedUser plays SC-007's simulated user when no model is configured for it
// (ROOK_USER_URL, or the judge's ROOK_JUDGE_URL): a chat-completions server on 127.0.0.1
// that answers the simulated user's protocol from a script, so that go test ./... is green
// without a model. With a model configured, the model plays it.
func scriptedUser() (stop func()) {
	if os.Getenv("ROOK_USER_URL") != "" || os.Getenv("ROOK_JUDGE_URL") != "" {
		return func() {}
	}
	fake := fakejudge.New(map[string]string{"SC-007": fakejudge.UserPrefix +
		"send Hi, I have a problem with something I bought. | send It's order ORD-1001. | send I'd like a refund for it, please. | done the agent issued the refund"})
	fake.Model = "scripted-user"
	srv := httptest.NewServer(fake)
	_ = os.Setenv("ROOK_USER_URL", srv.URL+"/v1")
	_ = os.Setenv("ROOK_USER_MODEL", "scripted-user")
	fmt.Fprintln(os.Stderr, "helpdesk: SC-007's simulated user is scripted (no ROOK_USER_URL or ROOK_JUDGE_URL is set)")
	return srv.Close
}
