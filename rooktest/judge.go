package rooktest

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

// init registers the model judge's flags. Each takes its environment variable when not
// given: ROOK_JUDGE_* for the judge, ROOKTEST_MIN_CONFIDENCE for the threshold.
func init() {
	flag.String("rook.judge-url", "", "base URL of an OpenAI-compatible chat-completions server that decides llm_judge criteria, or none for a run without a judge on purpose (ROOK_JUDGE_URL)")
	flag.String("rook.judge-model", "", "the judge model (ROOK_JUDGE_MODEL)")
	flag.String("rook.judge-api-key", "", "the judge server's API key, if it needs one; redacted everywhere (ROOK_JUDGE_API_KEY)")
	flag.Duration("rook.judge-timeout", 0, "bound on each judge request (ROOK_JUDGE_TIMEOUT; default 2m)")
	flag.Int("rook.judge-retries", -1, "retries of a judge request after 429, 5xx or a lost connection (ROOK_JUDGE_RETRIES; default 3)")
	flag.Int("rook.judge-budget", 0, "bytes of a scenario's record sent to the judge (ROOK_JUDGE_BUDGET; default 65536)")
	flag.String("rook.judge-preflight", "", "on or off: ask the judge one question with a certain answer before the run's first judged criterion (ROOK_JUDGE_PREFLIGHT; default on)")
	flag.String("rook.judge-cache", "", "on or off: reuse the judge's answer to an unchanged prompt (ROOK_JUDGE_CACHE; default on)")
	flag.Int("rook.judge-samples", 0, "answers to ask the judge for each request, odd: a criterion takes the status most of them gave, and a split is Unable to Verify (ROOK_JUDGE_SAMPLES; default 1)")
	flag.String("rook.judge-panel", "", "a panel of judges in place of one: MODEL@URL entries, separated by spaces or commas; member n's key is ROOK_JUDGE_API_KEY_n, else ROOK_JUDGE_API_KEY (ROOK_JUDGE_PANEL)")
	flag.String("rook.judge-panel-rule", "", "majority (more than half of the members still in; a tie is Unable to Verify) or unanimous (ROOK_JUDGE_PANEL_RULE; default majority)")
	flag.String("rook.user-url", "", "base URL of the OpenAI-compatible server whose model plays simulated users (ROOK_USER_URL; default the judge's)")
	flag.String("rook.user-model", "", "the model that plays simulated users (ROOK_USER_MODEL; default the judge's)")
	flag.String("rook.user-api-key", "", "the simulated users' server's API key, redacted everywhere (ROOK_USER_API_KEY; default the judge's)")
	flag.Int("rook.judge-audit", 0, "percent of judge requests to ask again with the agent's evidence removed: a judge that still answers Pass or Fail there is guessing, and every row it decides in the run is marked judge_guessed (ROOK_JUDGE_AUDIT; default 0)")
	flag.String("rook.judge-mode", "", "one or commit: commit asks every request first with the agent's replies withheld, and a criterion the replies turn from Pass to Fail or back is Unable to Verify; it doubles the judge's requests where the record holds calls or collected evidence (ROOK_JUDGE_MODE; default one)")
	flag.Float64("rook.min-agreement", 0, "0 to 1: judged rows of a criterion whose judge agrees with people (labels/<agent>.yaml) less often, or was never labelled, are Unable to Verify (ROOKTEST_MIN_AGREEMENT; default off)")
	flag.String("rook.min-confidence", "", "High, Medium or Low: judged rows below it are Unable to Verify (ROOKTEST_MIN_CONFIDENCE; default Low)")
}

// judgeOptions is the model judge as the flags and environment configure it.
type judgeOptions struct {
	cfg modeljudge.Config
	// user is the model that plays simulated users: ROOK_USER_*, else the judge's.
	user          modeljudge.Config
	none          bool // ROOK_JUDGE_URL=none: no judge, on purpose
	minConfidence string
	minAgreement  float64
}

