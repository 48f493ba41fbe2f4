// End-to-end: the release build in Chromium against `evalpage mock-server`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startMock, startSite, launch, newPage, waitStatus, download, parseJsonSeq, cli, tmpDir,
  comparable, useEndpoint, watchMost, DEMO_DATASET, DATA,
} from './helpers.mjs';

let site; let mock; let browser;

before(async () => {
  site = await startSite();
  mock = await startMock(['--answers', path.join(DATA, 'spec_three_answers.jsonl')]);
  browser = await launch();
});
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

test('file input + endpoint: metrics, downloads, json-seq reconciles, same report as the CLI', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=zh`);
  await useEndpoint(page, mock.url);
  await page.setInputFiles('[data-testid=dataset-file]', DEMO_DATASET);
  await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('10'));
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
  assert.equal(await page.locator('[data-testid=case-row]').count(), 10);

  const report = await download(page, 'download-report');
  const seq = await download(page, 'download-events');
  const jsonl = await download(page, 'download-events-jsonl');
  const md = await download(page, 'download-md');
  assert.deepEqual([report.name, seq.name, jsonl.name, md.name],
    ['eval_rag_report.json', 'eval_rag_report.events.json-seq', 'eval_rag_report.events.jsonl', 'report.md'],
    'spec 000 names the RAG report and its logs');
  const records = parseJsonSeq(seq.text);
  assert.equal(records[0].record_type, 'meta');
  assert.equal(records.at(-1).record_type, 'summary');
  assert.equal(records.at(-1).final_report_path, 'eval_rag_report.json');
  assert.equal(records.filter((r) => r.record_type === 'case').length, 10);
  assert.equal(jsonl.text.trim().split('\n').length, records.length);
  const r = JSON.parse(report.text);
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  assert.equal(await page.textContent('[data-testid=metric-accuracy]'), pct(r.metrics.accuracy));
  assert.equal(await page.textContent('[data-testid=metric-citation]'), pct(r.metrics.citation_rate));
  assert.match(md.text, /## 备注/, 'the Chinese report translates Notes too');

  const dir = tmpDir('e2e');
  for (const f of [report, seq]) fs.writeFileSync(path.join(dir, f.name), f.text);
  const rec = cli(['reconcile', '--report', path.join(dir, report.name), '--events', path.join(dir, seq.name)]);
  assert.equal(rec.status, 0, rec.stdout + rec.stderr);

  const out = tmpDir('cli');
  const run = cli(['run', '--dataset', DEMO_DATASET, '--endpoint', mock.url, '--model', 'evalpage-demo', '--temperature', '0', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  const fromCli = comparable(fs.readFileSync(path.join(out, 'eval_rag_report.json'), 'utf8'));
  const fromPage = comparable(report.text);
  assert.deepEqual(fromPage, fromCli);
  assert.deepEqual(errors, []);
});

test("spec 002's three-case example reads 66.7% / 66.7% with the spec's console lines", async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/eval?lang=zh`);
  await useEndpoint(page, mock.url);
  await page.setInputFiles('[data-testid=dataset-file]', path.join(DATA, 'spec_three_cases.jsonl'));
  await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('3'));
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=metric-accuracy]'), '66.7%');
  assert.equal(await page.textContent('[data-testid=metric-citation]'), '66.7%');
  const lines = await page.locator('[data-testid=console] div').allTextContents();
  assert.equal(lines[0], '[EVAL] 评测开始，总用例数：3');
  assert.ok(lines.includes("[EVAL] Q2 - 准确率：√ | 引用率：×（引用了错误文档 'ragas_install.md'，预期是 'lightrag_optimization.md'）"));
  assert.ok(lines.includes('[EVAL] Q1 - 准确率：√ | 引用率：√'));
  assert.equal(lines.at(-1), '[EVAL] 评测完成 - 整体准确率：66.7% | 整体引用率：66.7%');
  const notes = await page.textContent('[data-testid=notes]');
  assert.match(notes, /Q2: 引用了错误的文档 'ragas_install.md'，预期是 'lightrag_optimization.md'。/);
});

test("spec 002's console output: every [EVAL] line is also logged to the browser console, never a key; the case table marks √/×", async () => {
  const KEY = 'sk-e2e-CONSOLE-7781';
  const page = await newPage(browser, []);
  const logged = [];
  page.on('console', (m) => logged.push([m.type(), m.text()]));
  await page.goto(`${site.url}/eval?lang=zh`);
  await useEndpoint(page, mock.url);
  await page.fill('[data-testid=api-key]', KEY);
  await page.setInputFiles('[data-testid=dataset-file]', path.join(DATA, 'spec_three_cases.jsonl'));
  await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('3'));
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  const shown = await page.locator('[data-testid=console] div').allTextContents();
  const eval_ = logged.filter(([, text]) => text.startsWith('[EVAL]'));
  assert.ok(eval_.every(([type]) => type === 'log'), JSON.stringify(eval_));
  assert.deepEqual(eval_.map(([, text]) => text), shown, 'one console.log per line, in the order shown');
  assert.equal(shown.length, 5);
  assert.ok(logged.every(([, text]) => !text.includes(KEY)), 'no key in the browser console');
  const marks = async (id) => page.locator(`[data-testid=${id}]`).allTextContents();
  assert.deepEqual(await marks('case-accuracy'), ['\u221a', '\u221a', '\u00d7']);
  assert.deepEqual(await marks('case-citation'), ['\u221a', '\u00d7', '\u221a']);
});

