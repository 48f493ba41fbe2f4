// End-to-end: the task mode of the release build in Chromium — presets, the
// YAML editor's live located errors, the prompt preview, two mock models side
// by side, the zip of every artifact (checked against the CLI's own run), and a
// registry model on `evalpage mock-server` with a key that must never leave
// memory, over a dataset with a bad line; and task runs resumed after a reload
// (IndexedDB) or from a downloaded event log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startMock, startSite, launch, newPage, waitStatus, download, downloadBytes, readStoredZip,
  parseJsonSeq, cli, tmpDir, dumpIndexedDb, watchMost, ROOT, DATA,
} from './helpers.mjs';

const EVENT_DEMO = path.join(ROOT, 'www/demo/tasks/event_eval.jsonl');
const FILES = ['results.jsonl', 'scores.jsonl', 'summary.csv', 'report.md', 'report.json', 'summary.json',
  'run_meta.json', 'dataset_fingerprint.json', 'model_snapshot.json',
  'report.events.jsonl', 'report.events.json-seq'];

let site; let browser;

before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

/** Opens the task mode (mock answers without pretend latency). */
async function openTask(errors = []) {
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  return page;
}

const startEnabled = (page) => page.waitForFunction(
  () => document.querySelector('[data-testid=start]')?.disabled === false);

/** Downloads the zip and returns its files as a Map name -> text. */
async function zipFiles(page) {
  const zip = await downloadBytes(page, 'download-zip');
  assert.match(zip.name, /\.zip$/);
  return new Map(readStoredZip(zip.bytes));
}