// readJudgeOptions reads the model judge's flags and settings from s (readConfig).
func readJudgeOptions(s settings) (judgeOptions, error) {
	o := judgeOptions{cfg: modeljudge.Config{
		URL:    s.value("rook.judge-url", "ROOK_JUDGE_URL"),
		Model:  s.value("rook.judge-model", "ROOK_JUDGE_MODEL"),
		APIKey: s.value("rook.judge-api-key", "ROOK_JUDGE_API_KEY"),
	}}
	var as string
	switch o.minConfidence, as = s.get("rook.min-confidence", ""); o.minConfidence {
	case "":
		o.minConfidence = "Low"
	case "High", "Medium", "Low":
	default:
		return o, fmt.Errorf("%s=%q: want High, Medium or Low", as, o.minConfidence)
	}
	var err error
	if o.cfg.Timeout, err = duration(s.get("rook.judge-timeout", "ROOK_JUDGE_TIMEOUT")); err != nil {
		return o, err
	}
	o.cfg.Retries = 3
	if v, as := s.get("rook.judge-retries", "ROOK_JUDGE_RETRIES"); v != "" {
		if o.cfg.Retries, err = strconv.Atoi(v); err != nil || o.cfg.Retries < 0 {
			return o, fmt.Errorf("%s=%q: want 0 or more retries", as, v)
		}
	}
	if v, as := s.get("rook.judge-budget", "ROOK_JUDGE_BUDGET"); v != "" && v != "0" {
		if o.cfg.Budget, err = strconv.Atoi(v); err != nil || o.cfg.Budget < 1024 {
			return o, fmt.Errorf("%s=%q: want a number of bytes, at least 1024", as, v)
		}
	}
	if v, as := s.get("rook.min-agreement", ""); v != "" && v != "0" {
		if o.minAgreement, err = strconv.ParseFloat(v, 64); err != nil || o.minAgreement <= 0 || o.minAgreement > 1 {
			return o, fmt.Errorf("%s=%q: want a share of agreement above 0 and at most 1, such as 0.9", as, v)
		}
	}
	if v, as := s.get("rook.judge-samples", "ROOK_JUDGE_SAMPLES"); v != "" && v != "0" {
		if o.cfg.Samples, err = strconv.Atoi(v); err != nil || o.cfg.Samples < 1 || o.cfg.Samples%2 == 0 || o.cfg.Samples > 15 {
			return o, fmt.Errorf("%s=%q: want an odd number from 1 to 15, so that a majority exists", as, v)
		}
	}
	if v, as := s.get("rook.judge-audit", "ROOK_JUDGE_AUDIT"); v != "" && v != "0" {
		if o.cfg.Audit, err = strconv.Atoi(strings.TrimSuffix(v, "%")); err != nil || o.cfg.Audit < 0 || o.cfg.Audit > 100 {
			return o, fmt.Errorf("%s=%q: want a percentage of requests from 0 to 100", as, v)
		}
	}
	switch v, as := s.get("rook.judge-mode", "ROOK_JUDGE_MODE"); strings.ToLower(v) {
	case "", modeljudge.ModeOne:
	case modeljudge.ModeCommit:
		o.cfg.Mode = modeljudge.ModeCommit
	default:
		return o, fmt.Errorf("%s=%q: want %s (one request) or %s (the replies withheld first)", as, v, modeljudge.ModeOne, modeljudge.ModeCommit)
	}
	if o.cfg.Preflight, err = onOff(s.get("rook.judge-preflight", "ROOK_JUDGE_PREFLIGHT")); err != nil {
		return o, err
	}
	cache, err := onOff(s.get("rook.judge-cache", "ROOK_JUDGE_CACHE"))
	if err != nil {
		return o, err
	}
	if cache {
		o.cfg.CacheDir = "on" // made a path under the records root by judgeFor
	}
	o.user = o.cfg
	o.user.URL = cmp.Or(s.value("rook.user-url", "ROOK_USER_URL"), o.cfg.URL)
	o.user.Model = cmp.Or(s.value("rook.user-model", "ROOK_USER_MODEL"), o.cfg.Model)
	o.user.APIKey = cmp.Or(s.value("rook.user-api-key", "ROOK_USER_API_KEY"), o.cfg.APIKey)
	o.user.Samples, o.user.Audit, o.user.Preflight, o.user.Mode = 1, 0, false, "" // it plays the user: it is not judged
	if strings.EqualFold(o.user.URL, "none") {
		o.user.URL, o.user.Model, o.user.APIKey = "", "", ""
	}
	if err := readPanel(s, &o.cfg); err != nil {
		return o, err
	}
	if strings.EqualFold(o.cfg.URL, "none") { // no judge, on purpose
		o.none, o.cfg.URL, o.cfg.Model, o.cfg.APIKey = true, "", "", ""
	}
	switch {
	case o.cfg.URL != "" && o.cfg.Model == "":
		return o, fmt.Errorf("a judge URL (%s) needs a model: set ROOK_JUDGE_MODEL or -rook.judge-model", o.cfg.URL)
	case o.cfg.URL == "" && o.cfg.Model != "":
		return o, fmt.Errorf("a judge model (%s) needs a server: set ROOK_JUDGE_URL or -rook.judge-url", o.cfg.Model)
	case (o.user.URL == "") != (o.user.Model == ""):
		return o, fmt.Errorf("the simulated user's server and model go together: set ROOK_USER_URL and ROOK_USER_MODEL (or the judge's)")
	}
	return o, nil
}

