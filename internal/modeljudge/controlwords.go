package modeljudge

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/rookgo/rookgo/internal/check"
)

// How controls are worded, and read back: the templates of each kind of claim, in the voice
// of criteria, and ReadControl, which the project's scripted judge answers controls with.

// A Control is a control's claim as ReadControl reads it back from its statement.
type Control struct {
	// Kind is what the claim is about: "reply", "called", "argument", "result",
	// "collected", "file", "no calls", or "refused" (that the agent agreed to an action,
	// Value, which a reply refuses or negates).
	Kind string
	Turn int // "reply" in a given turn; 0 for any reply
	// Tool and Key are the tool's name and the JSON key as the statement words them
	// (KeyWords).
	Tool    string
	Key     string
	Value   string
	Negated bool
}

// templates word each kind of claim: a statement's first sentence, with {tool}, {key},
// {value} and {turn} in it ({a key}: the key with its article); a positive and a negative
// form each. They are written in the voice of criteria (Rook's and the examples'): the reply
// names, includes or gives; the agent calls or does not call; the recorded value is; no
// call is recorded. A key and a tool are said in words (KeyWords), never as the raw JSON key
// or the tool's identifier; a reply's plain word is quoted.
var templates = map[factKind]struct{ pos, neg []string }{
	inReply: {
		pos: []string{"The reply names {value}.", "The reply includes {value}.", "The agent names {value}.", "The reply gives {value}.",
			"The response includes {value}.", "The reply contains {value}."},
		neg: []string{"The reply does not name {value}.", "The reply does not include {value}.", "The agent does not name {value}.",
			"The response does not include {value}.", "The reply does not contain {value}.", "The reply does not give {value}."},
	},
	called: {
		pos: []string{"The agent calls the {tool} tool.", "The agent uses the {tool} tool.", "A call to the {tool} tool is recorded.",
			"The {tool} tool is invoked.", "The {tool} tool is called."},
		neg: []string{"The agent does not call the {tool} tool.", "The agent never uses the {tool} tool.", "No call to the {tool} tool is recorded.",
			"The {tool} tool is not invoked.", "The {tool} tool is not called."},
	},
	argument: {
		pos: []string{"The agent calls the {tool} tool with {value} as the {key}.", "The {tool} tool is called with the {key} set to {value}.",
			"The agent asks the {tool} tool for {key} {value}.", "The agent passes {value} as the {key} to the {tool} tool."},
		neg: []string{"The agent does not call the {tool} tool with {value} as the {key}.", "The {tool} tool is never called with the {key} set to {value}.",
			"The agent does not ask the {tool} tool for {key} {value}.", "The agent does not pass {value} as the {key} to the {tool} tool."},
	},
	result: {
		pos: []string{"The {tool} tool reports the {key} as {value}.", "The {key} that the {tool} tool returns is {value}.",
			"According to the {tool} tool, the {key} is {value}.", "The {tool} tool returns {value} as the {key}.",
			"The {tool} tool returns {a key} of {value}."},
		neg: []string{"The {tool} tool does not report the {key} as {value}.", "The {key} that the {tool} tool returns is not {value}.",
			"According to the {tool} tool, the {key} is not {value}.", "The {tool} tool does not return {value} as the {key}.",
			"The {tool} tool does not return {a key} of {value}."},
	},
	collected: {
		pos: []string{"The recorded {key} is {value}.", "The system records the {key} as {value}.", "The collected data gives the {key} as {value}."},
		neg: []string{"The recorded {key} is not {value}.", "The system does not record the {key} as {value}.", "The collected data does not give the {key} as {value}."},
	},
	inFile: {
		pos: []string{"The captured evidence gives the {key} as {value}.", "The evidence file records the {key} as {value}.", "In the captured evidence, the {key} is {value}."},
		neg: []string{"The captured evidence does not give the {key} as {value}.", "The evidence file does not record the {key} as {value}.", "In the captured evidence, the {key} is not {value}."},
	},
	inFileText: {
		pos: []string{"The captured evidence includes {value}.", "The evidence file names {value}."},
		neg: []string{"The captured evidence does not include {value}.", "The evidence file does not name {value}."},
	},
	noCalls: {
		pos: []string{"No tool is called.", "The agent answers without calling any tool.", "No business action occurs."},
		neg: []string{"The agent calls a tool.", "At least one tool call is recorded.", "A business action occurs."},
	},
	refusedAct: {
		pos: []string{"The agent agrees to {value}.", "The reply says the agent will {value}.", "The agent says it will {value}.", "The agent offers to {value}."},
		neg: []string{"The agent declines to {value}.", "The reply says the agent will not {value}.", "The agent says it will not {value}.", "The agent does not offer to {value}."},
	},
}

// turnTemplates word a reply's claim when the record holds more than one reply.
var turnTemplates = struct{ pos, neg []string }{
	pos: []string{"The reply in turn {turn} names {value}.", "In turn {turn}, the reply includes {value}."},
	neg: []string{"The reply in turn {turn} does not name {value}.", "In turn {turn}, the reply does not include {value}."},
}

