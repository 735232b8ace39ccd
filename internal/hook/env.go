package hook

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Scope is where a hook runs, as the ROOK_* variables of the hook contract tell it.
type Scope struct {
	Phase                     string // prepare, open, execute, close or collect
	Workspace, Project, Agent string
	RunID, RunStateDir        string
	StateDir                  string
	// Scenario, Session, Turn and Conversation are a scenario's: prepare gets none, only
	// execute gets Turn, and open no Conversation.
	Scenario, Session string
	Turn              int
	Conversation      string
	// Canary is the token planted for the scenario attempt (ROOK_CANARY); "" for none.
	Canary string
}

// rookVars are the variables the hook contract sets; with them come no other ROOK_* values.
var rookVars = []string{"ROOK_HOOK", "ROOK_WORKSPACE", "ROOK_PROJECT", "ROOK_AGENT", "ROOK_RUN_ID",
	"ROOK_SCENARIO_ID", "ROOK_SESSION", "ROOK_TURN", "ROOK_CONVERSATION", "ROOK_STATE_DIR", "ROOK_RUN_STATE_DIR", "ROOK_CANARY"}

// isRookVar reports whether kv is of the ROOK_ prefix, which the runtime owns: an inherited
// one is dropped, so that each of the contract's is set exactly in its scope and no other
// (ROOK_JUDGE_API_KEY, the judge's credential) reaches a hook or the agent under test.
// ContractVars are the ROOK_* variables the hook contract gives every hook.
func ContractVars() []string { return slices.Clone(rookVars) }

func isRookVar(kv string) bool { return strings.HasPrefix(kv, "ROOK_") }

// Inherited is base without its ROOK_* variables: what a hook, or a process the run starts
// for the same reason (an MCP server a probe asks), inherits of the test's environment.
func Inherited(base []string) []string { return inherited(make([]string, 0, len(base)), base) }

// inherited appends base's variables but ROOK_* ones to dst.
func inherited(dst, base []string) []string {
	out := dst
	for _, kv := range base {
		if !isRookVar(kv) {
			out = append(out, kv)
		}
	}
	return out
}

// Environ is a hook's environment: base (the inherited one) without ROOK_* variables, then
// hookEnv (the profile's hook_env, in key order, its ROOK_* keys ignored), then the scope's
// ROOK_* variables, which win.
func Environ(base []string, hookEnv map[string]string, s Scope) []string {
	env := inherited(make([]string, 0, len(base)+len(hookEnv)+len(rookVars)), base)
	keys := make([]string, 0, len(hookEnv))
	for k := range hookEnv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !strings.HasPrefix(k, "ROOK_") {
			env = append(env, k+"="+hookEnv[k])
		}
	}
	set := func(k, v string) { env = append(env, k+"="+v) }
	set("ROOK_HOOK", s.Phase)
	set("ROOK_WORKSPACE", s.Workspace)
	set("ROOK_PROJECT", s.Project)
	set("ROOK_AGENT", s.Agent)
	set("ROOK_RUN_ID", s.RunID)
	set("ROOK_RUN_STATE_DIR", s.RunStateDir)
	set("ROOK_STATE_DIR", s.StateDir)
	if s.Phase == "prepare" {
		return env
	}
	set("ROOK_SCENARIO_ID", s.Scenario)
	set("ROOK_SESSION", s.Session)
	if s.Canary != "" {
		set("ROOK_CANARY", s.Canary)
	}
	if s.Phase == "execute" {
		set("ROOK_TURN", strconv.Itoa(s.Turn))
	}
	if s.Phase != "open" && s.Conversation != "" {
		set("ROOK_CONVERSATION", s.Conversation)
	}
	return env
}

// NewCanary is a token no agent could emit by chance, an attempt's ROOK_CANARY:
// ROOK-CANARY- and 16 random hex digits.
func NewCanary() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return "ROOK-CANARY-" + hex.EncodeToString(b)
}
