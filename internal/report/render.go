package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/check"
)

// JSON writes the report for machines.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// YAML writes the report for machines. Its lists of rows are written one row at a time
// from where they are kept, never gathered: the rest of the report is encoded with a mark
// in their place, and each mark's line is replaced by its rows.
func (r *Report) YAML(w io.Writer) error {
	var head bytes.Buffer
	mark := fmt.Sprintf("rook-rows-%p", r)
	r.Failed.mark, r.Scenarios.mark = mark+"-failed", mark+"-scenarios"
	defer func() { r.Failed.mark, r.Scenarios.mark = "", "" }()
	enc := yaml.NewEncoder(&head)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	lists := map[string]func(string) error{
		r.Failed.mark:    func(key string) error { return r.Failed.writeYAML(w, key) },
		r.Scenarios.mark: func(key string) error { return r.Scenarios.writeYAML(w, key) },
	}
	for _, line := range strings.SplitAfter(head.String(), "\n") {
		key, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), ": ")
		if list, ok := lists[value]; ok && !strings.HasPrefix(key, " ") {
			if err := list(key); err != nil {
				return err
			}
			continue
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return nil
}

// Markdown writes the report for people: a CI step summary, a pull request comment.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	t := r.Totals
	fmt.Fprintf(&b, "## rook run %s: %s / %s\n\n", r.RunID, r.Agent, r.Profile)
	fmt.Fprintf(&b, "**%s**\n\n", md(r.Headline))
	b.WriteString(r.attacksMarkdown())
	b.WriteString("| planned | passed | failed | Unable to Verify | unrunnable | not run | pass rate (decided) |\n|---|---|---|---|---|---|---|\n")
	rate := "n/a"
	if t.Decided > 0 {
		rate = fmt.Sprintf("%.0f%% (%d of %d)", t.PassRate*100, t.Passed, t.Decided)
	}
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %s |\n\n", t.Planned, t.Passed, t.Failed, t.Unverifiable, t.Unrunnable, t.NotRun, rate)
	b.WriteString(r.spendMarkdown())
	if line := r.OwnersLine(); line != "" {
		b.WriteString("Who must act: " + line + "\n\n")
	}
	b.WriteString(r.changesMarkdown())
	if r.Failed.Len() > 0 {
		b.WriteString("### Failed criteria\n\n")
		for f := range r.Failed.All() {
			fmt.Fprintf(&b, "- %s %s: expected %s; achieved %s; evidence %s (owner: %s)\n", f.ScenarioID, f.CriterionID, md(f.Expected), md(f.Achieved), md(f.Evidence), f.Owner)
		}
		b.WriteString("\n")
	}
	if len(r.Unable) > 0 {
		b.WriteString("### Unable to Verify\n\n")
		for _, u := range r.Unable {
			fmt.Fprintf(&b, "- %s: %d (%s): %s\n", u.Reason, u.Count, strings.Join(u.Scenarios, ", "), u.Remedy)
		}
		b.WriteString("\n")
	}
	b.WriteString(r.scenarioNotes())
	for _, j := range r.Judges {
		audit := ""
		if j.Audited > 0 {
			audit = fmt.Sprintf("; %d request(s) asked again without the agent's evidence", j.Audited)
		}
		if j.Committed > 0 {
			audit += fmt.Sprintf("; %d request(s) asked first with the replies withheld, %d criterion(s) turned over by the replies", j.Committed, j.TurnedOver)
		}
		if j.Guessed > 0 {
			audit += fmt.Sprintf("; **it guessed: %d row(s) it decided are judge_guessed**", j.Guessed)
		}
		if j.Unanswered > 0 {
			audit += fmt.Sprintf("; **it never answered %d scenario(s)**", j.Unanswered)
		}
		fmt.Fprintf(&b, "Judge %s: %d scenario(s) judged (%d from the cache); controls failed %d of %d%s; tokens %d in, %d out.\n\n",
			md(j.Model), j.Judged, j.Cached, j.ControlsFailed, j.Controls, audit, j.TokensIn, j.TokensOut)
	}
	if p := r.Panel; p != nil {
		fmt.Fprintf(&b, "Panel: %s.", md(p.String()))
		for _, m := range p.Members {
			fmt.Fprintf(&b, " %s: out of %d of %d request(s), %d of %d controls right, agreed with the others on %d of %d.",
				md(m.Model), m.Out, m.Requests, m.ControlsRight, m.Controls, m.Agreed, m.Shared)
		}
		b.WriteString("\n\n")
	}
	m := r.Metrics
	fmt.Fprintf(&b, "Duration %d ms; tokens %d in, %d out; latency p50 %d ms, p95 %d ms; %d turns. Records: `%s`\n",
		m.DurationMs, m.TokensIn, m.TokensOut, m.LatencyP50Ms, m.LatencyP95Ms, m.TurnsTotal, r.Dir)
	if err := r.Err(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changesMarkdown is what changed since the baseline, and the paired comparison.
func (r *Report) changesMarkdown() string {
	c := r.Changes
	if c == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### What changed since %s\n\n", r.Base)
	for _, l := range []struct {
		name string
		ids  []string
	}{{"newly failing", c.NewlyFailing}, {"fixed", c.Fixed}, {"still failing", c.StillFailing}, {"flaky", c.Flaky},
		{"redefined", c.Redefined}, {"added", c.Added}, {"removed", c.Removed}, {"not compared (not run in one of the two runs)", c.NotCompared}} {
		if len(l.ids) > 0 {
			fmt.Fprintf(&b, "- **%s**: %s\n", l.name, strings.Join(l.ids, ", "))
		}
	}
	if c.ProfileChanged {
		b.WriteString("- the profile changed: every scenario counts as redefined\n")
	}
	b.WriteString("- " + c.Paired.Says() + "\n")
	if c.PassRate != nil {
		b.WriteString("- " + c.PassRate.Says() + "\n")
	}
	return b.String() + "\n"
}

// scenarioNotes are the quarantined scenarios and the repeat statistics.
func (r *Report) scenarioNotes() string {
	var held, repeats []string
	for s := range r.Scenarios.All() {
		if s.Quarantined != "" {
			held = append(held, fmt.Sprintf("- %s: %s (%s; out of the exit code)", s.ID, md(s.Quarantined), s.Status))
		}
		if s.Repeat != nil {
			repeats = append(repeats, "- "+s.ID+": "+s.Repeat.says())
		}
	}
	var b strings.Builder
	if len(held) > 0 {
		b.WriteString("### Quarantined\n\n" + strings.Join(held, "\n") + "\n\n")
	}
	if len(repeats) > 0 {
		b.WriteString("### Repeats\n\n" + strings.Join(repeats, "\n") + "\n\n")
	}
	return b.String()
}

// says is a repeated scenario's statistics in one line.
func (s *RepeatStats) says() string {
	flaky := ""
	if s.Flaky {
		flaky = ", flaky"
	}
	undecided := ""
	if s.Undecided > 0 {
		undecided = fmt.Sprintf(", %d undecided (left out of the interval)", s.Undecided)
	}
	rule := fmt.Sprintf("pass^k %v", s.PassK)
	if s.MinPass > 0 {
		rule = fmt.Sprintf("min_pass %d", s.MinPass)
	}
	return fmt.Sprintf("%d of %d passed (%s)%s, pass rate 95%% interval %.0f%%–%.0f%%%s",
		s.Passed, s.Attempts, rule, undecided, s.Low*100, s.High*100, flaky)
}

// OwnersLine counts the scenarios that did not pass by who must act, in Owners's
// order ("agent 2, harness 1"); "" when every scenario passed.
func (r *Report) OwnersLine() string {
	var parts []string
	for _, o := range Owners {
		if n := r.Owners[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	return strings.Join(parts, ", ")
}

// md keeps agent-written text from breaking a markdown list or running as HTML.
func md(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "|", "\\|").Replace(s)
	return check.Clip(s, 300)
}