// readPanel reads a panel of judges (ROOK_JUDGE_PANEL, ROOK_JUDGE_PANEL_RULE) into cfg.
// A panel stands in for ROOK_JUDGE_URL and ROOK_JUDGE_MODEL, which must then be unset; the
// other judge settings apply to every member.
func readPanel(s settings, cfg *modeljudge.Config) error {
	text, as := s.get("rook.judge-panel", "ROOK_JUDGE_PANEL")
	rule, ruleAs := s.get("rook.judge-panel-rule", "ROOK_JUDGE_PANEL_RULE")
	if text == "" {
		if rule != "" {
			return fmt.Errorf("%s=%s needs a panel: set ROOK_JUDGE_PANEL", ruleAs, rule)
		}
		return nil
	}
	if cfg.URL != "" || cfg.Model != "" {
		return fmt.Errorf("%s names a panel of judges, and ROOK_JUDGE_URL or ROOK_JUDGE_MODEL one judge: set one or the other", as)
	}
	switch rule {
	case "", modeljudge.RuleMajority, modeljudge.RuleUnanimous:
		cfg.Rule = rule
	default:
		return fmt.Errorf("%s=%q: want majority or unanimous", ruleAs, rule)
	}
	entries := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' })
	for i, e := range entries {
		at := strings.LastIndex(e, "@http")
		if at <= 0 {
			return fmt.Errorf("%s: member %d (%q) is not MODEL@URL, such as qwen3:8b@http://127.0.0.1:11434/v1", as, i+1, e)
		}
		key := s.getenv(fmt.Sprintf("ROOK_JUDGE_API_KEY_%d", i+1))
		if key == "" {
			key = cfg.APIKey
		}
		cfg.Panel = append(cfg.Panel, modeljudge.Member{Model: e[:at], URL: e[at+1:], APIKey: key})
	}
	if len(cfg.Panel) < 2 {
		return fmt.Errorf("%s names %d judge: a panel has two or more (one judge is ROOK_JUDGE_URL and ROOK_JUDGE_MODEL)", as, len(cfg.Panel))
	}
	cfg.URL, cfg.Model = "panel", "panel" // configured: every member is asked
	return nil
}

// userFor is the model that plays the run's simulated users, nil when none is configured.
func (o judgeOptions) userFor(recordsRoot string, redact func(string) string) *modeljudge.Judge {
	return client(o.user, recordsRoot, redact, nil)
}

// judgeFor is the run's judge, nil when none is configured.
func (o judgeOptions) judgeFor(recordsRoot string, redact func(string) string, limit *ratelimit.Limiter) *modeljudge.Judge {
	return client(o.cfg, recordsRoot, redact, limit)
}

// client is a model reached as cfg says, with the run's redaction, rate, the linked
// transport and the cache under the records root; nil when cfg names no server.
func client(cfg modeljudge.Config, recordsRoot string, redact func(string) string, limit *ratelimit.Limiter) *modeljudge.Judge {
	if cfg.URL == "" {
		return nil
	}
	cfg.Redact, cfg.Limit = redact, limit
	if capability.Judge != nil {
		cfg.Transport = capability.Judge()
	}
	if cfg.CacheDir != "" {
		cfg.CacheDir = filepath.Join(recordsRoot, ".judge-cache")
	}
	return modeljudge.New(cfg)
}

// judgeLinked refuses a run that configures a judge for scenarios it selects whose
// criteria or signals a model decides, from a test binary that links no judge client:
// those verdicts could only be Unable to Verify. rookgen imports the client for a suite
// that has such scenarios; a YAML edited since (an llm_judge criterion added) needs go
// generate.
func (c *setup) judgeLinked() error {
	if c.jopts.cfg.URL == "" || capability.Judge != nil {
		return nil
	}
	var judged []string
	for _, b := range c.scenarios {
		if b.has(judgedModel) && b.has(runSelected) {
			judged = append(judged, b.id)
		}
	}
	if len(judged) == 0 {
		return nil
	}
	named := check.Some(judged, 5)
	return fmt.Errorf("a judge is configured and a model decides criteria or signals of %s, but this test binary does not link the judge client: run go generate ./... (rookgen imports it when a scenario of the suite has an llm_judge criterion or a free-text red-team signal), or import _ %q in a file of this test package",
		named, capability.Import+"judge")
}