test('event_eval: preview, a broken YAML blocks the run, two mock models side by side, one zip of every artifact', async () => {
  const errors = [];
  const page = await openTask(errors);
  await page.selectOption('[data-testid=task-preset]', 'support_qa');
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('support_qa.jsonl'));
  await page.selectOption('[data-testid=task-preset]', 'event_eval');
  await page.waitForFunction(() => document.querySelector('[data-testid=prompt-preview]')?.textContent.includes('Ticker: AAPL'));
  assert.match(await page.textContent('[data-testid=task-dataset-summary]'), /event_eval\.jsonl.*8 valid samples/);

  const good = await page.inputValue('[data-testid=task-yaml]');
  await page.fill('[data-testid=task-yaml]', good.replace('serialize_fields:', 'serialise_fields:'));
  await page.waitForSelector('[data-testid=task-yaml-errors] li');
  const [err] = await page.locator('[data-testid=task-yaml-errors] li').allTextContents();
  assert.match(err, /^event_eval\.yaml:7:\d+: .*unknown field `serialise_fields`/);
  assert.equal(await page.getAttribute('[data-testid=task-yaml-errors] li', 'data-line'), '7');
  assert.ok(await page.isDisabled('[data-testid=start]'), 'run disabled while the task is invalid');
  assert.equal(await page.locator('[data-testid=prompt-preview]').count(), 0);

  await page.fill('[data-testid=task-yaml]', good);
  await startEnabled(page);
  assert.match(await page.textContent('[data-testid=task-yaml-status]'), /✓ event_eval v1/);
  assert.ok(await page.isChecked('[data-testid=model-toggle-mock-a]'));
  assert.ok(await page.isChecked('[data-testid=model-toggle-mock-b]'));
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '16/16');

  assert.deepEqual(await page.locator('[data-testid=summary-model]').allTextContents(), ['mock-a', 'mock-b']);
  assert.deepEqual(await page.locator('[data-testid=summary-answered] td').allTextContents(), ['8', '8']);
  assert.equal(await page.locator('[data-testid=sample-row]').count(), 8);
  assert.equal(await page.locator('[data-testid=sample-cell]').count(), 16);
  assert.equal(await page.locator('[data-testid=parsed-field]').count(), 16 * 3);
  const misses = await page.locator('.mv.miss').count();
  const problems = await page.locator('[data-testid=parse-problem]').count();
  assert.ok(misses + problems > 0, 'at least one near miss or parse problem is shown');
  await page.check('[data-testid=only-problems]');
  assert.ok(await page.locator('[data-testid=sample-row]').count() < 8);

  const files = await zipFiles(page);
  assert.deepEqual([...files.keys()], FILES);
  const report = JSON.parse(files.get('report.json'));
  assert.equal(report.metrics.cases, 8 * 2);
  assert.equal(files.get('results.jsonl').trim().split('\n').length, 16);
  assert.equal(files.get('summary.csv').trim().split('\n').length, 3);
  assert.deepEqual(report.report.experiment.run_config.models, ['mock-a', 'mock-b']);
  const records = parseJsonSeq(files.get('report.events.json-seq'));
  assert.equal(records.filter((r) => r.record_type === 'case').length, 16);
  assert.equal(records.at(-1).record_type, 'summary');
  assert.equal(files.get('report.events.jsonl').trim().split('\n').length, records.length);
  const alone = await download(page, 'download-task-report');
  assert.equal(alone.name, 'report.json');
  assert.equal(alone.text, files.get('report.json'));
  const cells = await page.locator('[data-testid=summary-metric][data-metric=sentiment_acc] td').allTextContents();
  const mean = (m) => report.report.summaries.find((s) => s.model === m && s.metric === 'sentiment_acc').mean.toFixed(3);
  assert.ok(cells[0].startsWith(mean('mock-a')) && cells[1].startsWith(mean('mock-b')), cells.join(' | '));

  // The same mock models in the CLI give the same scores, and the page's log reconciles.
  const dir = tmpDir('task-e2e');
  for (const name of ['report.json', 'report.events.json-seq']) fs.writeFileSync(path.join(dir, name), files.get(name));
  const rec = cli(['reconcile', '--report', path.join(dir, 'report.json'), '--events', path.join(dir, 'report.events.json-seq')]);
  assert.equal(rec.status, 0, rec.stdout + rec.stderr);
  const out = tmpDir('task-cli');
  const run = cli(['run', '--task', 'event_eval', '--mock', '--models', 'mock-a,mock-b', '--dataset', EVENT_DEMO, '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  const fromCli = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  assert.deepEqual(report.scores, fromCli.scores);
  assert.deepEqual(report.report.summaries, fromCli.report.summaries);
  assert.deepEqual(report.metrics, fromCli.metrics);
  // spec 003's four sections, a breakdown by length even for untagged samples
  assert.match(files.get('report.md'), /## Breakdown by length/);
  assert.deepEqual(errors, []);
});

test('a template no sample can fill stops the run before any call, naming the field', async () => {
  const errors = [];
  const page = await openTask(errors);
  const yaml = (await page.inputValue('[data-testid=task-yaml]')).replace('prompt_template: ie_json', 'prompt_template: my_prompt');
  await page.fill('[data-testid=task-yaml]', yaml);
  await page.fill('[data-testid=template-yaml]', 'name: my_prompt\nversion: v3\nuser: "Rate {{ tickr }}"\n');
  await page.waitForSelector('[data-testid=prompt-preview-error]');
  await startEnabled(page);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  const stopped = await page.textContent('[data-testid=stopped]');
  assert.match(stopped, /The run stopped before sending anything: no sample's prompt could be rendered \(8 sample\(s\)\)/);
  assert.match(stopped, /field `tickr`/);
  assert.equal(await page.locator('[data-testid=stopped]').count(), 1);
  const files = await zipFiles(page);
  const report = JSON.parse(files.get('report.json'));
  assert.equal(report.report.error_cases.length, 16, 'every case recorded as failed, none dropped');
  const records = parseJsonSeq(files.get('report.events.json-seq'));
  assert.ok(records.some((r) => r.record_type === 'error' && /tickr/.test(r.message)), 'the log says why');
  assert.deepEqual(errors, []);
});

test('the code that checks a task comes after the first load: Start pressed before it fetches it, then runs', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const requested = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) requested.push(new URL(r.url()).pathname.split('/').pop()); });
  // The checking code is held back until Start has been pressed.
  const held = [];
  let hold = true;
  await page.route('**/*.split_task_code.wasm', (route) => (hold ? held.push(route) : route.continue()));
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  assert.match(requested[0], /^evalpage-task-[0-9a-f]+_bg\.wasm$/, `the bundle first: ${requested}`);
  assert.match(await page.textContent('[data-testid=task-yaml-status]'), /checking/);
  await page.click('[data-testid=start]');
  hold = false;
  for (const r of held.splice(0)) await r.continue();
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '16/16');
  assert.match(await page.textContent('[data-testid=task-yaml-status]'), /✓ event_eval v1/);
  await page.waitForSelector('[data-testid=prompt-preview]');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the code that checks a task fails to load: the editor says so with a retry, Start says so too, the retry checks and runs', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  let fail = true;
  await page.route('**/*.split_task_code.wasm', (route) => (fail ? route.abort() : route.continue()));
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-code-error]');
  assert.match(await page.textContent('[data-testid=task-code-error]'), /code that checks the task could not be fetched; check the network and try again/);
  assert.doesNotMatch(await page.textContent('[data-testid=task-yaml-status]'), /checking/);
  await page.click('[data-testid=start]');
  await page.waitForSelector('[data-testid=start-error]');
  assert.match(await page.textContent('[data-testid=start-error]'), /code that checks the task could not be fetched/);
  fail = false;
  await page.click('[data-testid=task-code-retry]');
  await page.waitForSelector('[data-testid=prompt-preview]');
  assert.match(await page.textContent('[data-testid=task-yaml-status]'), /✓ event_eval v1/);
  assert.equal(await page.locator('[data-testid=task-code-error]').count(), 0, 'the error goes once the code is here');
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '16/16');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a registry model on mock-server: the key is sent, never downloaded or stored; a bad dataset line is listed and skipped', async () => {
  const KEY = 'sk-e2e-TASK-SECRET-9137';
  const mock = await startMock();
  try {
    const page = await openTask();
    await page.setInputFiles('[data-testid=task-dataset-file]', path.join(DATA, 'task_one_bad_line.jsonl'));
    await page.waitForSelector('[data-testid=task-line-errors] li');
    const skipped = await page.locator('[data-testid=task-line-errors] li').allTextContents();
    assert.equal(skipped.length, 1);
    assert.match(skipped[0], /^task_one_bad_line\.jsonl:3: /);
    assert.match(await page.textContent('[data-testid=task-dataset-summary]'), /3 valid samples · 1 lines skipped/);

    await page.click('[data-testid=task-models-panel] summary');
    await page.fill('[data-testid=registry]', `{"models": [\n  {"name": "local",\n   "base_url": "127.0.0.1/v1"}\n]}`);
    await page.waitForSelector('[data-testid=registry-errors] li');
    assert.match(await page.textContent('[data-testid=registry-errors] li'),
      /^registry\.json:2: `models\[0\]\.base_url`: expected an http:\/\/ or https:\/\/ URL/);
    const registry = { models: [{ name: 'local', base_url: mock.url, model: 'evalpage-demo', api_key_env: 'LOCAL_KEY', default_params: { temperature: 0 } }] };
    await page.fill('[data-testid=registry]', JSON.stringify(registry, null, 2));
    await page.waitForSelector('[data-testid=model-key-local]');
    await page.fill('[data-testid=model-key-local]', KEY);
    await page.check('[data-testid=model-toggle-local]');
    await page.uncheck('[data-testid=model-toggle-mock-b]');

    const seen = [];
    page.on('request', (req) => { if (req.method() === 'POST') seen.push([req.headers().authorization, JSON.parse(req.postData())]); });
    await startEnabled(page);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(seen.length, 3, 'one call per valid sample');
    for (const [auth, body] of seen) {
      assert.equal(auth, `Bearer ${KEY}`);
      assert.equal(body.model, 'evalpage-demo');
      assert.equal(body.temperature, 0);
      assert.deepEqual(body.response_format, { type: 'json_object' });
    }
    assert.deepEqual(await page.locator('[data-testid=summary-model]').allTextContents(), ['mock-a', 'local']);
    // mock-server answers these prompts with the demo model's prose: no JSON object, a parse problem each.
    assert.deepEqual(await page.locator('[data-testid=summary-parse-problems] td').allTextContents(), ['0', '3']);
    assert.ok(await page.locator('[data-testid=parse-problem]').count() >= 3);

    const files = await zipFiles(page);
    assert.deepEqual([...files.keys()], FILES);
    for (const [name, text] of files) assert.ok(!text.includes(KEY), `${name} holds the key`);
    const report = JSON.parse(files.get('report.json'));
    assert.equal(report.metrics.cases, 3 * 2);
    assert.equal(report.report.line_errors.length, 1);
    assert.equal(report.report.line_errors[0].line, 3);
    const snapshot = JSON.parse(files.get('model_snapshot.json'));
    const local = snapshot.models.find((m) => m.name === 'local');
    assert.equal(local.api_key_env, 'LOCAL_KEY');
    assert.ok(!(await download(page, 'download-task-report')).text.includes(KEY));
    assert.ok(!page.url().includes(KEY));
    const stored = await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage));
    assert.ok(!stored.includes(KEY), 'not in web storage');
    assert.ok(!(await dumpIndexedDb(page)).includes(KEY), 'not in IndexedDB');
    assert.ok(!(await page.content()).includes(KEY), 'not in the markup');
  } finally { mock.stop(); }
});

