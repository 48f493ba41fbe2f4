// End-to-end: tool calls in the page's task mode (release build, Chromium).
// The `bfcl` preset with its demo (eight BFCL entries, possible answers on each
// line) on the two mock models gives the same verdicts as the CLI's mock run;
// then a registry model on `evalpage mock-server` scripted to answer with BFCL
// fixture calls (right, and wrong in several ways): each request offers the
// entry's functions as tools, the page shows each case's calls and why a call
// failed, and every verdict equals BFCL's own (crates/core/tests/data/bfcl).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startMock, startSite, launch, newPage, waitStatus, downloadBytes, readStoredZip, cli, tmpDir, ROOT,
} from './helpers.mjs';

const DEMO = path.join(ROOT, 'www/demo/tasks/BFCL_v4_multiple.json');
const FIXTURE = path.join(ROOT, 'crates/core/tests/data/bfcl');

let site; let browser;

before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

const jsonl = (file) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

async function openBfcl(errors) {
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.selectOption('[data-testid=task-preset]', 'bfcl');
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('BFCL_v4_multiple.json'));
  return page;
}

async function zipFiles(page) {
  const zip = await downloadBytes(page, 'download-zip');
  return new Map(readStoredZip(zip.bytes));
}

const toolScores = (scoresText) => Object.fromEntries(scoresText.trim().split('\n').map((l) => JSON.parse(l))
  .filter((s) => s.metric === 'tool_call')
  .map((s) => [`${s.detail.model}/${s.sample_id}`, [s.value, s.detail.error_type ?? null]]));

test('bfcl on the mock models: calls shown per case, the same verdicts as the CLI', async () => {
  const errors = [];
  const page = await openBfcl(errors);
  assert.match(await page.textContent('[data-testid=task-dataset-summary]'), /8 valid samples/);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '16/16');
  assert.ok(await page.locator('[data-testid=cell-call]').count() >= 16, 'every answer shows its calls');
  const files = await zipFiles(page);
  const results = files.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(results.every((r) => r.status === 'ok' && Array.isArray(r.tool_calls)), 'calls are answers, not errors');
  const out = tmpDir('bfcl-cli');
  const run = cli(['run', '--task', 'bfcl', '--mock', '--models', 'mock-a,mock-b', '--dataset', DEMO, '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(toolScores(files.get('scores.jsonl')), toolScores(fs.readFileSync(path.join(out, 'scores.jsonl'), 'utf8')));
  assert.deepEqual(errors, []);
});

test('bfcl against an endpoint: tools offered, calls and failure reasons shown, BFCL\'s verdict on every case', async () => {
  // entry i answers with the i-th kind of answer the fixture has for it
  const answers = jsonl(path.join(FIXTURE, 'answers.jsonl'));
  const verdicts = jsonl(path.join(FIXTURE, 'verdicts.jsonl'));
  const entries = jsonl(DEMO);
  const script = [];
  const want = {};
  entries.forEach((e, i) => {
    const mine = answers.map((a, k) => [a, verdicts[k]]).filter(([a]) => a.id === e.id);
    const [a, v] = mine[(i * 3) % mine.length];
    const q = e.question[0].filter((m) => m.role === 'user').at(-1).content;
    script.push(JSON.stringify({ q, answer: a.response }));
    const unparsable = a.variant === 'bad_json' || a.variant === 'not_object';
    const type = v.error_type?.startsWith('ast_decoder:') && a.variant !== 'text' ? 'parse_error' : v.error_type;
    want[e.id] = [unparsable ? 0 : (v.valid ? 1 : 0), unparsable ? 'parse_error' : type, a.variant];
  });
  assert.ok(Object.values(want).some(([ok]) => ok === 1) && Object.values(want).some(([ok]) => ok === 0));
  const dir = tmpDir('bfcl-script');
  fs.writeFileSync(path.join(dir, 'script.jsonl'), script.join('\n') + '\n');
  const mock = await startMock(['--answers', path.join(dir, 'script.jsonl')]);
  try {
    const errors = [];
    const page = await openBfcl(errors);
    await page.click('[data-testid=task-models-panel] summary');
    const registry = { models: [{ name: 'fc', base_url: mock.url }] };
    await page.fill('[data-testid=registry]', JSON.stringify(registry, null, 2));
    await page.waitForSelector('[data-testid=model-toggle-fc]');
    await page.check('[data-testid=model-toggle-fc]');
    await page.uncheck('[data-testid=model-toggle-mock-a]');
    await page.uncheck('[data-testid=model-toggle-mock-b]');
    const sent = [];
    page.on('request', (req) => { if (req.method() === 'POST') sent.push(JSON.parse(req.postData())); });
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(sent.length, 8);
    for (const body of sent) {
      const e = entries.find((x) => x.question[0].at(-1).content === body.messages.at(-1).content);
      assert.deepEqual(body.tools.map((t) => t.function.name), e.function.map((f) => f.name.replaceAll('.', '_')));
      assert.ok(body.tools.every((t) => t.type === 'function' && t.function.parameters.type === 'object'));
    }
    const files = await zipFiles(page);
    const got = toolScores(files.get('scores.jsonl'));
    for (const [id, [ok, type, variant]] of Object.entries(want)) {
      assert.deepEqual(got[`fc/${id}`], [ok, ok ? null : type], `${id} (${variant})`);
    }
    // a failed case shows its calls (arguments pretty-printed) and why it failed
    const failed = Object.entries(want).find(([, [ok, , variant]]) => !ok && variant !== 'text');
    await page.click(`[data-testid=sample-row][data-sample="${failed[0]}"]`);
    const detail = page.locator('[data-testid=sample-detail]');
    await detail.waitFor();
    assert.match(await detail.locator('[data-testid=cell-why]').first().textContent(), new RegExp(`^tool_call: ${failed[1][1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    assert.ok(await detail.locator('[data-testid=cell-call]').count() >= 1);
    assert.deepEqual(errors, []);
  } finally {
    mock.stop();
  }
});
