package scaffold

// The hooks for an HTTP agent, read from a cURL command. %[1]s is the agent, %[2]s the
// configuration (the request, and the paths of the reply, the conversation id, the tool
// calls and the usage in the response) as the language's literal of its JSON.

const nodeHTTPHook = `#!/usr/bin/env node
// Execute hook of agent %[1]s, written by rookgen init from a cURL command. The hook
// contract: the phase is the last argument, the turn's message comes on stdin, one JSON
// object goes to stdout, diagnostics go to stderr, and a non-zero exit fails the turn.
//
// Each turn sends the request below with {{goal}} replaced by the message and
// {{conversation}} by the conversation id an earlier turn returned (ROOK_CONVERSATION),
// then reads the reply, and the conversation id, tool calls and usage when their paths
// are set, from the JSON response. {{env:NAME}} is filled from variable NAME: the
// credentials of the request are read from the environment, never written here.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const CONFIG = %[2]s;
const MAX_RESPONSE = 8 * 1024 * 1024;

const fail = (msg) => { process.stderr.write(msg + '\n'); process.exit(1); };
if (process.argv[2] !== 'execute') process.exit(0); // this profile defines execute only

const goal = readFileSync(0, 'utf8');
const conversation = process.env.ROOK_CONVERSATION ?? '';
// One pass, and a function as the replacement: the message arrives byte for byte ($$, $&
// and {{conversation}} in it are text, not patterns).
// A credential is read from its variable when the request is sent: no file holds it.
const env = (name) => process.env[name] || fail(name + ' is not set (a credential of the request)');
// {{lbrace}} is a literal "{{" of the source the request was drafted from: its text is sent
// as it is, never read as a placeholder.
const fill = (s, encode) => s.replace(/\{\{(goal|conversation|lbrace|env:[A-Za-z_][A-Za-z0-9_]*)\}\}/g,
  (_, key) => key === 'lbrace' ? '{{' : encode(key === 'goal' ? goal : key === 'conversation' ? conversation : env(key.slice(4))));
// Before the agent gave a conversation id, a field or header that holds only
// {{conversation}} is left out rather than sent empty.
const noConversation = (x) => x === '{{conversation}}' && conversation === '';
const fillJSON = (v) => typeof v === 'string' ? fill(v, (x) => x)
  : Array.isArray(v) ? v.map(fillJSON)
  : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([, x]) => !noConversation(x)).map(([k, x]) => [k, fillJSON(x)]))
  : v;

const req = CONFIG.request;
const headers = {};
for (const h of req.headers) if (!noConversation(h.value)) headers[h.name] = fill(h.value, (x) => x);
// The trace context, so that an agent service that propagates it puts its spans in this
// scenario's trace (the token in tracestate lets the run take them). The service exports
// to the profile's fixed address (traces: {otlp: 127.0.0.1:4318}) on its own schedule:
// start it with OTEL_BSP_SCHEDULE_DELAY=100 (the SDKs wait 5 s by default), or flush after
// each request, and say the schedule in settle_ms (docs/traces.md).
if (process.env.TRACEPARENT) headers.traceparent = process.env.TRACEPARENT;
if (process.env.TRACESTATE) headers.tracestate = process.env.TRACESTATE;
const body = req.body ? JSON.stringify(fillJSON(JSON.parse(req.body))) : undefined;
// node:http rather than fetch: fetch's first request in a process spends some 50 ms
// setting itself up, which would be counted as the agent's.
const send = (url) => new Promise((resolve, reject) => {
  const r = (url.startsWith('https:') ? https : http).request(url, { method: req.method, headers, timeout: 55000 }, (res) => {
    const chunks = [];
    let size = 0;
    res.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_RESPONSE) { res.destroy(); reject(new Error('the response is larger than ' + MAX_RESPONSE + ' bytes')); }
      chunks.push(chunk);
    });
    res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', reject);
  });
  r.on('timeout', () => r.destroy(new Error('no answer within 55 s')));
  r.on('error', reject);
  r.end(body);
});
// The agent's own time, request to whole response: the latency check uses it rather than
// this process's, which includes starting Node.
const started = performance.now();
let res;
try {
  res = await send(fill(req.url, encodeURIComponent));
} catch (err) {
  fail(req.method + ' ' + req.url + ': ' + err.message);
}
const latency = Math.round(performance.now() - started);
const text = res.text;
// Refused: say how each credential is sent, so that the one to fix can be found.
const sent = () => {
  const where = [];
  const find = (s, place) => { for (const [, n] of String(s).matchAll(/\{\{env:([A-Za-z_][A-Za-z0-9_]*)\}\}/g)) where.push(n + ' in ' + place); };
  find(req.url, 'the URL');
  for (const h of req.headers) find(h.value, 'the ' + h.name + ' header');
  find(req.body ?? '', 'the body');
  return where.length ? ' (the request sends ' + where.join(', ') + ')' : '';
};
if (res.status < 200 || res.status > 299) fail(req.method + ' ' + req.url + ' answered ' + res.status + ': ' + text.slice(0, 500) + (res.status === 401 || res.status === 403 ? sent() : ''));
let data;
try { data = JSON.parse(text); } catch { fail('the response is not JSON: ' + text.slice(0, 500)); }

const at = (path) => {
  let v = data;
  for (const [, name, index] of path.matchAll(/\.([^.[]+)|\[(\d+)\]/g)) {
    if (v == null) return undefined;
    v = name !== undefined ? v[name] : v[Number(index)];
  }
  return v;
};
const reply = at(CONFIG.reply);
if (typeof reply !== 'string') fail('no text at ' + CONFIG.reply + ' in the response: ' + text.slice(0, 500));
const out = { output: reply, latency_ms: latency };
if (CONFIG.conversation) {
  const id = at(CONFIG.conversation);
  if (id != null) out.conversation = String(id);
}
// A path that matches nothing leaves calls (or a usage count) out: not observed this
// turn, which is not the same as "none".
if (CONFIG.calls) {
  const calls = at(CONFIG.calls);
  if (calls != null && !Array.isArray(calls)) fail('no list at ' + CONFIG.calls + ' in the response');
  if (calls != null) out.calls = calls.map((c) => {
    let args = c.arguments ?? c.args ?? c.input ?? c.function?.arguments ?? {};
    if (typeof args === 'string') { try { args = JSON.parse(args); } catch { /* kept as text */ } }
    return { name: c.name ?? c.tool ?? c.function?.name ?? '', arguments: args, output: c.output ?? c.result };
  });
}
if (CONFIG.usage) {
  const u = at(CONFIG.usage);
  if (u && typeof u === 'object') {
    const input = u.input ?? u.input_tokens ?? u.prompt_tokens;
    const output = u.output ?? u.output_tokens ?? u.completion_tokens;
    out.usage = {};
    if (input != null) out.usage.input = input;
    if (output != null) out.usage.output = output;
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
`