test('a task naming its own template gets a template editor; the mode is kept in the URL', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en`);
  await page.click('[data-testid=mode-task]');
  await page.waitForSelector('[data-testid=task-yaml]');
  assert.match(page.url(), /[?&]mode=task/);
  assert.match(page.url(), /lang=en/);
  const yaml = (await page.inputValue('[data-testid=task-yaml]')).replace('prompt_template: ie_json', 'prompt_template: my_prompt');
  await page.fill('[data-testid=task-yaml]', yaml);
  await page.waitForSelector('[data-testid=template-yaml-errors] li');
  assert.match(await page.textContent('[data-testid=template-yaml-errors] li'), /`my_prompt` is not a built-in template/);
  assert.ok(await page.isDisabled('[data-testid=start]'));
  await page.fill('[data-testid=template-yaml]', 'name: my_prompt\nversion: v3\nuser: "Rate {{ ticker }}: {{ news_items }}"\n');
  await page.waitForFunction(() => document.querySelector('[data-testid=prompt-preview]')?.textContent.includes('Rate AAPL: [{"title"'));
  await startEnabled(page);
  await page.fill('[data-testid=template-yaml]', 'name: my_prompt\nversion: v3\nuser: "Rate {{ tickr }}"\n');
  await page.waitForSelector('[data-testid=prompt-preview-error]');
  assert.match(await page.textContent('[data-testid=prompt-preview-error]'), /S001: .*no field `tickr`/);

  await page.reload();
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.click('[data-testid=mode-rag]');
  await page.waitForSelector('[data-testid=dataset-panel]');
  assert.doesNotMatch(page.url(), /mode=/);
});

/** report.json's per-model summaries and scores of one model. */
function ofModel(report, model) {
  return {
    summaries: report.report.summaries.filter((s) => s.model === model),
    scores: report.scores.filter((s) => s.detail?.model === model),
  };
}

/** Writes the page's report and json-seq log and checks them with `evalpage reconcile`. */
function reconciles(files, prefix) {
  const dir = tmpDir(prefix);
  for (const name of ['report.json', 'report.events.json-seq']) fs.writeFileSync(path.join(dir, name), files.get(name));
  const rec = cli(['reconcile', '--report', path.join(dir, 'report.json'), '--events', path.join(dir, 'report.events.json-seq')]);
  assert.equal(rec.status, 0, rec.stdout + rec.stderr);
}

/** The CLI's report.json for `event_eval` over the demo with these extra arguments. */
function cliTaskReport(args, env = {}) {
  const out = tmpDir('task-resume-cli');
  const run = cli(['run', '--task', 'event_eval', '--dataset', EVENT_DEMO, '--out', out, ...args], env);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
}

const settledIn = (offer) => Number(offer.match(/(\d+)\/16 calls settled/)[1]);

test('a task run survives a reload: offered back, the key asked again, only unsettled calls sent, same scores as the CLI', async () => {
  const KEY = 'sk-e2e-RESUME-SECRET-4242';
  const mock = await startMock(['--latency-ms', '300']);
  try {
    const page = await newPage(browser, []);
    await page.goto(`${site.url}/?mode=task&lang=en&concurrency=1&demo_latency=4`);
    await page.waitForSelector('[data-testid=task-yaml]');
    const registry = { models: [{ name: 'local', base_url: mock.url, model: 'evalpage-demo', api_key_env: 'LOCAL_KEY', default_params: { temperature: 0 } }] };
    const regDir = tmpDir('task-resume-reg');
    const regPath = path.join(regDir, 'registry.json');
    fs.writeFileSync(regPath, JSON.stringify(registry, null, 2));
    await page.click('[data-testid=task-models-panel] summary');
    await page.fill('[data-testid=registry]', JSON.stringify(registry, null, 2));
    await page.waitForSelector('[data-testid=model-key-local]');
    await page.fill('[data-testid=model-key-local]', KEY);
    await page.check('[data-testid=model-toggle-local]');
    await page.uncheck('[data-testid=model-toggle-mock-b]');
    await startEnabled(page);
    await page.click('[data-testid=start]');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0]) >= 5);
    await page.reload();

    await page.waitForSelector('[data-testid=resume-offer]');
    const offer = await page.textContent('[data-testid=resume-offer]');
    assert.match(offer, /event_eval · event_eval\.jsonl · mock-a, local/);
    const settled = settledIn(offer);
    assert.ok(settled >= 5 && settled < 16, offer);
    const stored = await dumpIndexedDb(page);
    assert.ok(!stored.includes(KEY), 'no key in IndexedDB');
    assert.ok(stored.includes('LOCAL_KEY'), 'the registry entry is stored');
    const storedCases = JSON.parse(stored).flatMap((db) => db.stores.events?.values ?? [])
      .map((line) => JSON.parse(line)).filter((r) => r.record_type === 'case');
    assert.equal(storedCases.length, settled);
    const localDone = storedCases.filter((r) => r.model === 'local').length;
    assert.ok(localDone > 0 && localDone < 8, `${localDone} of the registry model's calls settled before the reload`);

    // Keys are memory-only: Resume restores the inputs, then asks for the key.
    await page.click('[data-testid=resume-run]');
    await page.waitForSelector('[data-testid=start-error]');
    assert.match(await page.textContent('[data-testid=start-error]'), /^local: type its API key again/);
    assert.ok(await page.isChecked('[data-testid=model-toggle-local]'));
    assert.ok(!(await page.isChecked('[data-testid=model-toggle-mock-b]')));
    const seen = [];
    page.on('request', (req) => { if (req.method() === 'POST' && req.url().includes('/chat/completions')) seen.push(req.headers().authorization); });
    await page.fill('[data-testid=model-key-local]', KEY);
    await page.click('[data-testid=resume-run]');
    await waitStatus(page, 'done');
    assert.equal(await page.textContent('[data-testid=progress]'), '16/16');
    assert.equal(seen.length, 8 - localDone, 'only the unsettled calls of the registry model are sent');
    for (const auth of seen) assert.equal(auth, `Bearer ${KEY}`);

    const files = await zipFiles(page);
    for (const [name, text] of files) assert.ok(!text.includes(KEY), `${name} holds the key`);
    const report = JSON.parse(files.get('report.json'));
    assert.equal(report.metrics.cases, 16);
    const records = parseJsonSeq(files.get('report.events.json-seq'));
    assert.equal(records.filter((r) => r.record_type === 'case').length, 16);
    assert.equal(records[0].run_id, storedCases[0].run_id, 'the run id is kept');
    reconciles(files, 'task-resume-rec');
    const mockCli = cliTaskReport(['--mock', '--models', 'mock-a']);
    const localCli = cliTaskReport(['--models', 'local', '--model-registry', regPath], { LOCAL_KEY: KEY });
    assert.deepEqual(ofModel(report, 'mock-a'), ofModel(mockCli, 'mock-a'));
    assert.deepEqual(ofModel(report, 'local'), ofModel(localCli, 'local'));

    await page.reload();
    await page.waitForSelector('[data-testid=task-yaml]');
    await page.waitForTimeout(300);
    assert.equal(await page.locator('[data-testid=resume-offer]').count(), 0, 'a finished run is not offered again');
    assert.ok(!(await dumpIndexedDb(page)).includes(KEY));
  } finally { mock.stop(); }
});

