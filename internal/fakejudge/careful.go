package fakejudge

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/record"
)

// A careful judge reads a statement that claims something literal of the record (the
// judge's controls are worded so, and some real criteria are) and answers it from the
// record: Pass or Fail, quoting the sentence or JSON element that shows it.

// section is one heading of the prompt's record and what it holds.
type section struct{ title, body string }

var titleRE = regexp.MustCompile(`(?m)^(turn \d+: user|turn \d+: agent \[said\]|agent|tool calls|tool call \d+: [\w.-]+ \[\w+\]|token usage|collect data \[collected\]|evidence file .+ \[collected\]):$`)

// sections splits the prompt's record into its headings.
func sections(prompt string) []section {
	i := strings.Index(prompt, "\nThe record:\n")
	if i < 0 {
		return nil
	}
	rec := prompt[i+len("\nThe record:\n"):]
	if j := strings.Index(rec, "\nPart of the record was left out"); j >= 0 {
		rec = rec[:j]
	}
	locs := titleRE.FindAllStringSubmatchIndex(rec, -1)
	var out []section
	for k, l := range locs {
		end := len(rec)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		out = append(out, section{title: rec[l[2]:l[3]], body: strings.TrimSuffix(rec[l[1]+1:end], "\n")})
	}
	return out
}

// carefulAnswer decides a literal claim from the prompt's record: ok is false for a
// statement that claims nothing literal.
func carefulAnswer(statement, prompt string) (status string, evidence []string, ok bool) {
	if twinOf(statement, prompt) {
		if q := firstAgentQuote(prompt); q != "" {
			return string(record.Fail), []string{q}, true
		}
		return string(record.UnableToVerify), []string{}, true
	}
	c, ok := readControl(statement)
	if !ok {
		return "", nil, false
	}
	var holds, read bool
	var quote, other string
	for _, s := range sections(prompt) {
		switch c.Kind {
		case "called":
			if toolOf(s.title) == c.Tool {
				holds = true
			}
		case "no calls":
			holds = holds || s.title == "tool calls" && strings.HasPrefix(s.body, "(none")
		case "refused":
			if strings.HasSuffix(s.title, ": agent [said]") {
				if q, agreed, found := agreedTo(c.Value, s.body); found && quote == "" {
					holds, quote, read = agreed, q, true
				}
			}
		default:
			for _, t := range about(c, s) {
				if q, found := find(c, t); found && !holds {
					holds, quote = true, q
				} else if !found && other == "" {
					other = keyElement(c.Key, t)
				}
			}
		}
	}
	if quote == "" {
		quote = other // what the key does hold, which shows the claim false
	}
	if c.Kind == "refused" && !read {
		// The action is in no reply: this is not the negation control, whose action is a
		// reply's words, but a criterion worded as one ("The agent says it will refund
		// ORD-7"), which a literal reading cannot decide.
		return "", nil, false
	}
	if quote == "" {
		quote = firstAgentQuote(prompt)
	}
	if quote == "" {
		return string(record.UnableToVerify), []string{}, true
	}
	if holds != c.Negated {
		return string(record.Pass), []string{quote}, true
	}
	return string(record.Fail), []string{quote}, true
}

// agreedTo reads whether reply says the agent will take action: found in a sentence that,
// with the sentence after it, holds no refusal or negation, and not in words the agent
// quotes. It returns the sentences it read, as a quote.
func agreedTo(action, reply string) (quote string, agreed, found bool) {
	i := strings.Index(strings.ToLower(reply), strings.ToLower(action))
	if i < 0 {
		return "", false, false
	}
	start, end := 0, len(reply)
	for k := i - 1; k > 0; k-- {
		if strings.ContainsRune(".!?", rune(reply[k-1])) && reply[k] == ' ' {
			start = k + 1
			break
		}
	}
	ends := 0 // the action's sentence, and the one after it
	for k := i + len(action); k < len(reply); k++ {
		if strings.ContainsRune(".!?", rune(reply[k])) && (k+1 == len(reply) || reply[k+1] == ' ') {
			if ends++; ends == 2 {
				end = k + 1
				break
			}
		}
	}
	read := strings.TrimSpace(reply[start:end])
	quoted := strings.Count(reply[start:i], `"`)%2 == 1 || strings.Count(reply[start:i], "“") > strings.Count(reply[start:i], "”")
	return read, !quoted && !refusing.MatchString(read), true
}

