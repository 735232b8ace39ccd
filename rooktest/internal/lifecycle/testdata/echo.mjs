// A trivial hook for benchmarks: every phase answers at once; execute echoes the goal.
import { readFileSync } from 'node:fs';
const phase = process.argv[2];
if (phase === 'execute') {
  const goal = readFileSync(0, 'utf8');
  process.stdout.write(JSON.stringify({ output: 'echo: ' + goal, conversation: 'c1', calls: [], usage: { input: 1, output: 1 } }) + '\n');
} else if (phase === 'open') {
  process.stdout.write('{"conversation": "c1"}\n');
}
