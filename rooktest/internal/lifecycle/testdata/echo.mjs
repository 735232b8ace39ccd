// A trivial execute hook for benchmarks: answer with the goal.
import { readFileSync } from 'node:fs';
const goal = readFileSync(0, 'utf8');
process.stdout.write(JSON.stringify({ output: 'echo: ' + goal, calls: [], usage: { input: 1, output: 1 } }) + '\n');