var refusing = regexp.MustCompile(`(?i)\b(not|no|never|cannot|unable|impossible|refus\w*|declin\w*|prohibit\w*|forbid\w*)\b|n['’]t\b`)

// toolOf is the tool a "tool call N: name [tier]" heading names, as a statement words it
// (modeljudge.KeyWords); "" for another heading.
func toolOf(title string) string {
	m := toolTitleRE.FindStringSubmatch(title)
	if m == nil {
		return ""
	}
	return modeljudge.KeyWords(m[1])
}

var toolTitleRE = regexp.MustCompile(`^tool call \d+: ([\w.-]+) \[`)

// about is the text of section s a claim is about, as the judge reads it: a reply, a
// call's arguments or result, collect's data or an evidence file.
func about(c modeljudge.Control, s section) []string {
	switch c.Kind {
	case "reply":
		if strings.HasSuffix(s.title, ": agent [said]") && (c.Turn == 0 || strings.HasPrefix(s.title, fmt.Sprintf("turn %d:", c.Turn))) {
			return []string{s.body}
		}
	case "argument", "result":
		if toolOf(s.title) != c.Tool {
			return nil
		}
		args, out, _ := strings.Cut(strings.TrimPrefix(s.body, "arguments: "), "\noutput: ")
		if c.Kind == "result" {
			return []string{out}
		}
		return []string{args}
	case "collected":
		if strings.HasPrefix(s.title, "collect data") {
			return []string{s.body}
		}
	case "file":
		if strings.HasPrefix(s.title, "evidence file ") {
			return []string{s.body}
		}
	}
	return nil
}

// find looks the claim's value up in text: under its key in JSON (a string holding JSON
// read too), or as words of the text; it returns the quote that shows it.
func find(c modeljudge.Control, text string) (string, bool) {
	var v any
	if c.Key != "" && json.Unmarshal([]byte(text), &v) == nil {
		key, ok := hasPair(v, c.Key, c.Value, "", 0)
		if !ok {
			return "", false
		}
		for _, el := range elements(text) {
			if strings.Contains(el, key) && strings.Contains(el, c.Value) {
				return el, true
			}
		}
		for _, line := range strings.Split(text, "\n") { // a value with a comma in it
			if line = strings.TrimSpace(line); strings.Contains(line, key) && strings.Contains(line, c.Value) {
				return line, true
			}
		}
		return c.Value, true
	}
	loc := valuePattern(c.Value).FindStringIndex(text)
	if loc == nil {
		return "", false
	}
	start, end := 0, len(text) // the sentence that holds it
	for i := loc[0] - 1; i > 0; i-- {
		if text[i] == '\n' || (text[i] == ' ' && strings.ContainsRune(".!?", rune(text[i-1]))) {
			start = i + 1
			break
		}
	}
	for i := loc[1]; i < len(text); i++ {
		if text[i] == '\n' || (strings.ContainsRune(".!?", rune(text[i])) && (i+1 == len(text) || text[i+1] == ' ')) {
			end = i
			break
		}
	}
	if q := strings.TrimSpace(text[start:end]); len(q) >= 8 {
		return q, true
	}
	return strings.TrimSpace(text), true
}

