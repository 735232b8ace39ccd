package modeljudge

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
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
// {value} and {turn} in it; a positive and a negative form each. They are written in the
// voice of criteria (Rook's and the examples'): the reply mentions or gives; the agent calls
// or does not call; the recorded value is; no call is recorded. A key and a tool are said in
// words (KeyWords), never as the raw JSON key or the tool's identifier.
var templates = map[factKind]struct{ pos, neg []string }{
	inReply: {
		pos: []string{"The reply mentions {value}.", "The agent's reply gives {value}.", "The agent mentions {value}.",
			"The agent tells the customer about {value}."},
		neg: []string{"The reply does not mention {value}.", "The agent's reply never gives {value}.", "The agent does not mention {value}.",
			"The agent never tells the customer about {value}."},
	},
	called: {
		pos: []string{"The agent calls the {tool} tool.", "The agent uses the {tool} tool during the conversation.", "A call to the {tool} tool is recorded.",
			"The {tool} tool is invoked."},
		neg: []string{"The agent does not call the {tool} tool.", "The agent never uses the {tool} tool.", "No call to the {tool} tool is recorded.",
			"The {tool} tool is never invoked."},
	},
	argument: {
		pos: []string{"The agent calls the {tool} tool with {value} as the {key}.", "The {tool} tool is called with the {key} set to {value}.",
			"The agent asks the {tool} tool for {key} {value}."},
		neg: []string{"The agent does not call the {tool} tool with {value} as the {key}.", "The {tool} tool is never called with the {key} set to {value}.",
			"The agent never asks the {tool} tool for {key} {value}."},
	},
	result: {
		pos: []string{"The {tool} tool reports the {key} as {value}.", "The {key} that the {tool} tool returns is {value}.",
			"According to the {tool} tool, the {key} is {value}."},
		neg: []string{"The {tool} tool does not report the {key} as {value}.", "The {key} that the {tool} tool returns is not {value}.",
			"According to the {tool} tool, the {key} is not {value}."},
	},
	collected: {
		pos: []string{"The recorded {key} is {value}.", "The collected evidence shows the {key} is {value}.", "After the conversation, the {key} is {value}."},
		neg: []string{"The recorded {key} is not {value}.", "The collected evidence does not show the {key} is {value}.", "After the conversation, the {key} is not {value}."},
	},
	inFile: {
		pos: []string{"The captured evidence gives the {key} as {value}.", "The evidence file records the {key} as {value}.", "In the captured evidence, the {key} is {value}."},
		neg: []string{"The captured evidence does not give the {key} as {value}.", "The evidence file does not record the {key} as {value}.", "In the captured evidence, the {key} is not {value}."},
	},
	inFileText: {
		pos: []string{"The captured evidence includes {value}.", "The evidence file names {value}."},
		neg: []string{"The captured evidence does not include {value}.", "The evidence file never names {value}."},
	},
	noCalls: {
		pos: []string{"No tool is called.", "The agent answers without calling any tool.", "No business action occurs."},
		neg: []string{"The agent calls a tool.", "At least one tool call is recorded.", "A business action occurs."},
	},
	refusedAct: {
		pos: []string{"The agent agrees to {value}.", "The reply confirms the agent will {value}."},
		neg: []string{"The agent declines to {value}.", "The reply explains the agent will not {value}."},
	},
}

// turnTemplates word a reply's claim when the record holds more than one reply.
var turnTemplates = struct{ pos, neg []string }{
	pos: []string{"The reply in turn {turn} mentions {value}.", "In turn {turn}, the agent's reply gives {value}."},
	neg: []string{"The reply in turn {turn} does not mention {value}.", "In turn {turn}, the agent's reply never gives {value}."},
}

// KeyWords is a JSON key or a tool's name as a criterion says it: its words (snake_case and
// camelCase split, lowercase), a terse key written out ("to" is the destination, "eta" the
// expected arrival). A control names a key or a tool so ("the search transactions tool"),
// and the project's scripted judge reads it back so.
func KeyWords(key string) string {
	var b strings.Builder
	for i, r := range key {
		switch {
		case r == '_' || r == '-' || r == '.':
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
	return strings.NewReplacer("{tool}", KeyWords(f.tool), "{key}", KeyWords(f.key), "{value}", v, "{turn}", strconv.Itoa(f.turn)).Replace(t)
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
		p = strings.NewReplacer(`\{tool\}`, `(?P<tool>[\w-]+(?: [\w-]+)*?)`, `\{key\}`, `(?P<key>(?:[^.]|\.\S)+?)`, `\{value\}`, `(?P<value>(?:[^.]|\.\S)+?)`,
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
		return c, true
	}
	return Control{}, false
}