test('bad lines are listed with their line numbers and the valid ones run', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&demo_latency=0`);
  await page.setInputFiles('[data-testid=dataset-file]', path.join(DATA, 'with_bad_lines.jsonl'));
  await page.waitForSelector('[data-testid=line-errors]');
  const errs = await page.locator('[data-testid=line-errors] li').allTextContents();
  assert.equal(errs.length, 3);
  assert.match(errs[0], /with_bad_lines\.jsonl:2: not valid JSON/);
  assert.match(errs[1], /:4: field `gold`: missing/);
  assert.match(errs[2], /:5: field `gold`: expected an array of strings, found a string/);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '2/2');
});

test('/eval with autorun, English and the demo model needs no endpoint', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/eval?lang=en&autorun=1&provider=demo&demo_latency=0`);
  await waitStatus(page, 'done');
  const lines = await page.locator('[data-testid=console] div').allTextContents();
  assert.equal(lines[0], '[EVAL] Evaluation started, total cases: 10');
  assert.match(lines.at(-1), /^\[EVAL\] Evaluation finished - overall accuracy: \d+\.\d% \| overall citation rate: \d+\.\d%$/);
  assert.equal(await page.textContent('[data-testid=start]'), 'Start evaluation');
});

test('failed calls stay in the denominator and show in the error summary', async () => {
  const failing = await startMock(['--fail-rate', '1']);
  try {
    const page = await newPage(browser, []);
    await page.goto(`${site.url}/?lang=en`);
    await useEndpoint(page, failing.url);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 90000);
    assert.equal(await page.textContent('[data-testid=metric-accuracy]'), '0.0%');
    assert.equal(await page.textContent('[data-testid=metric-failed]'), '10');
    const summary = await page.textContent('[data-testid=error-summary]');
    assert.match(summary, /model call failed: HTTP 500/);
    const report = JSON.parse((await download(page, 'download-report')).text);
    assert.equal(report.report.error_cases.length, 10);
    assert.equal(report.metrics.cases, 10);
  } finally { failing.stop(); }
});

test('an unreachable endpoint is explained (down or CORS)', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en`);
  await useEndpoint(page, 'http://127.0.0.1:9/v1');
  await page.fill('[data-testid=concurrency]', '8');
  assert.ok(await page.isVisible('[data-testid=concurrency-warning]'));
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done', 90000);
  assert.match(await page.textContent('[data-testid=cors-hint]'), /Access-Control-Allow-Origin/);
});

test('Cancel stops the run and every case is accounted for', async () => {
  const page = await newPage(browser, []);
  // each demo answer takes 2 s, so the run is still going when Cancel is
  // clicked (at 20 ms a busy machine could end it before the page is polled)
  await page.goto(`${site.url}/?lang=en&demo_latency=2000`);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'running');
  await page.click('[data-testid=cancel]');
  await waitStatus(page, 'cancelled');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
  const records = parseJsonSeq((await download(page, 'download-events')).text);
  assert.equal(records.at(-1).status, 'cancelled');
});

test('the API key is sent but never written to a download, the URL or storage other than the session', async () => {
  const KEY = 'sk-e2e-SECRET-4242';
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en`);
  await useEndpoint(page, mock.url);
  await page.fill('[data-testid=api-key]', KEY);
  const seen = [];
  page.on('request', (req) => { if (req.method() === 'POST') seen.push(req.headers().authorization); });
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.ok(seen.length > 0 && seen.every((h) => h === `Bearer ${KEY}`));
  for (const id of ['download-report', 'download-events', 'download-events-jsonl', 'download-md']) {
    assert.ok(!(await download(page, id)).text.includes(KEY), id);
  }
  assert.ok(!page.url().includes(KEY));
  const local = await page.evaluate(() => JSON.stringify(localStorage));
  assert.ok(!local.includes(KEY));
  assert.ok(!(await page.content()).includes(KEY), 'the key is not in the page markup');
});

