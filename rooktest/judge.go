package rooktest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/calibrate"
	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/record"
)

// The model judge's flags. Each takes its environment variable when not given: ROOK_JUDGE_*
// for the judge, ROOKTEST_MIN_CONFIDENCE for the threshold.
var (
	flagJudgeURL       = flag.String("rook.judge-url", "", "base URL of an OpenAI-compatible chat-completions server that decides llm_judge criteria (ROOK_JUDGE_URL)")
	flagJudgeModel     = flag.String("rook.judge-model", "", "the judge model (ROOK_JUDGE_MODEL)")
	flagJudgeAPIKey    = flag.String("rook.judge-api-key", "", "the judge server's API key, if it needs one; redacted everywhere (ROOK_JUDGE_API_KEY)")
	flagJudgeTimeout   = flag.Duration("rook.judge-timeout", 0, "bound on each judge request (ROOK_JUDGE_TIMEOUT; default 2m)")
	flagJudgeRetries   = flag.Int("rook.judge-retries", -1, "retries of a judge request after 429, 5xx or a lost connection (ROOK_JUDGE_RETRIES; default 3)")
	flagJudgeBudget    = flag.Int("rook.judge-budget", 0, "bytes of a scenario's record sent to the judge (ROOK_JUDGE_BUDGET; default 65536)")
	flagJudgePreflight = flag.String("rook.judge-preflight", "", "on or off: ask the judge one question with a certain answer before the run's first judged criterion (ROOK_JUDGE_PREFLIGHT; default on)")
	flagJudgeCache     = flag.String("rook.judge-cache", "", "on or off: reuse the judge's answer to an unchanged prompt (ROOK_JUDGE_CACHE; default on)")
	flagJudgeSamples   = flag.Int("rook.judge-samples", 0, "answers to ask the judge for each request, odd: a criterion takes the status most of them gave, and a split is Unable to Verify (ROOK_JUDGE_SAMPLES; default 1)")
	flagJudgeAudit     = flag.Int("rook.judge-audit", 0, "percent of judge requests to ask again with the agent's evidence removed: a judge that still answers Pass or Fail there is guessing, and every row it decides in the run is marked judge_guessed (ROOK_JUDGE_AUDIT; default 0)")
	flagMinAgreement   = flag.Float64("rook.min-agreement", 0, "0 to 1: judged rows of a criterion whose judge agrees with people (labels/<agent>.yaml) less often, or was never labelled, are Unable to Verify (ROOKTEST_MIN_AGREEMENT; default off)")
	flagMinConfidence  = flag.String("rook.min-confidence", "", "High, Medium or Low: judged rows below it are Unable to Verify (ROOKTEST_MIN_CONFIDENCE; default Low)")
)

// judgeOptions is the model judge as the flags and environment configure it.
type judgeOptions struct {
	cfg           modeljudge.Config
	minConfidence string
	minAgreement  float64
}

