package modeljudge

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rookgo/rookgo/internal/check"
)

// A fact is one thing the record shows, that a control can state or deny: a value a reply
// names, a tool that was called, a value a call was given or returned, a value collect or
// an evidence file recorded, or that no tool was called at all.
type fact struct {
	kind  factKind
	turn  int    // inReply: the reply's turn
	tool  string // called, argument, result: the tool
	key   string // argument, result, collected, inFile: the JSON key the value is under ("" for text)
	value string // as it reads in its source
	class valueClass
}

type factKind int

const (
	inReply factKind = iota
	called
	argument
	result
	collected
	inFile     // a value under a key of an evidence file's JSON
	inFileText // a value in an evidence file's text
	noCalls
	refusedAct // an action a reply refuses or negates (refusals): the negation control's
)

// valueClass says how a value can be changed into a false one that still reads right.
type valueClass int

const (
	number     valueClass = iota // 200, $5,000.00, ACC-1001: a digit changes
	name                         // DHL, Thursday, "shipped": another of the record's names
	toolName                     // get_account: another verb
	plainWord                    // a reply's plain word, said quoted: the reply includes "updated"
	structural                   // no value
)

// maxFacts bounds what one record yields; maxValue is the longest value a control names;
// maxFactText is how much of one text facts are looked for in (a control about what the
// prompt's budget left out could not be answered anyway).
const (
	maxFacts    = 400
	maxValue    = 40
	maxFactText = 64 << 10
)

