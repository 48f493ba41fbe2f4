// End-to-end: an agent task on an MCP server in the page's task mode (release
// build, Chromium). The bank of examples/agent/bank_server.py (the official MCP
// Python SDK, installed by scripts/test_mcp.sh) serves Streamable HTTP on
// loopback and allows the page's origin (CORS); the page's two mock models
// run examples/agent/bank_mcp.yaml against it and get the CLI's report of
// the same task on the same server: the same trajectories, the same end
// states (each case its own session, so its own world), the same scores.
// Nothing but the site and the MCP server is contacted. A server that is down,
// answers HTML or HTTP 404, lists a tool with an invalid input schema or never answers
// (stand-ins written here, allowing the page's origin) fails each case with
// its cause, shown in the case view and written in the results, and the run
// ends with its report; a server at fault in some cases only (a proxy in
// front of the bank) fails those and the others score as on the bank itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import {
  startSite, launch, newPage, waitStatus, downloadBytes, readStoredZip, cli, tmpDir, ROOT,
} from './helpers.mjs';

const EXAMPLE = path.join(ROOT, 'examples/agent');

/** The python of the venv holding the MCP SDK (scripts/test_mcp.sh installs it once). */
function python() {
  if (process.env.EVALPAGE_MCP_PYTHON) return process.env.EVALPAGE_MCP_PYTHON;
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/test_mcp.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  assert.equal(r.status, 0, 'scripts/test_mcp.sh failed');
  return r.stdout.trim();
}

