// End-to-end: an agent task on an MCP server in the page's task mode (release
// build, Chromium). The bank of examples/agent/bank_server.py (the official MCP
// Python SDK, installed by scripts/test_mcp.sh) serves Streamable HTTP on
// loopback and allows the page's origin (CORS); the page's two mock models
// run examples/agent/bank_mcp.yaml against it and get the CLI's report of
// the same task on the same server: the same trajectories, the same end
// states (each case its own session, so its own world), the same scores.
// Nothing but the site and the MCP server is contacted. A server that is down
// fails each case with its cause, and the run ends with its report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
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
async function runInPage(task, errors, requests) {
  const page = await newPage(browser, errors);
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
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