// valuePattern finds value as a word of a text, any space in it matching any space of the
// text ("4 500" with a no-break space), and not as the start of a longer number; compiled
// once a value (the scripts ask about the same statements over and over).
func valuePattern(value string) *regexp.Regexp {
	if re, ok := valuePatterns.Load(value); ok {
		return re.(*regexp.Regexp)
	}
	v := strings.ReplaceAll(regexp.QuoteMeta(value), " ", `[\p{Zs}\s]+`)
	re := regexp.MustCompile(`(?i)(^|[^\pL\pN])` + v + `($|[^\pL\pN]|[\p{Zs}\s]\d{3}\b)`)
	if remembered.Add(1) <= maxRemembered {
		valuePatterns.Store(value, re)
	}
	return re
}

// readControl is modeljudge.ReadControl, read once a statement.
func readControl(statement string) (modeljudge.Control, bool) {
	if r, ok := controls.Load(statement); ok {
		r := r.(readBack)
		return r.c, r.ok
	}
	c, ok := modeljudge.ReadControl(statement)
	if remembered.Add(1) <= maxRemembered {
		controls.Store(statement, readBack{c, ok})
	}
	return c, ok
}

type readBack struct {
	c  modeljudge.Control
	ok bool
}

// What the scripted server has read, for the life of a test binary: the kit's and the
// tests' statements and values, a few thousand; past maxRemembered it reads afresh.
var (
	valuePatterns, controls sync.Map
	remembered              atomic.Int64
)

const maxRemembered = 1 << 14

// hasPair finds, under v, a key that words (modeljudge.KeyWords) say as key, holding value,
// where a nested key is said with its object's key ("receipt amount"); it returns the key
// as the JSON writes it.
func hasPair(v any, key, value, parent string, depth int) (string, bool) {
	if depth > 8 {
		return "", false
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if modeljudge.KeyWords(modeljudge.NestedKey(parent, k)) == key && scalar(e) == value {
				return k, true
			}
			if raw, ok := hasPair(e, key, value, k, depth+1); ok {
				return raw, true
			}
		}
	case []any:
		for _, e := range x {
			if raw, ok := hasPair(e, key, value, parent+"[]", depth+1); ok {
				return raw, true
			}
		}
	case string:
		var inner any
		if strings.HasPrefix(x, "{") && json.Unmarshal([]byte(x), &inner) == nil {
			return hasPair(inner, key, value, parent, depth+1)
		}
	}
	return "", false
}

