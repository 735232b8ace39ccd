package scaffold

import (
	"encoding/json"
	"path"
	"strconv"
)

// hookLang is a language init writes hook scripts in.
type hookLang struct {
	// file is the script's path in profiles/<agent>/, and run the profile's hook entry
	// for that path.
	file func(agent string) string
	run  func(file string) string
	// body is the command-line hook and http the HTTP one, with %[1]s the agent and %[2]s
	// the hook's data (the command, or the request and paths) as literal makes it.
	body, http string
	// literal writes JSON as a literal of the language.
	literal func(json []byte) []byte
}

var hooks = map[string]hookLang{
	"node": {
		file:    func(a string) string { return "hooks/" + a + ".mjs" },
		run:     func(f string) string { return "script: " + f },
		body:    nodeCommandHook,
		http:    nodeHTTPHook,
		literal: func(j []byte) []byte { return j }, // JSON is JavaScript
	},
	"python": {
		file:    func(a string) string { return "hooks/" + a + ".py" },
		run:     func(f string) string { return "command: [python3, " + f + "]" },
		body:    pythonCommandHook,
		http:    pythonHTTPHook,
		literal: jsonString, // read with json.loads: Python's literals are not JSON's
	},
	"go": {
		file:    func(a string) string { return "hooks/" + a + "/main.go" },
		run:     func(f string) string { return "command: [go, run, ./" + path.Dir(f) + "]" },
		body:    goCommandHook,
		http:    goHTTPHook,
		literal: func(j []byte) []byte { return []byte(strconv.Quote(string(j))) },
	},
}

// jsonString is JSON as a JSON (and Python) string literal.
func jsonString(j []byte) []byte {
	b, _ := json.Marshal(string(j)) // a string always encodes
	return b
}

// Every hook follows the hook contract: the phase is the last argument, the turn's message
// comes on stdin, one JSON object goes to stdout, diagnostics go to stderr, and a non-zero
// exit fails the turn. The agent's stderr passes through; its stdout is bounded.

const nodeCommandHook = `#!/usr/bin/env node
// Execute hook of agent %[1]s, written by rookgen init. The hook contract: the phase is
// the last argument, the turn's message comes on stdin, one JSON object goes to stdout,
// diagnostics go to stderr, and a non-zero exit fails the turn.
//
// It runs the agent's command line once per turn: {{goal}} in an argument is replaced by
// the message (as one argument: no shell reads it); without one, the message goes on the
// command's stdin. What the command prints on stdout is the reply.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const COMMAND = %[2]s;
const MAX_REPLY = 8 * 1024 * 1024;

const phase = process.argv[2];
if (phase !== 'execute') process.exit(0); // this profile defines execute only

const goal = readFileSync(0, 'utf8');
const inline = COMMAND.some((arg) => arg.includes('{{goal}}'));
const argv = COMMAND.map((arg) => arg.replaceAll('{{goal}}', () => goal)); // a function: $$ and $& in the message are text
// The command runs in the module root (ROOK_WORKSPACE), where init was run: a relative
// path in it means what it meant there.
const res = spawnSync(argv[0], argv.slice(1), {
  cwd: process.env.ROOK_WORKSPACE || undefined,
  input: inline ? '' : goal,
  encoding: 'utf8',
  maxBuffer: MAX_REPLY,
  stdio: ['pipe', 'pipe', 'inherit'],
});
// A command that does not read its input (echo, say) may exit or close it before taking the
// message: writing it then fails with EPIPE, which is no failure of the turn; the command's
// exit status says whether it worked.
if (res.error && !(res.error.code === 'EPIPE' && res.status !== null)) {
  process.stderr.write(argv[0] + ': ' + res.error.message + '\n');
  process.exit(1);
}
if (res.status !== 0) {
  process.stderr.write(argv[0] + ' exited with ' + (res.status ?? res.signal) + '\n');
  process.exit(1);
}
process.stdout.write(JSON.stringify({ output: res.stdout.trim() }) + '\n');
`

const pythonCommandHook = `#!/usr/bin/env python3
"""Execute hook of agent %[1]s, written by rookgen init.

The hook contract: the phase is the last argument, the turn's message comes on stdin, one
JSON object goes to stdout, diagnostics go to stderr, and a non-zero exit fails the turn.

It runs the agent's command line once per turn: {{goal}} in an argument is replaced by the
message (as one argument: no shell reads it); without one, the message goes on the
command's stdin. What the command prints on stdout is the reply.
"""
import json
import os
import subprocess
import sys
import threading

COMMAND = json.loads(%[2]s)
MAX_REPLY = 8 * 1024 * 1024


def main():
    phase = sys.argv[-1] if len(sys.argv) > 1 else ""
    if phase != "execute":
        return 0  # this profile defines execute only
    goal = sys.stdin.read()
    inline = any("{{goal}}" in arg for arg in COMMAND)
    argv = [arg.replace("{{goal}}", goal) for arg in COMMAND]
    try:
        # The command runs in the module root (ROOK_WORKSPACE), where init was run: a
        # relative path in it means what it meant there.
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                cwd=os.environ.get("ROOK_WORKSPACE") or None)
    except OSError as err:
        print(argv[0] + ": " + str(err), file=sys.stderr)
        return 1
    # The message is written while the reply is read, so that a command that answers as it
    # reads never waits on a full pipe; one that does not read its input (echo, say) may
    # close it first, which is no failure of the turn: its exit status says whether it worked.
    def feed():
        try:
            proc.stdin.write(b"" if inline else goal.encode())
            proc.stdin.close()
        except BrokenPipeError:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass

    with proc:
        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        out = proc.stdout.read(MAX_REPLY + 1)
        if len(out) > MAX_REPLY:
            proc.kill()
            print(argv[0] + " printed more than " + str(MAX_REPLY) + " bytes", file=sys.stderr)
            return 1
        status = proc.wait()
        writer.join()
    if status != 0:
        print(argv[0] + " exited with " + str(status), file=sys.stderr)
        return 1
    print(json.dumps({"output": out.decode("utf-8", "replace").strip()}))
    return 0


sys.exit(main())
`
