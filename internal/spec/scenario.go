package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rookgo/rookgo/internal/record"
	"gopkg.in/yaml.v3"
)

// Scenario is one test of an agent: a goal, earlier turns, and acceptance criteria.
type Scenario struct {
	// ID is the scenario id (Rook's id or local_id); it equals the file name.
	ID    string
	Title string
	// Goal is sent verbatim on stdin in the final turn.
	Goal string
	// SetupMessages are the earlier user turns; turns are SetupMessages then Goal.
	SetupMessages []string
	MultiTurn     bool
	MaxTurns      int
	// Criteria are acceptance_criteria followed by the calls shorthand, in file order.
	Criteria []Criterion
	// Forbidden is text that must never appear in any agent turn (case-insensitive).
	Forbidden []string
	Repeat    int
	// MinPass is how many of Repeat attempts must pass for the scenario to pass (min_pass);
	// 0 means every one (pass^k).
	MinPass int
	// Timeout is the whole-scenario budget for open and execute (zero: none).
	Timeout  time.Duration
	Class    string
	Category string
	Tags     []string
	// Feature is the feature the scenario tests (Rook's feature_id).
	Feature  string
	Excluded bool
	// NotExecutable is Rook's executable: false; SkipReason says why.
	NotExecutable bool
	SkipReason    string
	// Sources are the files the scenario was derived from (Rook's sources), and Exercises
	// the tools, subagents and services it touches (exercises): rookgen affected reads
	// both. Entries that are not text are left out.
	Sources   []string
	Exercises []string
	// Redteam is the redteam block; nil when the scenario has none.
	Redteam *Redteam
	// SimulatedUser, when set, plays the user after SetupMessages (simulated_user): the
	// turns are then as many as the conversation takes, Goal is what the user wants.
	SimulatedUser *SimulatedUser
	// RequiresUsage is set by verification_requires [{type: agent_metadata, field: total_tokens}].
	RequiresUsage bool
	// RequiresMCP is set when verification_requires names an mcp server: the scenario's
	// call criteria are then to be decided on collected evidence.
	RequiresMCP bool

	File   string
	Source []byte
	SHA256 string
	// Warnings name keys that are neither this project's nor Rook's: kept in the snapshot,
	// read by nothing. Typos are those of them that look like a known key (forbidden_text
	// for forbidden): a criterion or a selection the author meant is silently missing, so
	// rookgen refuses them unless -lenient, and the test repeats them while they stand.
	Warnings []string
	Typos    []string
}

// Turns is the number of execute calls the scenario makes.
func (s *Scenario) Turns() int {
	if s.SimulatedUser != nil {
		return len(s.SetupMessages) + s.SimulatedTurns() // at most: the simulated user may end sooner
	}
	return len(s.SetupMessages) + 1
}

// IsMultiTurn reports whether the scenario needs a conversation across turns.
func (s *Scenario) IsMultiTurn() bool {
	return s.MultiTurn || len(s.SetupMessages) > 0 || s.SimulatedUser != nil && s.SimulatedTurns() > 1
}

// TurnInput returns the user message of turn n (1-based); a simulated user's turns are the
// simulation's (record.Simulation.Message), and this is the goal it pursues.
func (s *Scenario) TurnInput(n int) string {
	if n <= len(s.SetupMessages) {
		return s.SetupMessages[n-1]
	}
	return s.Goal
}

// Subtest is the scenario's go test name: <id>_<title slug>.
func (s *Scenario) Subtest() string {
	if slug := Slug(s.Title, 60); slug != "" {
		return s.ID + "_" + slug
	}
	return s.ID
}

// Rook's scenario keys. A key outside this list is kept for the snapshot, unless it is a
// near miss of one of them, which is refused as a typo.
var scenarioKeys = []string{
	"id", "local_id", "title", "goal", "setup_messages", "multi_turn", "max_turns",
	"acceptance_criteria", "forbidden", "calls", "repeat", "timeout_seconds", "class",
	"category", "tags", "excluded", "executable", "skip_reason", "verification_requires",
	"feature_id", "feature_revision_id", "input_kind", "why", "confidence", "attachments",
	"preconditions", "output_kind", "exercises", "redteam", "origin", "sources",
	"input", "expectation", "name", "description", "min_pass", "simulated_user",
}

// related finds a known key the unknown one contains or is contained in (forbidden_text,
// criteria), for a warning's suggestion.
func related(key string, known []string) string {
	k := strings.ToLower(key)
	for _, w := range known {
		if len(w) >= 4 && (strings.Contains(k, w) || (len(k) >= 4 && strings.Contains(w, k))) {
			return w
		}
	}
	return ""
}

// LoadScenario reads and validates the scenario at file.
func LoadScenario(file string) (*Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return ParseScenario(file, data)
}