func loadJudgeOptions() (judgeOptions, error) {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	get := func(name, env string, v string) string {
		if set[name] {
			return v
		}
		return strings.TrimSpace(os.Getenv(env))
	}
	o := judgeOptions{cfg: modeljudge.Config{
		URL:    get("rook.judge-url", "ROOK_JUDGE_URL", *flagJudgeURL),
		Model:  get("rook.judge-model", "ROOK_JUDGE_MODEL", *flagJudgeModel),
		APIKey: get("rook.judge-api-key", "ROOK_JUDGE_API_KEY", *flagJudgeAPIKey),
	}, minConfidence: get("rook.min-confidence", "ROOKTEST_MIN_CONFIDENCE", *flagMinConfidence)}
	switch o.minConfidence {
	case "":
		o.minConfidence = "Low"
	case "High", "Medium", "Low":
	default:
		return o, fmt.Errorf("-rook.min-confidence=%q: want High, Medium or Low", o.minConfidence)
	}
	var err error
	if o.cfg.Timeout, err = duration(get("rook.judge-timeout", "ROOK_JUDGE_TIMEOUT", flagValue(set, "rook.judge-timeout", flagJudgeTimeout.String()))); err != nil {
		return o, err
	}
	o.cfg.Retries = 3
	if s := get("rook.judge-retries", "ROOK_JUDGE_RETRIES", strconv.Itoa(*flagJudgeRetries)); s != "" {
		if o.cfg.Retries, err = strconv.Atoi(s); err != nil || o.cfg.Retries < 0 {
			return o, fmt.Errorf("judge retries %q: want 0 or more", s)
		}
	}
	if s := get("rook.judge-budget", "ROOK_JUDGE_BUDGET", strconv.Itoa(*flagJudgeBudget)); s != "" && s != "0" {
		if o.cfg.Budget, err = strconv.Atoi(s); err != nil || o.cfg.Budget < 1024 {
			return o, fmt.Errorf("judge budget %q: want a number of bytes, at least 1024", s)
		}
	}
	if s := get("rook.min-agreement", "ROOKTEST_MIN_AGREEMENT", strconv.FormatFloat(*flagMinAgreement, 'g', -1, 64)); s != "" && s != "0" {
		if o.minAgreement, err = strconv.ParseFloat(s, 64); err != nil || o.minAgreement <= 0 || o.minAgreement > 1 {
			return o, fmt.Errorf("-rook.min-agreement=%q: want a share of agreement above 0 and at most 1, such as 0.9", s)
		}
	}
	if s := get("rook.judge-samples", "ROOK_JUDGE_SAMPLES", strconv.Itoa(*flagJudgeSamples)); s != "" && s != "0" {
		if o.cfg.Samples, err = strconv.Atoi(s); err != nil || o.cfg.Samples < 1 || o.cfg.Samples%2 == 0 || o.cfg.Samples > 15 {
			return o, fmt.Errorf("judge samples %q: want an odd number from 1 to 15, so that a majority exists", s)
		}
	}
	if s := get("rook.judge-audit", "ROOK_JUDGE_AUDIT", strconv.Itoa(*flagJudgeAudit)); s != "" && s != "0" {
		if o.cfg.Audit, err = strconv.Atoi(strings.TrimSuffix(s, "%")); err != nil || o.cfg.Audit < 0 || o.cfg.Audit > 100 {
			return o, fmt.Errorf("judge audit %q: want a percentage of requests from 0 to 100", s)
		}
	}
	if o.cfg.Preflight, err = onOff("judge preflight", get("rook.judge-preflight", "ROOK_JUDGE_PREFLIGHT", *flagJudgePreflight)); err != nil {
		return o, err
	}
	cache, err := onOff("judge cache", get("rook.judge-cache", "ROOK_JUDGE_CACHE", *flagJudgeCache))
	if err != nil {
		return o, err
	}
	if cache {
		o.cfg.CacheDir = "on" // made a path under the records root by judgeFor
	}
	switch {
	case o.cfg.URL != "" && o.cfg.Model == "":
		return o, fmt.Errorf("a judge URL (%s) needs a model: set ROOK_JUDGE_MODEL or -rook.judge-model", o.cfg.URL)
	case o.cfg.URL == "" && o.cfg.Model != "":
		return o, fmt.Errorf("a judge model (%s) needs a server: set ROOK_JUDGE_URL or -rook.judge-url", o.cfg.Model)
	}
	return o, nil
}

// judgeFor is the run's judge, nil when none is configured.
func (o judgeOptions) judgeFor(recordsRoot string, redact func(string) string, limit *ratelimit.Limiter) *modeljudge.Judge {
	if o.cfg.URL == "" {
		return nil
	}
	cfg := o.cfg
	cfg.Redact, cfg.Limit = redact, limit
	if cfg.CacheDir != "" {
		cfg.CacheDir = filepath.Join(recordsRoot, ".judge-cache")
	}
	return modeljudge.New(cfg)
}

// calibration is the judge's agreement with people per scenario/criterion, from the
// agent's labels paired with the records; the error names what of the labels could not be
// used.
func calibration(root, records, agent string) (map[string]decide.Calibration, string, error) {
	path := calibrate.Path(root, agent)
	labels, lerr := calibrate.LoadLabels(path)
	pairs, perr := calibrate.Pairs(records, agent, path, labels)
	keys, groups := calibrate.ByCriterion(pairs)
	out := make(map[string]decide.Calibration, len(keys))
	for _, k := range keys {
		s := calibrate.Compute(groups[k], 1)
		out[k] = decide.Calibration{Agree: s.Agree, N: s.N}
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	return out, rel, errors.Join(lerr, perr)
}

func flagValue(set map[string]bool, name, v string) string {
	if set[name] {
		return v
	}
	return ""
}

func duration(s string) (time.Duration, error) {
	if s == "" || s == "0s" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("judge timeout %q: want a duration such as 90s", s)
	}
	return d, nil
}

func onOff(what, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "", "on", "true", "1":
		return true, nil
	case "off", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%s %q: want on or off", what, v)
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
	logf(r.t, "rook run %s: the judge %s was caught guessing (%s): the %d row(s) it decided in the run are marked judge_guessed in verdict.yaml and counted in report.yaml's judges; qualify it with rookgen judge-check before trusting it with the suite",
		r.run.ID, r.show(r.judge.Model()), r.show(r.judge.Guessed()), rows)
}
