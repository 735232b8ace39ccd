package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
	"github.com/rookgo/rookgo/rookgen/internal/draft"
	"github.com/rookgo/rookgo/rookgen/internal/scaffold"
)

// fromFlags are init's flags for a profile drafted from what a team already has.
type fromFlags struct {
	from, prompt, server, operation string
	noProbe                         bool
}

func (f fromFlags) set() bool { return f.from != "" || f.prompt != "" }

// alone refuses --from or --prompt given with another way to reach the agent (other), and
// their own flags given without them.
func (f fromFlags) alone(other bool) error {
	switch {
	case !f.set() && (f.server != "" || f.operation != "" || f.noProbe):
		return errors.New("--server, --operation and --no-probe go with --from or --prompt")
	case f.set() && other:
		return errors.New("give --from or --prompt alone, not with --curl, --command or --go")
	}
	return nil
}

// draftOptions reads the source of --from or --prompt into the request init --curl takes,
// says what it understood, and sets opts as --curl and its paths would. A path given by
// its own flag wins over the drafted one.
func draftOptions(f fromFlags, opts *scaffold.Options, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := draft.Options{Agent: opts.Agent, Server: f.server, Operation: f.operation, Model: draftModel()}
	var d *draft.Draft
	var err error
	name := f.from
	switch {
	case f.from != "" && f.prompt != "":
		return fmt.Errorf("give --from or --prompt, not both")
	case f.prompt != "":
		name = "the prompt"
		d, err = draft.FromText(ctx, name, f.prompt, o)
	default:
		var data []byte
		var mediaType string
		if data, mediaType, err = draft.Load(ctx, f.from); err != nil {
			return err
		}
		var structured bool
		if d, structured, err = draft.Read(f.from, data, o); !structured {
			d, err = draft.FromText(ctx, f.from, draft.Text(data, mediaType), o)
		}
	}
	if err != nil {
		return err
	}
	// What the source wrote is data: a placeholder of its own ({{env:GITHUB_TOKEN}} in an
	// example) is sent as text, never filled from the user's environment.
	// Nor does a variable it names become one the hook reads: only those the draft named.
	if opts.Curl, err = scaffold.ParseDrafted(opts.Agent, scaffold.Literal(d.Curl), d.Vars); err == nil {
		err = draft.Leak(opts.Curl)
	}
	if err != nil {
		return fmt.Errorf("the request read from %s: %w", name, err)
	}
	for _, p := range []struct{ flag, drafted *string }{{&opts.Reply, &d.Reply}, {&opts.Conversation, &d.Conversation},
		{&opts.Calls, &d.Calls}, {&opts.Usage, &d.Usage}} {
		if *p.flag == "" {
			*p.flag = *p.drafted
		}
	}
	printDraft(stdout, name, d, *opts)
	return nil
}

// draftModel is the server that reads free text: ROOK_DRAFT_*, else the judge's.
func draftModel() *draft.Model {
	get := func(draft, judge string) string {
		if v := os.Getenv(draft); v != "" {
			return v
		}
		return os.Getenv(judge)
	}
	return &draft.Model{URL: get("ROOK_DRAFT_URL", "ROOK_JUDGE_URL"), Name: get("ROOK_DRAFT_MODEL", "ROOK_JUDGE_MODEL"),
		APIKey: get("ROOK_DRAFT_API_KEY", "ROOK_JUDGE_API_KEY"), Transport: judgehttp.New(), Timeout: 2 * time.Minute}
}

// printDraft says what init understood, before it writes anything: the request as the
// hook will send it (credentials as the variables they are read from), the response's
// paths, and why.
func printDraft(w io.Writer, name string, d *draft.Draft, opts scaffold.Options) {
	r := opts.Curl
	fmt.Fprintf(w, "read %s: %s\n", shown(name, 300), shown(d.Kind, 200))
	fmt.Fprintf(w, "  request:      %s %s\n", shown(r.Method, 20), shown(r.URL, 400))
	for _, h := range r.Headers {
		fmt.Fprintf(w, "  header:       %s: %s\n", shown(h.Name, 100), shown(h.Value, 300))
	}
	if r.Body != "" {
		fmt.Fprintf(w, "  body:         %s\n", shown(r.Body, 600))
	}
	for _, p := range []struct{ name, path string }{{"reply", opts.Reply}, {"conversation", opts.Conversation}, {"calls", opts.Calls}, {"usage", opts.Usage}} {
		if p.path == "" {
			p.path = "(none)"
		}
		fmt.Fprintf(w, "  %-13s %s\n", p.name+":", shown(p.path, 200))
	}
	for _, s := range r.Secrets {
		fmt.Fprintf(w, "  credential:   $%s (%s)\n", s.Env, s.Purpose)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "  - %s\n", shown(n, 600))
	}
	fmt.Fprintln(w)
}

// verifyDrafted probes the profile init just wrote. One whose probe failed, or could not
// run, keeps a NOT VERIFIED header saying why, and init exits 1.
func verifyDrafted(root string, opts scaffold.Options, gen string, stdout, stderr io.Writer) int {
	target := opts.Agent + "/" + opts.Profile
	again := gen + " probe " + target
	fmt.Fprintf(stdout, "\nverifying: %s\n", again)
	p, rep, err := probeProfile(root, opts.Agent, opts.Profile, stdout)
	why := ""
	switch {
	case err != nil:
		why = err.Error()
	case !rep.OK():
		why = secretsOf(p).Text(probeFailures(rep)) // the header and the output never hold a secret the agent echoed
	}
	if why == "" {
		fmt.Fprintf(stdout, "\nverified: the agent answered the probe through profile %s\n", target)
		return 0
	}
	path := filepath.Join(root, "profiles", opts.Agent, opts.Profile+".yaml")
	if err := markUnverified(path, why, again); err != nil {
		fmt.Fprintf(stderr, "rookgen init: %v\n", err)
		return 1
	}
	if err := regenerate(root, io.Discard); err != nil {
		fmt.Fprintf(stderr, "rookgen init: %v\n", err)
	}
	first, _, _ := strings.Cut(why, "\n")
	fmt.Fprintf(stderr, "rookgen init: profiles/%s/%s.yaml is written but NOT VERIFIED, as its header says: %s\nfix it, then run %s\n",
		opts.Agent, opts.Profile, shown(first, 300), again)
	return 1
}

// probeFailures says what each failed phase of a probe did wrong: its fixes, which quote
// the hook, or else its error.
func probeFailures(rep *probeReport) string {
	var lines []string
	for _, ph := range rep.Phases {
		switch {
		case ph.OK():
		case len(ph.Fixes) > 0:
			for _, f := range ph.Fixes {
				lines = append(lines, string(ph.Phase)+": "+f)
			}
		case ph.Result != nil && strings.TrimSpace(ph.Result.Stderr) != "":
			lines = append(lines, fmt.Sprintf("%s: %v (stderr: %s)", ph.Phase, ph.Err, lastLine(ph.Result.Stderr)))
		default:
			lines = append(lines, fmt.Sprintf("%s: %v", ph.Phase, ph.Err))
		}
	}
	if len(lines) == 0 {
		return "no hook was called"
	}
	return strings.Join(lines, "\n")
}

// shown is text from a source, a model or a hook as it is printed: as it is when every
// character is a graphic one, else quoted (no terminal escapes), and cut to n bytes.
func shown(s string, n int) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) }) >= 0 {
		return quoteOutput(s, n)
	}
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// lastLine is the last line of what a hook printed, escaped and cut (quoteOutput).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return quoteOutput(strings.TrimSpace(lines[len(lines)-1]), 300)
}