// factText is the start of a text that facts are looked for in, cut on a rune's edge.
func factText(s string) string {
	if len(s) <= maxFactText {
		return s
	}
	n := maxFactText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

var (
	// numberRE is a number as texts write it, its groups separated by commas, or by an
	// apostrophe or any space before three digits ("4 500" with a narrow no-break space).
	numberRE = check.Pattern(`(?:[A-Za-z]{2,}-)?\$?\d(?:[\d,]|['’\p{Zs}]\d{3}\b)*(?:\.\d+)?`)
	nameRE   = check.Pattern(`\b\p{Lu}[\p{L}]{2,}\b`)
	wordRE   = check.Pattern(`\b\p{L}+\b`)
	// loneWordRE is a JSON string value that is one lowercase word: an enum, a kind, a
	// status ("tool", "ok"), which criteria say in their own words, not as the value.
	loneWordRE = check.Pattern(`^\p{Ll}+$`)
	// identifierRE is a JSON string value in snake_case ("get_account", a span's name),
	// which a criterion says in words.
	identifierRE = check.Pattern(`^\p{Ll}[\p{Ll}\p{N}]*(?:_[\p{Ll}\p{N}]+)+$`)
	// machineRE are values no criterion would name: ids, timestamps, measurements to
	// many places.
	machineRE = check.Pattern(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-|^\d{4}-\d\d-\d\dT|\.\d{5,}|\d{13,}`)
)

// recordFacts lists what the record as the judge reads it (redacted) shows, source by
// source, bounded.
func recordFacts(c Case, redact func(string) string) []fact {
	var out []fact
	add := func(f fact) {
		if len(out) < maxFacts {
			out = append(out, f)
		}
	}
	ev := c.Evidence
	for _, t := range ev.Turns().Value {
		reply := factText(redact(t.Output))
		for _, f := range textFacts(reply) {
			f.kind, f.turn = inReply, t.N
			add(f)
		}
		for _, a := range refusals(reply) {
			add(fact{kind: refusedAct, turn: t.N, value: a, class: structural})
		}
	}
	if calls := ev.Calls(); calls.Observed {
		if len(calls.Value) == 0 && calls.Complete { // "no calls" is a fact only of a whole record
			add(fact{kind: noCalls, class: structural})
		}
		for _, call := range calls.Value {
			add(fact{kind: called, tool: call.Name, value: call.Name, class: toolName})
			for _, f := range jsonFacts(call.Arguments, redact) {
				f.kind, f.tool = argument, call.Name
				add(f)
			}
			for _, f := range jsonFacts(call.Output, redact) {
				f.kind, f.tool = result, call.Name
				add(f)
			}
		}
	}
	if data := ev.Collect(); data.Observed {
		// Collect fetches "traces, tool calls, usage, logs, and other delayed evidence"
		// (the hook contract): a control is made of the other evidence, what the agent's
		// work left in the system, as criteria judge it. Its calls and usage are the run's,
		// merged with what the turns reported (observe), and facts of them come from that
		// merged record, never from one source's count; its traces and logs are telemetry
		// no criterion names ("the trace's name is ...").
		rest := make(map[string]any, len(data.Value))
		for k, v := range data.Value {
			if !telemetry[k] {
				rest[k] = v
			}
		}
		for _, f := range jsonFacts(rest, redact) {
			f.kind = collected
			add(f)
		}
	}
	for _, file := range c.Files {
		var v any
		if json.Unmarshal([]byte(file.Text), &v) == nil {
			for _, f := range jsonFacts(v, redact) {
				f.kind = inFile
				add(f)
			}
			continue
		}
		for _, f := range textFacts(factText(redact(file.Text))) {
			f.kind = inFileText
			add(f)
		}
	}
	return out
}

// telemetry are collect data's keys for the run's own record: its calls, usage, traces
// and logs.
var telemetry = map[string]bool{"calls": true, "usage": true, "traces": true, "logs": true}

// unfit are the characters a value a control names may not hold: they would break the
// statement's line or its quoting.
func unfit(r rune) bool { return unicode.IsControl(r) || strings.ContainsRune("\"`\\", r) }

// textFacts are the numbers, identifiers and names a text holds, each once.
func textFacts(s string) []fact {
	var out []fact
	seen := map[string]bool{}
	for _, loc := range numberRE().FindAllStringIndex(s, 40) {
		m := strings.TrimRight(s[loc[0]:loc[1]], ",.")
		if joined(s, loc[0]) || joined(s, loc[0]+len(m)) {
			continue // part of a longer token
		}
		if !seen[m] && len(m) <= maxValue && !machineRE().MatchString(m) {
			seen[m] = true
			out = append(out, fact{value: m, class: number})
		}
	}
	for _, loc := range nameRE().FindAllStringIndex(s, 40) {
		m := s[loc[0]:loc[1]]
		start := strings.TrimRight(s[:loc[0]], " ")
		if seen[m] || start == "" || joined(s, loc[0]) || joined(s, loc[1]) || strings.HasSuffix(start, ".") || strings.HasSuffix(start, "!") || strings.HasSuffix(start, "?") {
			continue // a sentence's first word is no name
		}
		seen[m] = true
		out = append(out, fact{value: m, class: name})
	}
	if len(out) == 0 { // a text of plain words: its longer words
		for _, w := range wordRE().FindAllString(s, 200) {
			if len(out) < 5 && len(w) >= 7 && !seen[strings.ToLower(w)] {
				seen[strings.ToLower(w)] = true
				out = append(out, fact{value: w, class: plainWord})
			}
		}
	}
	return out
}

// jsonFacts are the scalar values of v under their keys, depth first in key order; a
// string holding a JSON object is read as one. A value in a nested object is under its
// object's key and its own ("receipt.amount", "effects.to"), as a reader names it.
func jsonFacts(v any, redact func(string) string) []fact {
	var out []fact
	var walk func(key string, v any, depth int)
	walk = func(key string, v any, depth int) {
		if depth > 6 || len(out) >= maxFacts {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(NestedKey(key, k), x[k], depth+1)
			}
		case []any:
			for _, e := range x {
				walk(key+"[]", e, depth+1)
			}
		case string:
			s := redact(x)
			var inner map[string]any
			if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &inner) == nil {
				walk(key, inner, depth+1)
				return
			}
			if key == "" || len(s) > maxValue || strings.IndexFunc(s, unfit) >= 0 || machineRE().MatchString(s) || strings.TrimSpace(s) == "" ||
				strings.TrimRight(s, ".!?") != s {
				return // a sentence is no value a claim can name ("... need approval.")
			}
			class := name
			if numberRE().FindString(s) == s {
				class = number
			} else if loneWordRE().MatchString(s) || identifierRE().MatchString(s) {
				return // "tool", "ok", "get_account": a lone JSON word or an identifier no criterion names
			}
			out = append(out, fact{key: key, value: s, class: class})
		case float64, json.Number, int, int64:
			if v := fmt.Sprint(x); key != "" && !machineRE().MatchString(v) {
				out = append(out, fact{key: key, value: v, class: number})
			}
		case bool:
			// true and false are JSON's words, which no criterion names: not a control's.
		}
	}
	walk("", v, 0)
	return out
}

// NestedKey is key k of the object under parent, as a reader names it: "receipt.amount",
// the parent's own last part only, a list's objects under the list's key
// ("effects[]" gives "effects.type", a criterion's "effects array"); k alone at the top.
func NestedKey(parent, k string) string {
	if i := strings.LastIndexByte(parent, '.'); i >= 0 {
		parent = parent[i+1:]
	}
	parent = strings.TrimSuffix(parent, "[]")
	if parent == "" {
		return k
	}
	return parent + "." + k
}

// shown keeps the facts whose value (and tool) the prompt's record shows within budget
// bytes: a control about what was left out could not be answered.
func shown(facts []fact, c Case, redact func(string) string, budget int) []fact {
	bare := c
	bare.Criteria = nil
	text, _ := prompt(bare, budget)
	if i := strings.Index(text, "\nThe record:\n"); i >= 0 {
		text = text[i:]
	}
	text = normalise(redact(text))
	var out []fact
	for _, f := range facts {
		if strings.Contains(text, normalise(f.value)) && strings.Contains(text, normalise(f.tool)) {
			out = append(out, f)
		}
	}
	return out
}
