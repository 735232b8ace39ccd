// Package spec reads the two YAML kinds a team writes, profiles (how to reach an agent:
// its hooks, environment, capabilities, traces, pricing) and scenarios (goal, turns,
// acceptance criteria, red-team signals), with line and column for every error, into the
// values the generator and the runtime share; and where they live (workspace.go: the
// module's root, its records root, the generated file of a profile).
package spec
