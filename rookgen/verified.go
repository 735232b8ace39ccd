package main

import (
	"fmt"
	"os"
	"strings"
)

// The header of a profile whose probe failed after rookgen init wrote it: its first line,
// and its last, which a probe that succeeds looks for to remove it.
const (
	unverifiedFirst = "# NOT VERIFIED."
	unverifiedLast  = "# (A probe that succeeds removes these lines.)"
)

// markUnverified puts a header at the top of the profile at path (under its schema line)
// saying that its probe failed, why, and the command that probes it again. The reason is
// the hook's or the agent's words: each line is quoted, as the probe shows it.
func markUnverified(path, why, again string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("mark %s unverified: %w", path, err)
	}
	var b strings.Builder
	b.WriteString(unverifiedFirst + " rookgen init wrote this profile, but its probe failed:\n")
	lines := strings.Split(strings.TrimSpace(why), "\n")
	if len(lines) > 12 {
		lines = append(lines[:12], fmt.Sprintf("(and %d more lines)", len(lines)-12))
	}
	for _, l := range lines {
		fmt.Fprintf(&b, "#   %s\n", quoteOutput(l, 200))
	}
	fmt.Fprintf(&b, "# Fix the hook, the profile or the agent, then run: %s\n%s\n", again, unverifiedLast)
	text := string(data)
	head := ""
	if first, rest, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(first, "# yaml-language-server:") {
		head, text = first+"\n", rest
	}
	if err := os.WriteFile(path, []byte(head+b.String()+text), 0o644); err != nil {
		return fmt.Errorf("mark %s unverified: %w", path, err)
	}
	return nil
}

// removeUnverifiedHeader removes the header markUnverified wrote, and reports whether there was one.
func removeUnverifiedHeader(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("clear %s: %w", path, err)
	}
	text := string(data)
	start := strings.Index(text, unverifiedFirst)
	if start < 0 || (start > 0 && text[start-1] != '\n') {
		return false, nil
	}
	end := strings.Index(text[start:], unverifiedLast+"\n")
	if end < 0 {
		return false, nil
	}
	text = text[:start] + text[start+end+len(unverifiedLast)+1:]
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return false, fmt.Errorf("clear %s: %w", path, err)
	}
	return true, nil
}