test('a dataset dropped on the page, or named by ?dataset=, loads', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&demo_latency=0`);
  const text = fs.readFileSync(path.join(DATA, 'spec_three_cases.jsonl'), 'utf8');
  const transfer = await page.evaluateHandle((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'dropped.jsonl', { type: 'application/jsonl' }));
    return dt;
  }, text);
  await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: transfer });
  await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('dropped.jsonl'));
  assert.match(await page.textContent('[data-testid=dataset-summary]'), /3 valid cases/);

  const hosted = await newPage(browser, []);
  await hosted.goto(`${site.url}/eval/?lang=en&dataset=/demo/demo_dataset.jsonl&autorun=1&demo_latency=0`);
  await waitStatus(hosted, 'done');
  assert.match(await hosted.textContent('[data-testid=dataset-summary]'), /demo_dataset\.jsonl · 10 valid cases/);
  const missing = await newPage(browser, []);
  await missing.goto(`${site.url}/?lang=en&dataset=/nope.jsonl`);
  await missing.waitForSelector('[data-testid=load-error]');
  assert.match(await missing.textContent('[data-testid=load-error]'), /HTTP 404/);
});

test('a long live run (500 cases) keeps only the rows in view in the DOM, every case reachable by scrolling', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const lines = fs.readFileSync(DEMO_DATASET, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const dataset = path.join(tmpDir('long-run'), 'long.jsonl');
  fs.writeFileSync(dataset, Array.from({ length: 500 }, (_, i) => JSON.stringify({ ...lines[i % lines.length], id: `L${i + 1}` })).join('\n') + '\n');
  await page.goto(`${site.url}/?lang=en&provider=demo&demo_latency=0.2&concurrency=16`);
  await page.setInputFiles('[data-testid=dataset-file]', dataset);
  await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('500 valid'));
  await watchMost(page, '[data-testid=case-row]');
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]')?.textContent.split('/')[0]) >= 100);
  assert.equal(await page.textContent('[data-testid=run-status]'), 'running', 'measured while the run goes on');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '500/500');
  // 520 px of 52 px rows and 10 rows above and below: at most 30 rows at any time.
  const most = await page.evaluate(() => window.__most);
  assert.ok(most > 0 && most <= 30, `${most} case rows were in the DOM at once`);
  // Every row is as tall as the spacers assume, so the table body is the 500 rows' height
  // (give or take a collapsed border), not a row's error times 500.
  const geometry = await page.$eval('[data-testid=case-table]', (t) => ({
    rows: [...t.querySelectorAll('[data-testid=case-row]')].map((r) => r.getBoundingClientRect().height),
    body: t.tBodies[0].getBoundingClientRect().height,
  }));
  assert.deepEqual([...new Set(geometry.rows)], [52]);
  assert.ok(Math.abs(geometry.body - 500 * 52) <= 2, `table body ${geometry.body} px`);
  // The last case is reached by scrolling; Enter opens it.
  await page.$eval('.vtable', (v) => { v.scrollTop = v.scrollHeight; });
  const last = page.locator('[data-testid=case-row]').filter({ has: page.locator('td:first-child', { hasText: /^L500$/ }) });
  await last.waitFor();
  assert.ok(await page.locator('[data-testid=case-row]').count() <= 30);
  await last.focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=case-detail]');
  assert.match(await page.textContent('[data-testid=case-detail] h3'), /^L500/);
  // The console: all 502 lines (start, 500 cases, end) reachable, at most a window of them in the DOM.
  const consoleLines = () => page.locator('[data-testid=console] div').allTextContents();
  const top = await consoleLines();
  assert.equal(top[0], '[EVAL] Evaluation started, total cases: 500');
  assert.ok(top.length <= 18 + 10 + 10, `${top.length} console lines in the DOM`);
  await page.$eval('[data-testid=console]', (c) => { c.scrollTop = c.scrollHeight; });
  await page.waitForFunction(() => /Evaluation finished/.test([...document.querySelectorAll('[data-testid=console] div')].at(-1)?.textContent));
  const bottom = await consoleLines();
  assert.ok(bottom.length <= 38, `${bottom.length} console lines in the DOM`);
  assert.match(bottom.at(-2), /^\[EVAL\] L\d+ - accuracy: /, 'a case line just before the end line');
  // The console is as tall as its 502 lines of 20 px (and its padding of .8rem at each end).
  const height = await page.$eval('[data-testid=console]', (c) => c.scrollHeight);
  assert.ok(Math.abs(height - (502 * 20 + 2 * 12.8)) <= 2, `console scroll height ${height} px`);
  assert.deepEqual(errors, []);
});

test('the run code is fetched after the page is up, not before; when it cannot be fetched Start says so, and the next Start runs', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  let fail = true;
  const requested = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) requested.push(new URL(r.url()).pathname.split('/').pop()); });
  await page.route('**/*.split_run.wasm', (route) => (fail ? route.abort() : route.continue()));
  await page.goto(`${site.url}/?lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=dataset-summary]');
  assert.match(requested[0], /^evalpage-web-[0-9a-f]+_bg\.wasm$/, `the bundle first: ${requested}`);
  await page.click('[data-testid=start]');
  await page.waitForSelector('[data-testid=start-error]');
  assert.match(await page.textContent('[data-testid=start-error]'), /code that runs the evaluation could not be fetched; check the network and press Start again/);
  const status = await page.textContent('[data-testid=run-status]');
  assert.ok(!['running', 'done'].includes(status), `no run started (status ${status})`);
  fail = false;
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
  assert.equal(await page.locator('[data-testid=start-error]').count(), 0, 'the error goes when the run starts');
  assert.ok(requested.filter((n) => n.endsWith('.split_run.wasm')).length >= 2, `the run code was asked for again at Start: ${requested}`);
  assert.deepEqual(errors, []);
  await page.context().close();
});