test('a task run is resumed from its downloaded event log; an offered run can be discarded', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?mode=task&lang=en&concurrency=1&demo_latency=4`);
  await startEnabled(page);
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0]) >= 3);
  await page.click('[data-testid=cancel]');
  await waitStatus(page, 'cancelled');
  const cut = await zipFiles(page);
  const cancelled = parseJsonSeq(cut.get('report.events.json-seq')).filter((r) => r.record_type === 'case' && r.error_detail?.kind === 'cancelled').length;
  assert.ok(cancelled > 0 && cancelled < 16, `${cancelled} cancelled`);
  const dir = tmpDir('task-resume-log');
  const logPath = path.join(dir, 'report.events.json-seq');
  fs.writeFileSync(logPath, cut.get('report.events.json-seq'));

  // the log picked while the code that checks the task is still on its way
  // (held back here): the resume fetches it first, as Start does
  const fresh = await newPage(browser, []);
  const held = [];
  let hold = true;
  await fresh.route('**/*.split_task_code.wasm', (route) => (hold ? held.push(route) : route.continue()));
  await fresh.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await fresh.waitForSelector('[data-testid=task-yaml]');
  await fresh.setInputFiles('[data-testid=resume-log-file]', logPath);
  hold = false;
  for (const r of held.splice(0)) await r.continue();
  await waitStatus(fresh, 'done');
  assert.equal(await fresh.textContent('[data-testid=progress]'), '16/16');
  const files = await zipFiles(fresh);
  const report = JSON.parse(files.get('report.json'));
  const fromCli = cliTaskReport(['--mock', '--models', 'mock-a,mock-b']);
  assert.deepEqual(report.report.summaries, fromCli.report.summaries);
  assert.deepEqual(report.scores, fromCli.scores);
  assert.deepEqual(report.metrics, fromCli.metrics);
  reconciles(files, 'task-resume-log-rec');
  assert.equal(parseJsonSeq(files.get('report.events.json-seq'))[0].run_id,
    parseJsonSeq(cut.get('report.events.json-seq'))[0].run_id, 'the run id is kept');

  // A log of another dataset is refused with the reason.
  await fresh.selectOption('[data-testid=task-preset]', 'support_qa');
  await startEnabled(fresh);
  await fresh.setInputFiles('[data-testid=resume-log-file]', logPath);
  await fresh.waitForSelector('[data-testid=start-error]');
  assert.match(await fresh.textContent('[data-testid=start-error]'), /That log is of event_eval \/ event_eval\.jsonl/);

  // Reload mid-run, then discard the offer: it is gone from storage.
  const third = await newPage(browser, []);
  await third.goto(`${site.url}/?mode=task&lang=en&concurrency=1&demo_latency=4`);
  await startEnabled(third);
  await third.click('[data-testid=start]');
  await third.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0]) >= 1);
  await third.reload();
  await third.waitForSelector('[data-testid=resume-offer]');
  await third.click('[data-testid=discard-run]');
  await third.waitForFunction(() => !document.querySelector('[data-testid=resume-offer]'));
  await third.reload();
  await third.waitForSelector('[data-testid=task-yaml]');
  await third.waitForTimeout(300);
  assert.equal(await third.locator('[data-testid=resume-offer]').count(), 0, 'a discarded run is not offered again');
});

test('task mode adds a model with the endpoint form as the RAG check does: the key stays with its origin, the run goes through the same engine, scores shown', async () => {
  const KEY = 'sk-e2e-ENDPOINT-FORM-3141';
  const mock = await startMock();
  const other = await startMock();
  const origin = (u) => new URL(u).origin;
  try {
    const page = await openTask();
    const setField = async (id, value) => {
      await page.fill(`[data-testid=${id}]`, value);
    };
    await setField('endpoint-url', mock.url);
    await setField('model-name', 'evalpage-demo');
    await setField('api-key', KEY);
    await page.waitForFunction((o) => document.querySelector('[data-testid=saved-key-origins]')?.textContent.includes(o), origin(mock.url));
    assert.equal(await page.textContent('[data-testid=target-origin]'), origin(mock.url));
    // The key belongs to its origin: another endpoint starts empty, coming back brings it back.
    await setField('endpoint-url', other.url);
    assert.equal(await page.inputValue('[data-testid=api-key]'), '');
    assert.equal(await page.textContent('[data-testid=target-origin]'), origin(other.url));
    await setField('endpoint-url', `${mock.url}/`);
    assert.equal(await page.inputValue('[data-testid=api-key]'), KEY);
    await setField('endpoint-url', mock.url);
    await page.click('[data-testid=add-endpoint-model]');
    await page.waitForSelector('[data-testid=model-toggle-evalpage-demo]');
    assert.ok(await page.isChecked('[data-testid=model-toggle-evalpage-demo]'), 'an added model is ticked');
    await page.uncheck('[data-testid=model-toggle-mock-a]');
    await page.uncheck('[data-testid=model-toggle-mock-b]');

    const posts = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push([origin(r.url()), r.headers().authorization, JSON.parse(r.postData()).model]);
    });
    await startEnabled(page);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(posts.length, 8, 'one call per sample');
    assert.ok(posts.every(([o, auth, model]) => o === origin(mock.url) && auth === `Bearer ${KEY}` && model === 'evalpage-demo'),
      JSON.stringify(posts));
    assert.equal(await page.textContent('[data-testid=progress]'), '8/8');
    assert.deepEqual(await page.locator('[data-testid=summary-model]').allTextContents(), ['evalpage-demo']);
    assert.deepEqual(await page.locator('[data-testid=summary-answered] td').allTextContents(), ['8']);
    const scores = await page.locator('[data-testid=summary-metric][data-metric=sentiment_acc] td').allTextContents();
    assert.equal(scores.length, 1);
    assert.match(scores[0], /^\d\.\d{3}/);

    const files = await zipFiles(page);
    for (const [name, text] of files) assert.ok(!text.includes(KEY), `${name} holds the key`);
    const report = JSON.parse(files.get('report.json'));
    const fromReport = report.report.summaries.find((s) => s.model === 'evalpage-demo' && s.metric === 'sentiment_acc');
    assert.ok(scores[0].startsWith(fromReport.mean.toFixed(3)), `${scores[0]} vs ${fromReport.mean}`);
    const snapshot = JSON.parse(files.get('model_snapshot.json'));
    assert.equal(snapshot.models[0].name, 'evalpage-demo');
    const stored = await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage));
    assert.ok(!stored.includes(KEY), 'endpoint-form keys of the task mode stay in memory');
    assert.ok(!(await dumpIndexedDb(page)).includes(KEY), 'not in IndexedDB');
  } finally { mock.stop(); other.stop(); }
});

test('a long task run (300 samples x 2 models) keeps only the rows in view in the DOM, every sample reachable', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0.5`);
  await page.waitForSelector('[data-testid=task-yaml]');
  const lines = fs.readFileSync(EVENT_DEMO, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const dataset = path.join(tmpDir('long-task'), 'event_eval.jsonl');
  fs.writeFileSync(dataset, Array.from({ length: 300 }, (_, i) => JSON.stringify({ ...lines[i % lines.length], sample_id: `T${i + 1}` })).join('\n') + '\n');
  await page.setInputFiles('[data-testid=task-dataset-file]', dataset);
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('300 valid samples'));
  await startEnabled(page);
  await watchMost(page, '[data-testid=sample-row]');
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]')?.textContent.split('/')[0]) >= 100);
  assert.equal(await page.textContent('[data-testid=run-status]'), 'running', 'measured while the run goes on');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '600/600');
  // 624 px of 52 px rows and 10 rows above and below: at most 32 rows at any time.
  const most = await page.evaluate(() => window.__most);
  assert.ok(most > 0 && most <= 32, `${most} sample rows were in the DOM at once`);
  const heights = await page.locator('[data-testid=sample-row]').evaluateAll((rs) => rs.map((r) => r.getBoundingClientRect().height));
  assert.deepEqual([...new Set(heights)], [52]);
  await page.$eval('.vtable', (v) => { v.scrollTop = v.scrollHeight; });
  await page.waitForSelector('[data-testid=sample-row][data-sample=T300]');
  assert.equal(await page.locator('[data-testid=sample-row][data-sample=T300] [data-testid=sample-cell]').count(), 2);
  await page.click('[data-testid=sample-row][data-sample=T300]');
  await page.waitForSelector('[data-testid=sample-detail]');
  assert.match(await page.textContent('[data-testid=sample-detail] h3'), /^T300/);
  assert.equal(await page.locator('[data-testid=sample-detail] [data-testid=sample-cell]').count(), 2, 'one whole cell per model');
  assert.deepEqual(errors, []);
});

test('news_analysis: the preset reads its own demo articles (news_title, news_body) and runs on the mock model', async () => {
  const errors = [];
  const page = await openTask(errors);
  await page.selectOption('[data-testid=task-preset]', 'news_analysis');
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('news_analysis.jsonl'));
  assert.match(await page.textContent('[data-testid=task-dataset-summary]'), /news_analysis\.jsonl.*8 valid samples/);
  assert.match(await page.textContent('[data-testid=prompt-preview]'), /Title: Apple beats quarterly earnings/);
  await startEnabled(page);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  const cells = await page.locator('[data-testid=summary-metric][data-metric=summary_rouge] td').allTextContents();
  assert.ok(cells.length >= 1 && cells.every((c) => /\d/.test(c)), cells.join('|'));
  assert.deepEqual(errors, []);
});