// ParseScenario is LoadScenario on bytes already read.
func ParseScenario(file string, data []byte) (*Scenario, error) {
	e := &errs{file: file}
	s := &Scenario{File: file, Source: data, SHA256: ContentHash(data), Repeat: 1}
	root := parseDoc(e, data)
	if root == nil {
		return nil, e.err()
	}
	p := &scenarioParse{e: e, s: s}
	for _, f := range fields(e, root, "scenario", scenarioKeys, false) {
		p.unknown(f)
		p.key(f)
	}
	p.checkID(root)
	if strings.TrimSpace(s.Goal) == "" {
		n := p.goalNode
		if n == nil {
			n = root
		}
		e.at(n, "missing goal: the scenario has nothing to send the agent")
	}
	if s.MinPass > s.Repeat {
		e.at(p.minPassNode, "min_pass %d is more than repeat %d: at most %d attempts can pass", s.MinPass, s.Repeat, s.Repeat)
	}
	s.Criteria = append(s.Criteria, p.calls...)
	p.criterionIDs()
	for _, c := range s.Criteria {
		if c.Turn > s.Turns() {
			e.list = append(e.list, &PosError{File: e.file, Line: c.Line, Column: c.Column,
				Msg: fmt.Sprintf("criterion %s is about turn %d, and the scenario has %d turn(s)", c.ID, c.Turn, s.Turns())})
		}
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// scenarioParse is one scenario file being read.
type scenarioParse struct {
	e                *errs
	s                *Scenario
	id, localID      string
	idNode, goalNode *yaml.Node
	minPassNode      *yaml.Node
	calls            []Criterion
}

// unknown keeps a key outside Rook's schema as a warning, or as a typo when it reads like
// a misspelt known key.
func (p *scenarioParse) unknown(f field) {
	if contains(scenarioKeys, f.key) {
		return
	}
	if contains(redteamKeys, f.key) {
		// A red-team key beside redteam: instead of under it would be silently unused:
		// it is refused as a typo is (rookgen -lenient keeps it a warning).
		at := (&PosError{File: p.e.file, Line: f.kNode.Line, Column: f.kNode.Column,
			Msg: fmt.Sprintf("key %q belongs under redteam: (redteam.%s); at the top level of a scenario it is read by nothing", f.key, f.key)}).Error()
		p.s.Typos = append(p.s.Typos, at)
		return
	}
	msg := fmt.Sprintf("unknown key %q in scenario is kept in the snapshot but read by nothing", f.key)
	near := related(f.key, scenarioKeys)
	if near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	at := (&PosError{File: p.e.file, Line: f.kNode.Line, Column: f.kNode.Column, Msg: msg}).Error()
	if near != "" {
		p.s.Typos = append(p.s.Typos, at)
	} else {
		p.s.Warnings = append(p.s.Warnings, at)
	}
}

// key reads one known key into the scenario.
func (p *scenarioParse) key(f field) {
	e, s := p.e, p.s
	switch f.key {
	case "id":
		p.id, p.idNode = str(e, f), f.v
	case "local_id":
		p.localID = str(e, f)
		if p.idNode == nil {
			p.idNode = f.v
		}
	case "title":
		s.Title = str(e, f)
	case "goal":
		s.Goal, p.goalNode = str(e, f), f.v
	case "setup_messages":
		s.SetupMessages = strList(e, f)
	case "multi_turn":
		s.MultiTurn = boolean(e, f)
	case "simulated_user":
		p.parseSimulatedUser(f)
	case "max_turns":
		// Kept as Rook writes it; Rook's own files set max_turns: 1 on two-turn scenarios,
		// so it bounds nothing at load. A turns check bounds the conversation.
		s.MaxTurns, _ = integer(e, f)
	case "acceptance_criteria":
		s.Criteria = parseCriteria(e, f)
	case "forbidden":
		s.Forbidden = forbiddenList(e, f)
	case "calls":
		p.calls = parseCalls(e, f)
	case "repeat":
		if n, ok := integer(e, f); ok && n < 1 {
			e.at(f.v, "repeat must be at least 1, got %d", n)
		} else if ok {
			s.Repeat = n
		}
	case "min_pass":
		if n, ok := integer(e, f); ok && n < 1 {
			e.at(f.v, "min_pass must be at least 1, got %d", n)
		} else if ok {
			s.MinPass, p.minPassNode = n, f.v
		}
	case "timeout_seconds":
		if v, ok := number(e, f); ok {
			s.Timeout = time.Duration(v * float64(time.Second))
		}
	default:
		p.selector(f)
	}
}

// selector reads the keys that select and skip scenarios.
func (p *scenarioParse) selector(f field) {
	e, s := p.e, p.s
	switch f.key {
	case "class":
		s.Class = str(e, f)
	case "category":
		s.Category = str(e, f)
	case "tags":
		s.Tags = strList(e, f)
	case "feature_id":
		s.Feature = str(e, f)
	case "excluded":
		s.Excluded = boolean(e, f)
	case "executable":
		if !isNull(f.v) {
			s.NotExecutable = !boolean(e, f)
		}
	case "skip_reason":
		s.SkipReason = str(e, f)
	case "verification_requires":
		v := value(e, f)
		s.RequiresUsage, s.RequiresMCP = requiresUsage(v), requiresMCP(v)
	case "sources":
		s.Sources = texts(value(e, f))
	case "redteam":
		s.Redteam = parseRedteam(e, f)
	case "exercises":
		if m, ok := value(e, f).(map[string]any); ok {
			for _, k := range []string{"tools", "subagents", "services"} {
				s.Exercises = append(s.Exercises, texts(m[k])...)
			}
		}
	}
}

// checkID settles the id from id and Rook's local_id: they agree, it is safe, and it is
// the file's name.
func (p *scenarioParse) checkID(root *yaml.Node) {
	switch {
	case p.id != "" && p.localID != "" && p.id != p.localID:
		p.e.at(p.idNode, "id %q and local_id %q disagree", p.id, p.localID)
	case p.id == "":
		p.id = p.localID
	}
	p.s.ID = p.id
	base := strings.TrimSuffix(filepath.Base(p.e.file), filepath.Ext(p.e.file))
	switch {
	case p.s.ID == "":
		p.e.at(root, "missing key \"id\" (or Rook's \"local_id\"); it must equal the file name, %q", base)
	case !record.ValidID(p.s.ID):
		p.e.at(p.idNode, "id %q may hold only letters, digits, '-' and '_'", p.s.ID)
	case p.s.ID != base:
		p.e.at(p.idNode, "id %q does not match the file name %q", p.s.ID, base)
	}
}

// criterionIDs gives criteria without an id C1, C2... by position, and refuses an id used
// twice.
func (p *scenarioParse) criterionIDs() {
	seen := map[string]bool{}
	for i := range p.s.Criteria {
		c := &p.s.Criteria[i]
		if c.ID == "" {
			c.ID = fmt.Sprintf("C%d", i+1)
		}
		if seen[c.ID] {
			p.e.list = append(p.e.list, &PosError{File: p.e.file, Line: c.Line, Column: c.Column,
				Msg: fmt.Sprintf("criterion id %q is used twice", c.ID)})
		}
		seen[c.ID] = true
	}
}

// forbiddenList reads forbidden, refusing a blank entry: it would forbid nothing and read
// as if it forbade something.
func forbiddenList(e *errs, f field) []string {
	list := strList(e, f)
	if f.v.Kind == yaml.SequenceNode && len(f.v.Content) == len(list) {
		for i, text := range list {
			if strings.TrimSpace(text) == "" {
				e.at(f.v.Content[i], "forbidden[%d] is blank: forbidden text must say what must never appear", i)
			}
		}
	}
	return list
}

// texts are the strings of a list, the others left out: Rook's files are read as they are.
func texts(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		if s, ok := item.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// requiresMCP reports whether verification_requires names an mcp server ({type: mcp,
// server: billing, op: issue_refund}): what the agent did must be read from that system.
func requiresMCP(v any) bool {
	list, _ := v.([]any)
	for _, item := range list {
		if m, _ := item.(map[string]any); m["type"] == "mcp" {
			return true
		}
	}
	return false
}

func requiresUsage(v any) bool {
	list, _ := v.([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		if m["type"] == "agent_metadata" && (m["field"] == "total_tokens" || m["field"] == "usage") {
			return true
		}
	}
	return false
}

// Slug lowercases s and joins its letters and digits with underscores, at most max bytes,
// cut at a word boundary.
// latin folds accented Latin letters to ASCII, so that Café is cafe, not caf; letters of
// other scripts are kept as they are.
var latin = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ç': "c", 'č': "c", 'ć': "c",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ě': "e", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i",
	'ñ': "n", 'ń': "n", 'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ő': "o", 'ù': "u",
	'ú': "u", 'û': "u", 'ü': "u", 'ű': "u", 'ý': "y", 'ÿ': "y", 'ß': "ss", 'æ': "ae", 'œ': "oe",
	'ł': "l", 'ś': "s", 'š': "s", 'ž': "z", 'ź': "z", 'ż': "z", 'ř': "r", 'đ': "d",
}

func Slug(s string, max int) string {
	var b strings.Builder
	pendingSep := false
	for _, r := range strings.ToLower(s) {
		folded, isLatin := latin[r]
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || isLatin || (r > 127 && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		if !ok {
			pendingSep = b.Len() > 0
			continue
		}
		if pendingSep {
			b.WriteByte('_')
			pendingSep = false
		}
		if isLatin {
			b.WriteString(folded)
		} else {
			b.WriteRune(r)
		}
	}
	out := b.String()
	if len(out) > max {
		out = out[:max]
		for !utf8.ValidString(out) { // never cut inside a letter
			out = out[:len(out)-1]
		}
		if i := strings.LastIndexByte(out, '_'); i > max/2 {
			out = out[:i]
		}
		out = strings.TrimRight(out, "_")
	}
	return out
}