/** A loopback port nothing listens on (just freed). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** The bank server on a free port, allowing `origin`; resolves once it accepts connections. */
async function startBank(origin) {
  const port = await freePort();
  const proc = spawn(python(), [path.join(EXAMPLE, 'bank_server.py'), '--port', String(port), '--allow-origin', origin],
    { stdio: 'ignore' });
  const deadline = Date.now() + 30000;
  for (;;) {
    const up = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error('the bank server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => proc.kill('SIGKILL') };
}

let site; let browser; let bank;

before(async () => {
  site = await startSite();
  browser = await launch();
  bank = await startBank(new URL(site.url).origin);
});
after(async () => { await browser?.close(); site?.stop(); bank?.stop(); });

const taskFor = (url) => fs.readFileSync(path.join(EXAMPLE, 'bank_mcp.yaml'), 'utf8')
  .replace('mcp: http://127.0.0.1:8765/mcp', `mcp: ${url}`);
const prompt = () => fs.readFileSync(path.join(EXAMPLE, 'bank_prompt.yaml'), 'utf8');
const lines = (text) => text.trim().split('\n').map((l) => JSON.parse(l));
const scoresOf = (text) => Object.fromEntries(lines(text)
  .map((s) => [`${s.detail.model}/${s.sample_id}/${s.metric}`, s.value]));

/** Runs `task` in the page's task mode on the MCP example's dataset; the zip's files. */
async function runInPage(task, errors, requests, query = '') {
  const page = await newPage(browser, errors);
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0${query}`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.fill('[data-testid=task-yaml]', task);
  await page.fill('[data-testid=template-yaml]', prompt());
  await page.setInputFiles('[data-testid=task-dataset-file]', path.join(EXAMPLE, 'bank_mcp.jsonl'));
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('6 valid samples'));
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '12/12');
  const zip = await downloadBytes(page, 'download-zip');
  return { page, files: new Map(readStoredZip(zip.bytes)) };
}

test('an agent task on an MCP server in the page: the CLI\'s report, each case its own world', async () => {
  const task = taskFor(bank.url);
  const dir = tmpDir('agent-mcp');
  fs.writeFileSync(path.join(dir, 'bank_mcp.yaml'), task);
  fs.writeFileSync(path.join(dir, 'bank_prompt.yaml'), prompt());
  const out = path.join(dir, 'out');
  const run = cli(['run', '--task', path.join(dir, 'bank_mcp.yaml'), '--dataset', path.join(EXAMPLE, 'bank_mcp.jsonl'),
    '--mock', '--models', 'mock-a,mock-b', '--out', out]);
  assert.equal(run.status, 0, run.stderr);

  const errors = []; const requests = [];
  const { page, files } = await runInPage(task, errors, requests);
  assert.deepEqual(scoresOf(files.get('scores.jsonl')), scoresOf(fs.readFileSync(path.join(out, 'scores.jsonl'), 'utf8')));
  const results = lines(files.get('results.jsonl'));
  const cliResults = lines(fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8'));
  assert.equal(results.length, 12);
  for (const [a, b] of results.map((r, i) => [r, cliResults[i]])) {
    const key = `${a.model}/${a.sample_id}`;
    assert.equal(a.status, 'ok', `${key}: ${JSON.stringify(a.error)}`);
    assert.deepEqual(a.trajectory, b.trajectory, key);
    assert.deepEqual(a.agent.tools, b.agent.tools, key);
    assert.deepEqual(a.agent.state, b.agent.state, key);
  }
  // each case's world is its own: the rent paid in one case is not in another's
  const state = (model, id) => results.find((r) => r.sample_id === id && r.model === model).agent.state;
  assert.equal(state('mock-b', 'pay_rent').accounts.A1, 150);
  assert.equal(state('mock-b', 'balance').accounts.A1, 950);
  assert.equal(state('mock-b', 'save').accounts.A1, 850);
  assert.ok(results.every((r) => r.agent.tools.includes('transfer')), 'the tools the server listed are recorded');
  const report = JSON.parse(files.get('report.json'));
  const cliReport = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  assert.deepEqual(report.metrics, cliReport.metrics);
  assert.equal(report.metrics.passed_cases, 12);

  // the case view shows the calls the server answered
  await page.click('[data-testid=sample-row][data-sample="pay_rent"]');
  const detail = page.locator('[data-testid=sample-detail]');
  await detail.waitFor();
  const shown = await detail.locator('[data-testid=cell-trajectory]').first().textContent();
  assert.ok(shown.includes('transfer') && shown.includes('LANDLORD'), shown);
  assert.match(await detail.locator('[data-testid=step-latency]').first().textContent(), /^\d+ ms$/, 'each call the server answered shows its latency');

  // nothing but the site and the MCP server was contacted
  const origins = new Set(requests.map((u) => new URL(u).origin));
  assert.deepEqual([...origins].sort(), [new URL(bank.url).origin, new URL(site.url).origin].sort());
  assert.deepEqual(errors, []);
});

test('an MCP server that is down: each case fails with its cause, the run ends with its report', async () => {
  const task = taskFor(`http://127.0.0.1:${await freePort()}/mcp`);
  const errors = []; const requests = [];
  const { files } = await runInPage(task, errors, requests);
  const results = lines(files.get('results.jsonl'));
  assert.equal(results.length, 12);
  for (const r of results) {
    assert.equal(r.status, 'error', `${r.model}/${r.sample_id}`);
    const cause = r.error_detail?.cause ?? '';
    assert.match(cause, /MCP server http:\/\/127\.0\.0\.1:\d+\/mcp: the browser could not reach it/);
    assert.match(cause, /Access-Control-Allow-Origin/);
  }
  const report = JSON.parse(files.get('report.json'));
  assert.equal(report.metrics.cases, 12);
  assert.equal(report.metrics.passed_cases, 0);
});

/**
 * A stand-in MCP server on a free loopback port that allows any origin (CORS,
 * preflights answered) and answers each JSON-RPC request as `answer` says:
 * `{ status, type, body }`, null to never answer, or (with `upstream`, a
 * real server) 'forward' to send it on and its answer back. `asked` lists
 * the methods it was sent.
 */
async function double(answer, upstream = null) {
  const asked = [];
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
    'access-control-allow-headers': 'content-type, accept, mcp-session-id, mcp-protocol-version',
    'access-control-expose-headers': 'mcp-session-id',
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      if (req.method !== 'POST') { res.writeHead(204, cors); res.end(); return; }
      let request = null;
      try { request = JSON.parse(body); } catch { /* not JSON: answered as anything else */ }
      asked.push(request?.method);
      const a = answer(request);
      if (!a) return; // never answered: held open until the server stops
      if (a === 'forward') {
        const headers = {};
        for (const k of ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version']) {
          if (req.headers[k]) headers[k] = req.headers[k];
        }
        fetch(upstream, { method: 'POST', headers, body }).then(async (up) => {
          const back = { ...cors, 'content-type': up.headers.get('content-type') ?? '' };
          if (up.headers.get('mcp-session-id')) back['mcp-session-id'] = up.headers.get('mcp-session-id');
          const text = await up.text();
          res.writeHead(up.status, back);
          res.end(text);
        }, () => res.destroy());
        return;
      }
      res.writeHead(a.status, { ...cors, 'content-type': a.type, 'mcp-session-id': 's1' });
      res.end(a.body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    asked,
    stop: () => { server.closeAllConnections(); server.close(); },
  };
}

/** A well-behaved `initialize` and notification, then `rest` as every other result. */
const protocol = (rest) => (request) => {
  const id = request?.id;
  if (request?.method === 'initialize') {
    return { status: 200, type: 'application/json', body: JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'double', version: '1' } } }) };
  }
  if (request?.method === 'notifications/initialized') return { status: 202, type: 'application/json', body: '' };
  return { status: 200, type: 'application/json', body: JSON.stringify({ jsonrpc: '2.0', id, result: rest }) };
};