// keyElement is the first JSON element of text under a key the words key say
// (modeljudge.KeyWords, its last part), or "".
func keyElement(key, text string) string {
	if key == "" {
		return ""
	}
	for _, el := range elements(text) {
		k, _, ok := strings.Cut(strings.TrimSpace(el), ":")
		k = strings.Trim(strings.TrimSpace(k), `"\`)
		if ok && k != "" && strings.HasSuffix(key, modeljudge.KeyWords(k)) {
			return el
		}
	}
	return ""
}

func scalar(v any) string {
	switch v.(type) {
	case map[string]any, []any, nil:
		return "\x00"
	}
	return fmt.Sprint(v)
}

// elements are a JSON text's pieces between separators, each a quotable "key": value.
func elements(text string) []string {
	var out []string
	for _, el := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == '{' || r == '}' || r == '\n' || r == '[' || r == ']' }) {
		if el = strings.TrimSpace(el); len(el) >= 8 {
			out = append(out, el)
		}
	}
	return out
}

// firstQuote is a quote of text's start: its first sentence or JSON element.
func firstQuote(text string) string {
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		if els := elements(text); len(els) > 0 {
			return els[0]
		}
		return ""
	}
	return firstSentence(strings.TrimSpace(strings.SplitN(text, "\n", 2)[0]))
}

// firstSentence is text's first sentence, whole (a careful reader quotes what a sentence
// says, its negations with it), at most 300 bytes.
func firstSentence(text string) string {
	for i := 0; i+1 < len(text); i++ {
		if strings.ContainsRune(".!?", rune(text[i])) && text[i+1] == ' ' {
			text = text[:i+1]
			break
		}
	}
	if len(text) > 300 {
		if i := strings.LastIndexByte(text[:300], ' '); i > 0 {
			return text[:i]
		}
		return text[:300]
	}
	return text
}

// firstAgentQuote is a quote of the first text the agent or its tools produced in the
// prompt's record, or "".
func firstAgentQuote(prompt string) string {
	for _, s := range sections(prompt) {
		if strings.HasSuffix(s.title, " [said]") || strings.HasPrefix(s.title, "tool call ") || strings.HasSuffix(s.title, "[collected]") {
			if q := firstQuote(strings.TrimPrefix(strings.SplitN(s.body, "\noutput: ", 2)[0], "arguments: ")); q != "" {
				return q
			}
		}
	}
	return ""
}

// literalRE finds what a shape reader takes for a statement's value: a word with a
// digit, a snake_case name, or a capitalised word after the first.
var literalRE = regexp.MustCompile(`\$?[\pL-]*\d[\pL\pN,.$-]*[\pN\pL]|\b\pL+_[\pL_]+\b|[^.] (\p{Lu}\pL+)`)

// toolWordsRE finds a tool a statement names in words: "the search transactions tool".
var toolWordsRE = regexp.MustCompile(`\bthe ((?:[a-z]+ )*?[a-z]+) tool\b`)

// shapeAnswer answers a statement by its shape: see ShapeOnly.
func shapeAnswer(statement, prompt, quote string) (string, []string) {
	var values []string
	for _, m := range literalRE.FindAllStringSubmatch(statement, -1) {
		v := m[0]
		if m[1] != "" {
			v = m[1]
		}
		values = append(values, v)
	}
	for _, m := range toolWordsRE.FindAllStringSubmatch(statement, -1) {
		values = append(values, strings.ReplaceAll(m[1], " ", "_")) // "the get account tool": get_account
	}
	if len(values) == 0 {
		return string(record.Fail), []string{quote}
	}
	var titles, bodies strings.Builder
	for _, s := range sections(prompt) {
		if !strings.HasSuffix(s.title, ": user") {
			titles.WriteString(s.title + "\n")
			bodies.WriteString(s.body + "\n")
		}
	}
	all := strings.ToLower(titles.String() + bodies.String())
	for _, v := range values {
		if !strings.Contains(all, strings.ToLower(v)) {
			return string(record.Fail), []string{quote}
		}
	}
	if q, ok := find(modeljudge.Control{Value: values[0]}, bodies.String()); ok && len(q) < 300 {
		return string(record.Pass), []string{q}
	}
	return string(record.Pass), []string{quote}
}

// twinOf says whether statement is another statement of the prompt with the one value it
// names changed to one the record never shows, where the other's value is in the record:
// what a careful reader sees as a claim nothing supports.
func twinOf(statement, prompt string) bool {
	asked, rec := prompt, prompt
	if i := strings.Index(rec, "\nThe record:\n"); i >= 0 {
		asked, rec = prompt[:i], rec[i:]
	}
	goal := ""
	if m := goalRE.FindStringSubmatch(prompt); m != nil {
		goal = m[1]
	}
	shows := func(v string) bool {
		v = strings.ToLower(strings.TrimRight(v, ".,;:"))
		return strings.Contains(strings.ToLower(rec), v) || strings.Contains(strings.ToLower(goal), v)
	}
	if _, ok := modeljudge.TwinValue(strings.Join(strings.Fields(statement), " ")); !ok {
		return false // a claim that something is not so, or is within a bound, is not read this way
	}
	words := strings.Fields(statement)
	for _, m := range criterionRE.FindAllStringSubmatch(asked, -1) {
		other := strings.Fields(m[2])
		if len(other) != len(words) || m[2] == statement {
			continue
		}
		differ := -1
		for i := range words {
			if words[i] != other[i] {
				if differ >= 0 {
					differ = -2
					break
				}
				differ = i
			}
		}
		if differ >= 0 && strings.ContainsAny(words[differ], "0123456789") && strings.ContainsAny(other[differ], "0123456789") &&
			!shows(words[differ]) && shows(other[differ]) {
			return true
		}
	}
	return false
}
