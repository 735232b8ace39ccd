// A hook for the bank demo target, written the way Rook's own demo hooks are: one script for
// every phase (the phase is argv[2]), the session kept in ROOK_STATE_DIR (required in every
// phase, prepare included), the goal read from stdin in execute, one JSON object on stdout,
// and from collect the whole session's calls and usage again, with an evidence_file.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const phase = process.argv[2] ?? process.env.ROOK_HOOK;
const base = (process.env.BANK_BASE_URL ?? '').replace(/\/$/, '');
if (!base) throw new Error('BANK_BASE_URL is required');
const directory = process.env.ROOK_STATE_DIR;
if (!directory) throw new Error('ROOK_STATE_DIR is required');
await mkdir(directory, { recursive: true });
const stateFile = join(directory, 'bank-session.json');
const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${process.env.BANK_API_TOKEN}` };

async function request(path, body) {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST', headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(30000),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(`bank HTTP ${res.status}: ${data.error ?? 'request failed'}`);
  return data;
}

async function conversation() {
  const value = JSON.parse(await readFile(stateFile, 'utf8')).conversation;
  if (!/^[0-9a-f-]{36}$/.test(value)) throw new Error('invalid stored conversation');
  return value;
}

let output = {};
if (phase === 'prepare') output = await request('/health');
else if (phase === 'open') {
  output = await request('/api/sessions', { engine: process.env.BANK_ENGINE, variant: process.env.BANK_VARIANT, fault: process.env.BANK_FAULT ?? 'none' });
  await writeFile(stateFile, JSON.stringify(output), { mode: 0o600 });
} else if (phase === 'execute') {
  let goal = '';
  for await (const chunk of process.stdin) goal += chunk;
  const id = await conversation();
  const data = await request(`/api/sessions/${id}/chat`, { goal });
  output = { output: data.output, agent_reply: data.output, conversation: id, calls: data.calls, usage: data.usage };
} else if (phase === 'close') output = await request(`/api/sessions/${await conversation()}/close`, {});
else if (phase === 'collect') {
  const id = await conversation();
  const data = await request(`/api/sessions/${id}/evidence`);
  const evidenceFile = resolve(directory, `evidence-${id}.json`);
  await writeFile(evidenceFile, JSON.stringify(data, null, 2));
  output = {
    conversation: id,
    output: JSON.stringify({ sessionId: id, engine: data.engine, variant: data.variant, effects: data.effects, verificationGaps: data.verificationGaps }),
    evidence_file: evidenceFile,
    evidence_kind: 'Target observations of the whole session',
    calls: data.calls, usage: data.usage, traces: data.traces,
  };
} else throw new Error(`unsupported hook phase: ${phase}`);
console.error(`bank hook: ${phase} done`);
process.stdout.write(JSON.stringify(output));