for (const [name, answer, cause, status] of [
  ['answers HTML', () => ({ status: 200, type: 'text/html; charset=utf-8', body: '<html><body>Sign in to continue</body></html>' }),
    /answered out of protocol: it answered text\/html, not JSON-RPC: <html>/, 'error'],
  ['lists a tool with an invalid input schema', protocol({ tools: [
    { name: 'get_balance', inputSchema: { type: 'object' } }, { name: 'transfer', inputSchema: 'any' }] }),
  /tool "transfer" has an invalid inputSchema/, 'error'],
  ['never answers', () => null, /no answer within 1 s/, 'timeout'],
  // a status a model endpoint's run stops at: here the server's, failing each case
  ['answers HTTP 404', () => ({ status: 404, type: 'text/plain', body: 'Session not found' }),
    /the MCP server answered HTTP 404: Session not found/, 'error'],
]) {
  test(`an MCP server that ${name}: each case fails with its cause in the page and the results, the run ends`, async () => {
    const server = await double(answer);
    try {
      const errors = []; const requests = [];
      // a short timeout and one attempt, as a person sets them in the address
      const { page, files } = await runInPage(taskFor(server.url), errors, requests, '&timeout=1&attempts=1');
      assert.ok(server.asked.includes('initialize'), `the server was asked: ${server.asked}`);
      const results = lines(files.get('results.jsonl'));
      assert.equal(results.length, 12);
      for (const r of results) {
        const key = `${r.model}/${r.sample_id}`;
        assert.equal(r.status, status, key);
        const c = r.error_detail?.cause ?? '';
        assert.match(c, /MCP server/, `${key}: says it is the server's: ${c}`);
        assert.ok(c.includes(server.url) || r.error_detail.url === server.url, `${key}: names the server: ${JSON.stringify(r.error_detail)}`);
        assert.match(c, cause, key);
      }
      const report = JSON.parse(files.get('report.json'));
      assert.equal(report.metrics.cases, 12);
      assert.equal(report.metrics.passed_cases, 0);

      // the case view says why, for each model
      await page.click('[data-testid=sample-row][data-sample="pay_rent"]');
      const detail = page.locator('[data-testid=sample-detail]');
      await detail.waitFor();
      const shown = await detail.locator('[data-testid=cell-error]').allTextContents();
      assert.equal(shown.length, 2, 'one per model');
      for (const text of shown) {
        assert.match(text, /MCP server/);
        assert.match(text, cause);
      }
      const origins = new Set(requests.map((u) => new URL(u).origin));
      assert.deepEqual([...origins].sort(), [new URL(server.url).origin, new URL(site.url).origin].sort());
      assert.deepEqual(errors, []);
    } finally {
      server.stop();
    }
  });
}

