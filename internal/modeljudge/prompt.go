package modeljudge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// ProtocolVersion names the judge protocol: the prompt's shape and the answer's schema.
// It is part of every cache key, so a changed protocol never reuses an old answer.
const ProtocolVersion = "rookgo-judge/2"

// Case is one scenario attempt to judge: its llm_judge criteria and everything recorded.
type Case struct {
	ScenarioID string
	Title      string
	Goal       string
	// Context holds the scenario's other keys a judge can use (Rook's why,
	// preconditions, verification_requires), as the file wrote them.
	Context  map[string]any
	Criteria []Criterion
	Evidence *observe.Observations
	// Files are copied evidence files, by their name in the records.
	Files []File
	// withheld is set on the first request of commit-first judging (commit.go): the
	// replies are left out of its record, and the record says so.
	withheld bool
}

// Criterion is one llm_judge criterion, its statement sent unchanged.
type Criterion struct {
	ID        string `json:"criterion_id"`
	Statement string `json:"statement"`
	// label names it in messages when its ID is the request's, not the scenario's.
	label string
}

func (c Criterion) name() string {
	if c.label != "" {
		return c.label
	}
	return c.ID
}

// File is an evidence file's text.
type File struct {
	// Name is the file's name in the records (artifacts/01-evidence-....json); Reported is
	// the evidence_file the hook reported, as it named it.
	Name, Reported string
	Text           string
}

// label names the file for the judge and in verdict rows: its name in the records, and
// the hook's own when that differs.
func (f File) label() string {
	if f.Reported == "" || f.Reported == f.Name {
		return f.Name
	}
	return f.Name + " (the evidence_file the hook reported: " + f.Reported + ")"
}

// system is the judge's instructions, the status words spelt as record spells them.
var system = strings.NewReplacer("{PASS}", string(record.Pass), "{FAIL}", string(record.Fail), "{UTV}", string(record.UnableToVerify)).Replace(`You are the judge of an automated test of an AI agent. You decide acceptance criteria from the recorded evidence alone.

Rules:
- Decide each criterion independently, from the record below and nothing else.
- Before you decide, quote the evidence: every entry of "evidence" is a verbatim quote copied from what the agent or its tools produced (at least 8 characters): the agent's replies ("turn N: agent"), tool calls' arguments and outputs, collect data, evidence files. Do not paraphrase in quotes. Never quote the user's turns, the goal, a criterion, or the record's headings and notes in parentheses: those are the test's own words, not evidence.
- Each heading says how strong its evidence is: [said] is the agent's own words, [reported] the agent's own log of what it did (its tool calls, its usage), [collected] what was read afterwards from the system the agent acted on. The agent saying it did something is not proof that it did.
- "{PASS}": the record shows the criterion is met. "{FAIL}": the record shows it is not met. "{UTV}": the record does not show either way.
- A Pass or a Fail without a verbatim quote of the agent or its tools is not accepted.
- Answer with one JSON object only, of this form:
{"criteria": [{"criterion_id": "C1", "expected": "what must be true", "evidence": ["verbatim quote", "..."], "achieved": "what the record shows", "status": "{PASS}" | "{FAIL}" | "{UTV}", "confidence": "High" | "Medium" | "Low", "reason": "why the record does not decide it, for {UTV}; an empty string otherwise"}]}
- Give exactly one entry for every criterion id you are asked about.`)

// schema is the answer's JSON Schema; evidence comes before status, so that a model
// writing in order quotes before it decides.
var schema = map[string]any{
	"type":                 "object",
	"additionalProperties": false,
	"required":             []string{"criteria"},
	"properties": map[string]any{
		"criteria": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type":                 "object",
				"additionalProperties": false,
				"required":             []string{"criterion_id", "expected", "evidence", "achieved", "status", "confidence", "reason"},
				"properties": map[string]any{
					"criterion_id": map[string]any{"type": "string"},
					"expected":     map[string]any{"type": "string"},
					"evidence":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					"achieved":     map[string]any{"type": "string"},
					"status":       map[string]any{"type": "string", "enum": []string{string(record.Pass), string(record.Fail), string(record.UnableToVerify)}},
					"confidence":   map[string]any{"type": "string", "enum": []string{"High", "Medium", "Low"}},
					"reason":       map[string]any{"type": "string"},
				},
			},
		},
	},
}

