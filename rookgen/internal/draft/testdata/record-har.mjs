// Records testdata/assistant.har: Chromium, driven by Playwright's recordHar, loads a small
// web chat page on loopback that talks to its agent service over two turns, and Playwright
// writes the HAR as DevTools would export it. Re-record with:
//
//   npm install --prefix /tmp/pw playwright-core@1.65.1
//   NODE_PATH=/tmp/pw/node_modules node testdata/record-har.mjs /usr/bin/chromium testdata/assistant.har
//
// The page and the service are stand-ins of a team's own web agent; the token is a dummy.
import http from 'node:http';
import { createRequire } from 'node:module';

// require, which reads NODE_PATH, where an import would not.
const { chromium } = createRequire(import.meta.url)('playwright-core');

const [executablePath, out] = process.argv.slice(2);
const page = `<!doctype html><title>Assistant</title><ol id=log></ol><script>
const token = 'sk-demo-5f2b9c0e7a1d4e36';
const say = async (message, session) => {
  const body = session ? { session_id: session, message } : { message };
  const res = await fetch('/api/assistant/messages', { method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Authorization': 'Bearer ' + token, 'X-Client': 'web-chat/2.3' },
    body: JSON.stringify(body) });
  const data = await res.json();
  document.getElementById('log').insertAdjacentHTML('beforeend', '<li>' + data.reply.text);
  return data.session_id;
};
(async () => {
  const session = await say('Hi! Which plans do you offer?');
  await say('And what does the Pro plan cost per month?', session);
  document.title = 'done';
})();
</script>`;

let turn = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    return res.end(page);
  }
  if (req.method === 'POST' && req.url === '/api/assistant/messages') {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      const body = JSON.parse(raw);
      turn++;
      const text = turn === 1 ? 'We offer Basic, Pro and Team plans.' : 'Pro is 12 EUR per month, billed monthly.';
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ session_id: body.session_id || 'conv_8c1e52', reply: { role: 'assistant', text },
        tool_calls: turn === 2 ? [{ name: 'lookup_price', arguments: { plan: 'pro' } }] : [],
        usage: { input_tokens: 21 * turn, output_tokens: 9 * turn } }));
    });
    return;
  }
  res.writeHead(404);
  res.end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
const context = await browser.newContext({ recordHar: { path: out, content: 'embed' } });
const tab = await context.newPage();
await tab.goto(`http://127.0.0.1:${server.address().port}/`);
await tab.waitForFunction(() => document.title === 'done');
await context.close();
await browser.close();
server.close();