// calibration is the judge's agreement with people per scenario/criterion, from the
// agent's labels paired with the records; the error names what of the labels could not be
// used.
func calibration(root, records, agent string) (map[string]decide.Calibration, string, error) {
	path := modeljudge.LabelsPath(root, agent)
	labels, lerr := modeljudge.LoadLabels(path)
	pairs, perr := modeljudge.PairLabels(records, agent, path, labels)
	keys, groups := modeljudge.ByCriterion(pairs)
	out := make(map[string]decide.Calibration, len(keys))
	for _, k := range keys {
		s := modeljudge.Calibrate(groups[k], 1)
		out[k] = decide.Calibration{Agree: s.Agree, N: s.N}
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	return out, rel, errors.Join(lerr, perr)
}

// duration reads the judge's timeout (given as as); "" or 0 is the default.
func duration(s, as string) (time.Duration, error) {
	if s == "" || s == "0s" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: want a duration such as 90s", as, s)
	}
	return d, nil
}

// onOff reads a setting (given as as) that is on unless it says off.
func onOff(v, as string) (bool, error) {
	switch strings.ToLower(v) {
	case "", "on", "true", "1":
		return true, nil
	case "off", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: want on or off", as, v)
}

// unanswered says, at the end of a run and without -v (failing under -rook.strict), that
// the configured judge never answered some scenarios: a wrong URL must not end a run ok
// because other criteria were decided.
func (r *Run) unanswered(rep *record.Report) {
	for _, j := range rep.Judges {
		if j.Unanswered > 0 {
			r.warn(r.t, r.show(fmt.Sprintf("the judge %s at %s never answered %d scenario(s) of this run, so their llm_judge rows are Unable to Verify (the first reason is on each row); check ROOK_JUDGE_URL and ROOK_JUDGE_MODEL with rookgen judge-check, then judge again with -rook.run=%s -rook.phases=judge",
				j.Model, r.judge.URL(), j.Unanswered, r.run.ID)))
		}
	}
}

// guessed says, at the end of a run, that an audit caught the judge guessing, and how many
// rows it decided are marked for it.
func (r *Run) guessed(rep *record.Report) {
	if r.judge == nil || r.judge.Guessed() == "" {
		return
	}
	rows := 0
	for _, j := range rep.Judges {
		if j.Model == r.judge.Model() {
			rows = j.Guessed
		}
	}
	errorf(r.t, "rook run %s: the judge %s was caught guessing (%s), so it decides nothing in this run: the %d row(s) it decided are Unable to Verify, marked judge_guessed in verdict.yaml and counted in report.yaml's judges, and no excuse covers them; qualify it with rookgen judge-check before trusting it with the suite",
		r.run.ID, r.show(r.judge.Model()), r.show(r.judge.Guessed()), rows)
}

// noJudgeNote says, once at the start, what becomes of the selected scenarios' llm_judge
// criteria in a run with no judge: how to configure one, and how to run without one on
// purpose.
func (c *setup) noJudgeNote() {
	var judged []string
	for _, b := range c.scenarios {
		if b.has(judgedModel) && b.has(runSelected) {
			judged = append(judged, b.id)
		}
	}
	switch {
	case len(judged) == 0:
	case c.jopts.none:
		c.notes = append(c.notes, fmt.Sprintf("no judge, on purpose (ROOK_JUDGE_URL=none): the llm_judge criteria of %s are Unable to Verify, skips that -rook.strict lets pass; every other criterion is held to -rook.strict as always", check.Some(judged, 5)))
	default:
		c.notes = append(c.notes, fmt.Sprintf("no judge model is configured, so the llm_judge criteria of %s are Unable to Verify: skips, which -rook.strict fails on. To decide them, set ROOK_JUDGE_URL (an OpenAI-compatible chat-completions server), ROOK_JUDGE_MODEL and, if it needs one, ROOK_JUDGE_API_KEY; to run without a judge on purpose (CI with no judge secret), set ROOK_JUDGE_URL=none, and -rook.strict holds every other criterion", check.Some(judged, 5)))
	}
}

// unjudgedOnPurpose reports a row left Unable to Verify only because this run has no judge
// on purpose.
func (r *reporter) unjudgedOnPurpose(row record.Row) bool {
	return r.noJudge && row.Status == record.UnableToVerify && row.Reason == record.Undecidable && row.Achieved == check.NoJudgeModel
}