const pythonHTTPHook = `#!/usr/bin/env python3
"""Execute hook of agent %[1]s, written by rookgen init from a cURL command.

The hook contract: the phase is the last argument, the turn's message comes on stdin, one
JSON object goes to stdout, diagnostics go to stderr, and a non-zero exit fails the turn.

Each turn sends the request below with {{goal}} replaced by the message and
{{conversation}} by the conversation id an earlier turn returned (ROOK_CONVERSATION), then
reads the reply, and the conversation id, tool calls and usage when their paths are set,
from the JSON response. {{env:NAME}} is filled from variable NAME: the credentials of the
request are read from the environment, never written here.
"""
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

CONFIG = json.loads(%[2]s)
MAX_RESPONSE = 8 * 1024 * 1024


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def main():
    if (sys.argv[-1] if len(sys.argv) > 1 else "") != "execute":
        return  # this profile defines execute only
    goal = sys.stdin.read()
    conversation = os.environ.get("ROOK_CONVERSATION", "")

    def value(key):
        if key == "goal":
            return goal
        if key == "conversation":
            return conversation
        # A credential is read from its variable when the request is sent: no file holds it.
        v = os.environ.get(key[4:])
        if not v:
            fail(key[4:] + " is not set (a credential of the request)")
        return v

    def fill(s, encode=lambda x: x):
        # One pass: {{conversation}} inside the message is text, not a placeholder.
        # {{lbrace}} is a literal "{{" of the source the request was drafted from.
        return re.sub(r"\{\{(goal|conversation|lbrace|env:[A-Za-z_][A-Za-z0-9_]*)\}\}",
                      lambda m: "{{" if m.group(1) == "lbrace" else encode(value(m.group(1))), s)

    def fill_json(v):
        if isinstance(v, str):
            return fill(v)
        if isinstance(v, list):
            return [fill_json(x) for x in v]
        if isinstance(v, dict):
            return {k: fill_json(x) for k, x in v.items() if not no_conversation(x)}
        return v

    # Before the agent gave a conversation id, a field or header that holds only
    # {{conversation}} is left out rather than sent empty.
    def no_conversation(x):
        return x == "{{conversation}}" and conversation == ""

    req = CONFIG["request"]
    headers = {}
    for h in req["headers"]:
        if not no_conversation(h.get("value", "")):
            headers[h["name"]] = fill(h.get("value", ""))
    # The trace context, so that an agent service that propagates it puts its spans in
    # this scenario's trace (the token in tracestate lets the run take them). The service
    # exports to the profile's fixed address (traces: {otlp: 127.0.0.1:4318}) on its own
    # schedule: start it with OTEL_BSP_SCHEDULE_DELAY=100 (the SDKs wait 5 s by default),
    # or flush after each request, and say the schedule in settle_ms (docs/traces.md).
    for var, name in (("TRACEPARENT", "traceparent"), ("TRACESTATE", "tracestate")):
        if os.environ.get(var):
            headers[name] = os.environ[var]
    body = None
    if req.get("body"):
        body = json.dumps(fill_json(json.loads(req["body"]))).encode()
    url = fill(req["url"], lambda x: urllib.parse.quote(x, safe=""))
    request = urllib.request.Request(url, data=body, headers=headers, method=req["method"])
    # The agent's own time, request to whole response: the latency check uses it rather
    # than this process's, which includes starting Python.
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=55) as res:
            raw = res.read(MAX_RESPONSE + 1)
    except urllib.error.HTTPError as err:
        why = ""
        if err.code in (401, 403):
            # Refused: say how each credential is sent, so that the one to fix can be found.
            where = [n + " in the URL" for n in re.findall(r"\{\{env:([A-Za-z_][A-Za-z0-9_]*)\}\}", req["url"])]
            for h in req["headers"]:
                where += [n + " in the " + h["name"] + " header" for n in re.findall(r"\{\{env:([A-Za-z_][A-Za-z0-9_]*)\}\}", h.get("value", ""))]
            where += [n + " in the body" for n in re.findall(r"\{\{env:([A-Za-z_][A-Za-z0-9_]*)\}\}", req.get("body") or "")]
            if where:
                why = " (the request sends " + ", ".join(where) + ")"
        fail(req["method"] + " " + req["url"] + " answered " + str(err.code) + ": " + err.read(500).decode("utf-8", "replace") + why)
    except (urllib.error.URLError, OSError) as err:
        fail(req["method"] + " " + req["url"] + ": " + str(err))
    if len(raw) > MAX_RESPONSE:
        fail("the response is larger than " + str(MAX_RESPONSE) + " bytes")
    latency = round((time.monotonic() - started) * 1000)
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        fail("the response is not JSON: " + text[:500])

    def at(path):
        v = data
        for name, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path):
            if v is None:
                return None
            try:
                v = v[name] if name else v[int(index)]
            except (KeyError, IndexError, TypeError):
                return None
        return v

    reply = at(CONFIG["reply"])
    if not isinstance(reply, str):
        fail("no text at " + CONFIG["reply"] + " in the response: " + text[:500])
    out = {"output": reply, "latency_ms": latency}
    if CONFIG.get("conversation"):
        cid = at(CONFIG["conversation"])
        if cid is not None:
            out["conversation"] = str(cid)
    # A path that matches nothing leaves calls (or a usage count) out: not observed this
    # turn, which is not the same as "none".
    if CONFIG.get("calls"):
        calls = at(CONFIG["calls"])
        if calls is not None and not isinstance(calls, list):
            fail("no list at " + CONFIG["calls"] + " in the response")
        if calls is not None:
            out["calls"] = []
            for c in calls:
                fn = c.get("function") or {}
                args = c.get("arguments", c.get("args", c.get("input", fn.get("arguments", {}))))
                if isinstance(args, str):
                    try:
                        args = json.loads(args)
                    except ValueError:
                        pass
                out["calls"].append({"name": c.get("name", c.get("tool", fn.get("name", ""))), "arguments": args,
                                     "output": c.get("output", c.get("result"))})
    if CONFIG.get("usage"):
        u = at(CONFIG["usage"])
        if isinstance(u, dict):
            counts = {"input": ("input", "input_tokens", "prompt_tokens"), "output": ("output", "output_tokens", "completion_tokens")}
            out["usage"] = {}
            for name, keys in counts.items():
                found = [u[k] for k in keys if u.get(k) is not None]
                if found:
                    out["usage"][name] = found[0]
    print(json.dumps(out))


main()
`
