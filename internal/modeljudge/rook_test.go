package modeljudge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
)

// rookRun is the run Rook recorded of its banking demo.
var rookRun = filepath.Join("..", "spec", "testdata", "rook-samples", "01-banking-code", ".testmuai", "rook", "projects",
	"sample-project", "agents", "everyday-banking-assistant", "runs", "2026-09-29T12-11-38Z")

// rookCase is one scenario of Rook's run as a judge case: its replies (response.json's
// transcript), what collect reported (hooks.json), its llm_judge criteria and the status
// Rook recorded for each (verdict.yaml).
type rookCase struct {
	c    modeljudge.Case
	want map[string]record.Status
}

func rookCases(t *testing.T) []rookCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(rookRun, "scenarios", "SC-*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	var out []rookCase
	for _, dir := range dirs {
		var v struct {
			ID       string `yaml:"scenario_id"`
			Criteria []struct {
				ID        string        `yaml:"criterion_id"`
				Criterion string        `yaml:"criterion"`
				Status    record.Status `yaml:"status"`
			} `yaml:"criteria"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "verdict.yaml"))
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(data, &v))
		var turns []observe.Given
		if data, err := os.ReadFile(filepath.Join(dir, "response.json")); err == nil {
			var r struct {
				Transcript []struct{ Role, Content string } `json:"transcript"`
			}
			require.NoError(t, json.Unmarshal(data, &r))
			for _, m := range r.Transcript {
				if m.Role == "user" {
					turns = append(turns, observe.Given{Input: m.Content})
				} else if len(turns) > 0 {
					turns[len(turns)-1].Output = m.Content
				}
			}
		}
		var h struct {
			Phases record.HookPhases `json:"phases"`
		}
		data, err = os.ReadFile(filepath.Join(dir, "hooks.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &h))
		obs := observe.Said(turns...)
		obs.CollectReport(h.Phases.Collect.Data)
		rc := rookCase{c: modeljudge.Case{ScenarioID: v.ID, Goal: "(Rook's goal)", Evidence: obs}, want: map[string]record.Status{}}
		for _, cr := range v.Criteria {
			rc.c.Criteria = append(rc.c.Criteria, modeljudge.Criterion{ID: cr.ID, Statement: strings.Join(strings.Fields(cr.Criterion), " ")})
			rc.want[cr.ID] = cr.Status
		}
		out = append(out, rc)
	}
	return out
}

// kitCases are the judge kit's requests, modelled on the example suite's records.
func kitCases() []rookCase {
	var out []rookCase
	for _, it := range modeljudge.Kit() {
		out = append(out, rookCase{c: it.Case, want: it.Want})
	}
	return out
}

// Replayed through a careful scripted judge, every request made of Rook's banking run and
// of the judge kit carries at least one control, the judge answers them all right and
// every status is the one recorded; a judge that answers by the statements' shape (and
// the real rows wrongly), or Pass to everything, fails a control in nearly every request.
func TestEveryRequestCarriesControls(t *testing.T) {
	for name, cases := range map[string][]rookCase{"Rook's banking run": rookCases(t), "the judge kit": kitCases()} {
		t.Run(name, func(t *testing.T) {
			scripts := map[string]string{}
			for _, rc := range cases {
				scripts[rc.c.ScenarioID] = fakejudge.GroundedPass
				for _, s := range rc.want {
					switch s {
					case record.Fail:
						scripts[rc.c.ScenarioID] = fakejudge.GroundedFail
					case record.UnableToVerify:
						scripts[rc.c.ScenarioID] = fakejudge.SamplesPrefix + string(record.UnableToVerify)
					}
				}
			}
			j, _ := newJudge(t, scripts, nil)
			var counts []string
			for _, rc := range cases {
				d := j.Decide(context.Background(), rc.c)
				assert.GreaterOrEqual(t, d.Info.Controls, 1, "%s: %s", rc.c.ScenarioID, d.Info.ControlsWhy)
				assert.Zero(t, d.Info.ControlsFailed, "%s: %v", rc.c.ScenarioID, d.Results)
				for id, want := range rc.want {
					assert.Equal(t, want, d.Results[id].Status, "%s %s: %+v", rc.c.ScenarioID, id, d.Results[id])
				}
				counts = append(counts, fmt.Sprintf("%s: %d", rc.c.ScenarioID, d.Info.Controls))
			}
			t.Logf("controls per request: %s", strings.Join(counts, ", "))

			for _, script := range []string{fakejudge.ShapeOnly, fakejudge.PassAll} {
				all := map[string]string{}
				for _, rc := range cases {
					all[rc.c.ScenarioID] = script
				}
				j, fake := newJudge(t, all, nil)
				caught := 0
				for _, rc := range cases {
					if d := j.Decide(context.Background(), rc.c); d.Info.ControlsFailed > 0 {
						caught++
					} else {
						t.Logf("%s not caught on %s: %v", script, rc.c.ScenarioID, d.Info.Asked)
						if os.Getenv("ROOK_SHOW_STATEMENTS") != "" {
							for _, r := range fake.Requests(rc.c.ScenarioID) {
								t.Log(r.Prompt[strings.Index(r.Prompt, "Criteria"):][:600])
							}
						}
					}
				}
				t.Logf("%s: caught on %d of %d requests", script, caught, len(cases))
				assert.GreaterOrEqual(t, 10*caught, 9*len(cases), script)
			}
		})
	}
}

// controlShaped are the kit's criteria worded like controls on purpose.
var controlShaped = func() map[string]bool {
	out := map[string]bool{}
	for _, it := range modeljudge.Kit() {
		if it.Class == modeljudge.ClassControlShaped {
			for _, c := range it.Case.Criteria {
				out[c.Statement] = true
			}
		}
	}
	return out
}()

// shapeScorers tell a control from a criterion by its wording alone, as a model that has
// learnt what controls look like would.
var shapeScorers = map[string]func(s string) bool{
	"holds a quoted phrase":      regexp.MustCompile(`"[^"]+"`).MatchString,
	"holds a digit":              regexp.MustCompile(`\d`).MatchString,
	"names a snake_case tool":    regexp.MustCompile(`\b[a-z]+_[a-z_]+\b`).MatchString,
	"starts with The reply":      func(s string) bool { return strings.HasPrefix(s, "The reply") },
	"starts with The agent":      func(s string) bool { return strings.HasPrefix(s, "The agent") },
	"holds a negation":           regexp.MustCompile(`\b(not|no|never|No)\b`).MatchString,
	"has a second sentence":      regexp.MustCompile(`\.\s+\S`).MatchString,
	"mentions a turn":            regexp.MustCompile(`\bturn \d`).MatchString,
	"is short (under 9 words)":   func(s string) bool { return len(strings.Fields(s)) < 9 },
	"mentions a record or data":  regexp.MustCompile(`(?i)\b(record|recorded|data|evidence|result)\b`).MatchString,
	"ends in a capitalised word": regexp.MustCompile(`\p{Lu}[\pL\pN-]*\.$`).MatchString,
}

// A scorer that reads only the wording cannot tell the controls from the real criteria of
// Rook's banking run, of the judge kit and of the example suite: each scorer's balanced
// accuracy at it stays below 0.75, where 0.5 is a coin.
func TestControlsReadLikeCriteria(t *testing.T) {
	var cases []modeljudge.Case
	for _, rc := range rookCases(t) {
		cases = append(cases, rc.c)
	}
	for _, kc := range kitCases() {
		cases = append(cases, kc.c)
	}
	j, fake := newJudge(t, nil, nil)
	var controls, criteria []string
	for _, c := range cases {
		d := j.Decide(context.Background(), c)
		ctl, cri := asked(t, fake, c.ScenarioID, d)
		controls, criteria = append(controls, ctl...), append(criteria, cri...)
	}
	// The example suite's criteria, all of them, in the project's own style, and every
	// scenario Rook's samples hold.
	files, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "helpdesk", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	samples, err := filepath.Glob(filepath.Join("..", "spec", "testdata", "rook-samples", "*", ".testmuai", "rook", "projects", "*", "agents", "*", "scenarios", "SC-*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, samples)
	files = append(files, samples...)
	for _, f := range files {
		sc, err := scenario.Load(f)
		require.NoError(t, err)
		for _, cr := range sc.Criteria {
			criteria = append(criteria, cr.Statement)
		}
	}
	require.NotEmpty(t, controls)
	// No real criterion reads as a control, but the kit's control-shaped ones, which are
	// worded so on purpose: the scripted careful judge would answer it from the record.
	for _, c := range criteria {
		if _, ok := modeljudge.ReadControl(c); ok && !controlShaped[c] {
			t.Errorf("a real criterion reads as a control: %q", c)
		}
	}
	names := make([]string, 0, len(shapeScorers))
	for n := range shapeScorers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		score := shapeScorers[n]
		hit := func(list []string) float64 {
			k := 0
			for _, s := range list {
				if score(s) {
					k++
				}
			}
			return float64(k) / float64(len(list))
		}
		tpr, fpr := hit(controls), hit(criteria)
		acc := (tpr + 1 - fpr) / 2
		acc = max(acc, 1-acc)
		t.Logf("%-28s controls %.2f, criteria %.2f: balanced accuracy %.2f", n, tpr, fpr, acc)
		assert.Less(t, acc, 0.75, "%s tells controls from criteria", n)
	}
	t.Logf("%d controls, %d criteria", len(controls), len(criteria))
	// A learned scorer, not one feature: naive Bayes over the words and word pairs,
	// trained and scored by 5-fold cross-validation.
	if os.Getenv("ROOK_SHOW_STATEMENTS") != "" {
		for _, c := range controls {
			t.Logf("control: %s", c)
		}
		for _, c := range criteria {
			t.Logf("criterion: %s", c)
		}
	}
	if os.Getenv("ROOK_SHOW_TOKENS") != "" {
		showTokens(t, controls, criteria)
	}
	// One split into folds is one draw: the same statements score 0.65 to 0.75 as they
	// fall. The mean over ten shuffles is the measure, each shuffle fixed.
	var accs []float64
	for seed := range uint64(10) {
		accs = append(accs, naiveBayesCV(controls, criteria, 5, seed))
	}
	acc := 0.0
	for _, a := range accs {
		acc += a / float64(len(accs))
	}
	t.Logf("naive Bayes on words and word pairs, 5-fold, mean of %d shuffles: balanced accuracy %.3f (from %.3f to %.3f)",
		len(accs), acc, slices.Min(accs), slices.Max(accs))
	// 0.757 before controls were worded as criteria are (a twin of one of the request's
	// own criteria, replies named as criteria name them, the criteria's sources first,
	// no telemetry); docs/judge.md says what moved it.
	assert.Less(t, acc, 0.7, "a bag-of-words classifier tells controls from criteria")
}

// tokens are a statement's lowercase words and adjacent word pairs.
func tokens(s string) []string {
	words := wordRE.FindAllString(strings.ToLower(s), -1)
	out := append([]string(nil), words...)
	for i := 1; i < len(words); i++ {
		out = append(out, words[i-1]+" "+words[i])
	}
	return out
}

var wordRE = regexp.MustCompile(`[\pL\pN_'-]+`)

// naiveBayesCV is the balanced accuracy (the mean of each class's recall) of a multinomial
// naive Bayes classifier with add-one smoothing telling a (controls) from b (criteria), each
// statement scored by a model trained on the folds it is not in, the statements shuffled
// into folds by seed.
func naiveBayesCV(a, b []string, folds int, seed uint64) float64 {
	type item struct {
		toks  []int // each token's index in ids
		class int
	}
	ids := map[string]int{}
	var items []item
	for class, list := range [][]string{a, b} {
		for _, s := range list {
			it := item{class: class}
			for _, w := range tokens(s) {
				if _, ok := ids[w]; !ok {
					ids[w] = len(ids)
				}
				it.toks = append(it.toks, ids[w])
			}
			items = append(items, it)
		}
	}
	rand.New(rand.NewPCG(1, 2+seed)).Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	var right, total [2]float64
	for f := range folds {
		counts := [2][]float64{make([]float64, len(ids)), make([]float64, len(ids))}
		var words, docs [2]float64
		vocab := 0
		for i, it := range items {
			if i%folds == f {
				continue
			}
			docs[it.class]++
			for _, w := range it.toks {
				if counts[0][w]+counts[1][w] == 0 {
					vocab++
				}
				counts[it.class][w]++
				words[it.class]++
			}
		}
		for i, it := range items {
			if i%folds != f {
				continue
			}
			var score [2]float64
			for c := range 2 {
				score[c] = math.Log(docs[c] / (docs[0] + docs[1]))
				for _, w := range it.toks {
					score[c] += math.Log((counts[c][w] + 1) / (words[c] + float64(vocab)))
				}
			}
			guess := 0
			if score[1] > score[0] {
				guess = 1
			}
			total[it.class]++
			if guess == it.class {
				right[it.class]++
			}
		}
	}
	return (right[0]/total[0] + right[1]/total[1]) / 2
}

// showTokens logs the words and word pairs that set controls (a) and criteria (b) apart
// most: the share of each class's statements holding one, controls' minus criteria's
// (ROOK_SHOW_TOKENS=1), for whoever words controls next.
func showTokens(t *testing.T, a, b []string) {
	ca, cb := map[string]float64{}, map[string]float64{}
	for _, s := range a {
		seen := map[string]bool{}
		for _, w := range tokens(s) {
			if !seen[w] {
				ca[w]++
				seen[w] = true
			}
		}
	}
	for _, s := range b {
		seen := map[string]bool{}
		for _, w := range tokens(s) {
			if !seen[w] {
				cb[w]++
				seen[w] = true
			}
		}
	}
	type kv struct {
		w string
		d float64
	}
	var all []kv
	for w := range ca {
		all = append(all, kv{w, ca[w]/float64(len(a)) - cb[w]/float64(len(b))})
	}
	for w := range cb {
		if ca[w] == 0 {
			all = append(all, kv{w, -cb[w] / float64(len(b))})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d > all[j].d })
	for _, x := range all[:25] {
		t.Logf("control-ish %-30s %+.2f", x.w, x.d)
	}
	for _, x := range all[len(all)-15:] {
		t.Logf("criterion-ish %-30s %+.2f", x.w, x.d)
	}
}