// recordText renders the evidence as the text the judge reads and the quotes are checked
// against, and the prompt within budget bytes of evidence. cut lists what did not fit.
func recordText(c Case) (full string, sections []section) {
	ev := c.Evidence
	add := func(title, body string) { sections = append(sections, section{title, body}) }
	for _, t := range ev.Turns().Value {
		add(fmt.Sprintf("turn %d: user", t.N), t.Input)
		if !c.withheld {
			add(fmt.Sprintf("turn %d: agent [said]", t.N), t.Output)
		}
	}
	switch {
	case c.withheld:
		add("agent", "(its replies are withheld from this request: decide each criterion from the tool calls, their outputs and the collected evidence; one that only the replies could decide is "+string(record.UnableToVerify)+")")
	case !ev.Turns().Observed:
		add("agent", "(the agent never replied)")
	}
	calls := ev.Calls()
	switch {
	case !calls.Observed:
		add("tool calls", "(not observable: the hooks reported no calls)")
	case len(calls.Value) == 0 && calls.Complete:
		add("tool calls", "(none: the hooks observed that no tool was called)")
	case len(calls.Value) == 0:
		add("tool calls", "(none seen, and not every call was observed: "+calls.Gap()+")")
	default:
		for i, call := range calls.Value {
			tier := "[reported]"
			if call.SeenBy("collect") {
				tier = "[collected]"
			}
			add(fmt.Sprintf("tool call %d: %s %s", i+1, call.Name, tier), "arguments: "+jsonText(call.Arguments)+"\noutput: "+jsonText(call.Output))
		}
	}
	if u := ev.Usage(); u.Observed {
		add("token usage", fmt.Sprintf("input %s, output %s", record.Count(u.Value.Input), record.Count(u.Value.Output)))
	}
	// Latency is not sent: it changes on every run, so a prompt holding it could never be
	// answered from the cache; timing criteria belong to the latency check.
	if collect := ev.Collect(); collect.Observed {
		add("collect data [collected]", jsonText(collect.Value))
	}
	for _, f := range c.Files {
		add("evidence file "+f.label()+" [collected]", f.Text)
	}
	var b strings.Builder
	for _, s := range sections {
		b.WriteString(s.title + ":\n" + s.body + "\n")
	}
	return b.String(), sections
}

type section struct{ title, body string }

// prompt builds the user message within budget bytes of evidence; what was cut is said
// in it, and returned.
func prompt(c Case, budget int) (string, []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "Scenario %s", c.ScenarioID)
	if c.Title != "" {
		fmt.Fprintf(&b, ": %s", c.Title)
	}
	fmt.Fprintf(&b, "\nGoal (the final user turn): %s\n", c.Goal)
	keys := make([]string, 0, len(c.Context))
	for k := range c.Context {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, jsonText(c.Context[k]))
	}
	b.WriteString("\nCriteria to decide:\n")
	for _, cr := range c.Criteria {
		fmt.Fprintf(&b, "- %s: %s\n", cr.ID, cr.Statement)
	}
	b.WriteString("\nThe record:\n")
	_, sections := recordText(c)
	var cut []string
	left := budget
	for _, s := range sections {
		body := s.body
		if len(body) > left {
			n := max(left, 0)
			for n > 0 && n < len(body) && !utf8Start(body[n]) {
				n--
			}
			cut = append(cut, fmt.Sprintf("%s: %d of %d bytes left out", s.title, len(body)-n, len(s.body)))
			body = body[:n] + fmt.Sprintf("\n[... %d bytes left out: the evidence budget is spent]", len(s.body)-n)
		}
		left -= len(s.body)
		b.WriteString(s.title + ":\n" + body + "\n")
	}
	if len(cut) > 0 {
		b.WriteString("\nPart of the record was left out to stay within the evidence budget: " + strings.Join(cut, "; ") +
			". What was left out cannot be quoted; if a criterion depends on it, it is Unable to Verify.\n")
	}
	return b.String(), cut
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func hash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