test('an MCP server at fault in some cases: those fail with their cause, the others score as on the bank itself', async () => {
  // in front of the bank: an HTML login page to a balance asked of B2
  // (too_much), no answer to a transfer from B2 (overdraft)
  const proxy = await double((request) => {
    const { name, arguments: args } = request?.params ?? {};
    if (request?.method === 'tools/call' && name === 'get_balance' && args?.account === 'B2') {
      return { status: 200, type: 'text/html; charset=utf-8', body: '<html><body>Sign in to continue</body></html>' };
    }
    if (request?.method === 'tools/call' && name === 'transfer' && args?.from_account === 'B2') return null;
    return 'forward';
  }, bank.url);
  try {
    const dir = tmpDir('agent-mcp-some');
    fs.writeFileSync(path.join(dir, 'bank_mcp.yaml'), taskFor(bank.url));
    fs.writeFileSync(path.join(dir, 'bank_prompt.yaml'), prompt());
    const out = path.join(dir, 'out');
    const run = cli(['run', '--task', path.join(dir, 'bank_mcp.yaml'), '--dataset', path.join(EXAMPLE, 'bank_mcp.jsonl'),
      '--mock', '--models', 'mock-a,mock-b', '--out', out]);
    assert.equal(run.status, 0, run.stderr);
    const clean = lines(fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8'));

    const errors = []; const requests = [];
    // a timeout the bank's own answers meet on a busy machine
    const { page, files } = await runInPage(taskFor(proxy.url), errors, requests, '&timeout=5&attempts=1');
    const results = lines(files.get('results.jsonl'));
    assert.equal(results.length, 12);
    // which cases meet a fault: those whose clean run made the call (the two
    // mock models do not make the same calls)
    const calls = (r) => r.trajectory.flatMap((m) => m.tool_calls ?? [])
      .map((c) => [c.function.name, JSON.parse(c.function.arguments)]);
    const faultOf = (c) => {
      if (calls(c).some(([n, a]) => n === 'get_balance' && a.account === 'B2')) {
        return ['error', /the MCP server answered out of protocol: it answered text\/html, not JSON-RPC: <html>/];
      }
      if (calls(c).some(([n, a]) => n === 'transfer' && a.from_account === 'B2')) return ['timeout', /no answer within 5 s/];
      return null;
    };
    const faulted = clean.filter(faultOf).map((c) => `${c.model}/${c.sample_id}`);
    assert.deepEqual(faulted, ['mock-a/too_much', 'mock-b/overdraft']);
    for (const [r, c] of results.map((r, i) => [r, clean[i]])) {
      const key = `${r.model}/${r.sample_id}`;
      assert.equal(`${c.model}/${c.sample_id}`, key);
      const fault = faultOf(c);
      if (fault) {
        assert.equal(r.status, fault[0], `${key}: ${JSON.stringify(r.error_detail)}`);
        assert.match(r.error_detail?.cause ?? '', fault[1], key);
      } else {
        assert.equal(r.status, 'ok', `${key}: ${JSON.stringify(r.error_detail)}`);
        assert.deepEqual([r.metrics, r.trajectory, r.agent.state], [c.metrics, c.trajectory, c.agent.state], key);
      }
    }
    const report = JSON.parse(files.get('report.json'));
    assert.equal(report.metrics.cases, 12);

    // the case view: mock-b's overdraft says why it failed, mock-a's shows its answer
    await page.click('[data-testid=sample-row][data-sample="overdraft"]');
    const detail = page.locator('[data-testid=sample-detail]');
    await detail.waitFor();
    const cells = detail.locator('[data-testid=sample-cell]');
    assert.equal(await cells.count(), 2, 'one per model');
    assert.equal(await cells.nth(0).locator('[data-testid=cell-error]').count(), 0);
    assert.match(await cells.nth(1).locator('[data-testid=cell-error]').textContent(),
      /^MCP server http:\/\/127\.0\.0\.1:\d+\/mcp: no answer within 5 s/);
    assert.deepEqual(errors, []);
  } finally {
    proxy.stop();
  }
});
