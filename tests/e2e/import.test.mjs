// End-to-end: other evaluators' results in the viewer (`?mode=view`), read in
// the page (nothing uploaded): a promptfoo output, Inspect AI logs (.eval and
// .json), an lm-evaluation-harness output (samples with results), an OpenAI
// Evals API run with its items, and an oaieval log each open as a run; a
// promptfoo run and an Inspect log of the same questions are compared side
// by side, paired by their inputs, on promptfoo's `pass` against Inspect's
// `match`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startSite, launch, newPage, ROOT } from './helpers.mjs';

const FIX = path.join(ROOT, 'crates/core/tests/data/import');
let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

async function openViewer() {
  const errors = [];
  const page = await newPage(browser, errors);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${site.url}/?mode=view&lang=en`);
  await page.waitForSelector('[data-testid=open-report]');
  return { page, errors, requests };
}

const rowIds = (page) => page.locator('[data-testid=case-row]').evaluateAll((rs) => rs.map((r) => r.dataset.id));

test('each tool\'s file opens in the viewer as a run, read in the page', async () => {
  const lm = path.join(FIX, 'lm_eval/fixture-org__tiny-fixture-lm');
  const cases = [
    { files: [path.join(FIX, 'promptfoo/out.json')], rows: 10, note: 'imported from promptfoo 0.121.20', id: 'capital of France' },
    { files: [path.join(FIX, 'inspect/log.eval')], rows: 10, note: 'imported from inspect_ai 0.3.285', id: 'q1#1' },
    { files: [path.join(FIX, 'inspect/log.json')], rows: 10, note: 'imported from inspect_ai 0.3.285', id: '3#2' },
    { files: fs.readdirSync(lm).map((f) => path.join(lm, f)), rows: 8, note: 'imported from lm-evaluation-harness 0.4.13', id: 'gsm8k_tiny/3' },
    { files: [path.join(FIX, 'openai_evals/run.json'), path.join(FIX, 'openai_evals/output_items.json')], rows: 5, note: 'imported from openai-evals-api', id: '0' },
    { files: [path.join(FIX, 'openai_evals/oaieval_log.jsonl')], rows: 6, note: 'imported from openai-evals', id: 'capitals.dev.5' },
  ];
  for (const c of cases) {
    const { page, errors, requests } = await openViewer();
    await page.setInputFiles('[data-testid=open-report]', c.files);
    await page.waitForSelector('[data-testid=case-row]');
    const ids = await rowIds(page);
    assert.equal(ids.length, c.rows, `${c.files[0]}: ${ids}`);
    assert.ok(ids.includes(c.id), `${c.files[0]}: ${ids}`);
    assert.ok((await page.textContent('body')).includes(c.note), c.note);
    // The readers are fetched when such a file is opened, not with the viewer.
    assert.equal(requests.filter((u) => /split_import.*\.wasm/.test(u)).length, 1);
    // Read in the page: nothing left its origin.
    assert.deepEqual(requests.filter((u) => !u.startsWith(site.url)), []);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('a promptfoo run and an Inspect log of the same questions, compared side by side', async () => {
  const { page, errors } = await openViewer();
  await page.setInputFiles('[data-testid=open-report]', path.join(FIX, 'paired/promptfoo.json'));
  await page.waitForSelector('[data-testid=case-row]');
  await page.setInputFiles('[data-testid=open-compare]', path.join(FIX, 'paired/inspect.eval'));
  await page.waitForSelector('[data-testid=pair-picker]');
  // The two tools name their verdicts each its own way: pair pass with match.
  await page.selectOption('[data-testid=pair-metric-a]', 'pass');
  await page.selectOption('[data-testid=pair-metric-b]', 'match');
  await page.click('[data-testid=compare-pair]');
  await page.waitForSelector('[data-testid=compare-row][data-metric=pass]');
  const cells = await page.locator('[data-testid=compare-row][data-metric=pass] td').evaluateAll((ts) => ts.map((t) => t.textContent));
  // n = 6 cases paired by their inputs; promptfoo passed 4, Inspect 5.
  assert.equal(cells[1], '6', cells.join(' | '));
  assert.equal(cells[2], '0.667', cells.join(' | '));
  assert.equal(cells[3], '0.833', cells.join(' | '));
  assert.ok((await page.textContent('body')).includes('paired by the hash of their input'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a Hugging Face Parquet dataset in the task mode: its reader is fetched only when one is opened', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${site.url}/?mode=task&lang=en`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('valid samples'));
  const reader = (u) => /split_parquet.*\.wasm/.test(u);
  assert.deepEqual(requests.filter(reader), [], 'not in the first load');
  await page.setInputFiles('[data-testid=task-dataset-file]', path.join(FIX, 'parquet/capitals.parquet'));
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('6 valid samples'));
  assert.equal(requests.filter(reader).length, 1, requests.filter((u) => u.endsWith('.wasm')).join(' '));
  // A file that is not Parquet inside is refused, naming it.
  const bad = path.join(ROOT, 'target', 'bad.parquet');
  const bytes = fs.readFileSync(path.join(FIX, 'parquet/capitals.parquet'));
  bytes.fill(0, bytes.length / 2, bytes.length - 8);
  fs.writeFileSync(bad, bytes);
  await page.setInputFiles('[data-testid=task-dataset-file]', bad);
  await page.waitForSelector('[data-testid=task-load-error]');
  assert.match(await page.textContent('[data-testid=task-load-error]'), /bad\.parquet/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an Inspect agent log opens with each sample\'s trajectory step by step', async () => {
  const { page, errors } = await openViewer();
  await page.setInputFiles('[data-testid=open-report]', path.join(FIX, 'inspect/log_tools.eval'));
  await page.waitForSelector('[data-testid=case-row]');
  await page.click('[data-testid=case-row][data-id=t2]');
  const shown = page.locator('[data-testid=case-detail] [data-testid=cell-trajectory]');
  await shown.waitFor();
  // a call the tool refused, the call again, the answer
  assert.equal(await shown.locator('[data-testid=trajectory-step]').count(), 3);
  const results = await shown.locator('[data-testid=step-result]').allTextContents();
  assert.equal(results.length, 2);
  assert.match(results[0], /^→ error: [^]*'y' is a required property/);
  assert.equal(results[1], '→ 17');
  assert.deepEqual(await shown.locator('[data-testid=step-call] code.name').allTextContents(), ['add', 'add']);
  assert.deepEqual(errors, []);
});