// KeyWords is a JSON key or a tool's name as a criterion says it: its words (snake_case and
// camelCase split, lowercase), a terse key written out ("to" is the destination, "eta" the
// expected arrival). A control names a key or a tool so ("the search transactions tool"),
// and the project's scripted judge reads it back so.
func KeyWords(key string) string {
	var parts []string
	for _, part := range strings.Split(key, ".") { // "receipt.to": its object's key, then its own
		parts = append(parts, keyWord(part))
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// keyWord is one key's words.
func keyWord(key string) string {
	var b strings.Builder
	for i, r := range key {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && i > 0:
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	w := strings.Join(strings.Fields(b.String()), " ")
	if long, ok := keyWords[w]; ok {
		return long
	}
	return w
}

var keyWords = map[string]string{
	"to": "destination", "from": "source", "dst": "destination", "src": "source", "eta": "expected arrival",
	"qty": "quantity", "amt": "amount", "acct": "account", "ref": "reference", "msg": "message", "desc": "description",
	"ts": "time", "num": "number", "id": "identifier", "addr": "address", "cur": "currency", "ccy": "currency",
}

var kindNames = map[factKind]string{inReply: "reply", called: "called", argument: "argument", result: "result",
	collected: "collected", inFile: "file", inFileText: "file", noCalls: "no calls", refusedAct: "refused"}

// say words a claim about f with value v (for a call, v is the tool).
func say(t string, f fact, v string) string {
	if f.kind == called {
		f.tool = v
	}
	if f.class == plainWord {
		v = `"` + v + `"` // the reply includes "updated", as a criterion quotes a plain word
	}
	key := KeyWords(f.key)
	a := "a " + key
	if key != "" && strings.ContainsRune("aeiou", rune(key[0])) {
		a = "an " + key
	}
	return strings.NewReplacer("{a key}", a, "{tool}", KeyWords(f.tool), "{key}", key, "{value}", v, "{turn}", strconv.Itoa(f.turn)).Replace(t)
}

// controlRE reads each template back; compiled on first use, as every pattern of the
// judge's is (check.Pattern).
var controlRE = sync.OnceValue(func() []struct {
	re      *regexp.Regexp
	kind    factKind
	negated bool
} {
	var out []struct {
		re      *regexp.Regexp
		kind    factKind
		negated bool
	}
	add := func(kind factKind, t string, neg bool) {
		p := regexp.QuoteMeta(t)
		// A statement's first sentence: nothing in it ends a sentence (a dot is only one
		// inside a value, "1250.75" or "maya@example.test").
		p = strings.NewReplacer(`\{a key\}`, `an? (?P<key>(?:[^.]|\.\S)+?)`, `\{tool\}`, `(?P<tool>[\w-]+(?: [\w-]+)*?)`, `\{key\}`, `(?P<key>(?:[^.]|\.\S)+?)`, `\{value\}`, `(?P<value>(?:[^.]|\.\S)+?)`,
			`\{turn\}`, `(?P<turn>\d+)`).Replace(p)
		out = append(out, struct {
			re      *regexp.Regexp
			kind    factKind
			negated bool
		}{regexp.MustCompile(`^` + strings.TrimSuffix(p, `\.`) + `\.(?:\s|$)`), kind, neg})
	}
	kinds := make([]factKind, 0, len(templates))
	for k := range templates {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] > kinds[j] }) // the most specific first
	for _, k := range kinds {
		for _, t := range templates[k].neg {
			add(k, t, true)
		}
		for _, t := range templates[k].pos {
			add(k, t, false)
		}
	}
	for _, t := range turnTemplates.neg {
		add(inReply, t, true)
	}
	for _, t := range turnTemplates.pos {
		add(inReply, t, false)
	}
	return out
})

// ReadControl reads a statement worded as controls are back into its claim; ok is false
// for any other statement. The project's scripted judge answers controls with it, as a
// careful judge reading the record would.
func ReadControl(statement string) (c Control, ok bool) {
	s := strings.Join(strings.Fields(statement), " ")
	for _, t := range controlRE() {
		m := t.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		c = Control{Kind: kindNames[t.kind], Negated: t.negated}
		for i, n := range t.re.SubexpNames() {
			switch n {
			case "tool":
				c.Tool = m[i]
			case "key":
				c.Key = m[i] // in words (KeyWords)
			case "value":
				c.Value = m[i]
			case "turn":
				c.Turn, _ = strconv.Atoi(m[i])
			}
		}
		if w := plainWordRE().FindStringSubmatch(c.Value); w != nil {
			c.Value = w[1]
		} else if c.Kind == "reply" && !replyValueRE().MatchString(c.Value) {
			continue // "the reply names the expected delivery day": a criterion's words
		}
		return c, true
	}
	return Control{}, false
}

// replyValueRE is a value as a reply's controls name one (textFacts): a number, a name or
// identifier (capitalised), or one plain word, never a phrase a criterion describes
// ("the expected delivery day", "another customer email").
var (
	replyValueRE = check.Pattern(`^(?:[\p{Lu}\p{N}\p{Sc}]|\p{Ll}+$)`)
	plainWordRE  = check.Pattern(`^"([^"]+)"$`)
)
