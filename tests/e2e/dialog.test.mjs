// End-to-end: the dialog mode (spec 001) in the page. The demo dialogs
// played by the dialog mock in the page give the metrics `evalpage run
// --dialogs --provider demo` gives; a dialogs file and a dialog trace dropped
// in the page are scored with no model call as `evalpage score --dialogs`
// scores them, with the bad line, the unaligned dialog and the trace's
// problem listed; a run against `evalpage mock-server --dialog-trace field`
// through fetch records the endpoint's trace fields and sends no key; the
// judge's code (a split module) is fetched at the first judged Start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, startMock, launch, newPage, waitStatus, download, downloadBytes, readStoredZip, cli, tmpDir, watchMost, ROOT,
} from './helpers.mjs';

const DIALOGS = path.join(ROOT, 'www/demo/demo_dialogs.jsonl');
const FIVE = ['run_manifest.json', 'dialog_trace.jsonl', 'turn_eval.jsonl', 'metrics_summary.json'];

let site; let browser; let mock;
before(async () => {
  site = await startSite();
  browser = await launch();
  mock = await startMock(['--dialog-trace', 'field', '--dialogs', DIALOGS]);
});
after(async () => { await browser?.close(); site?.stop(); mock?.stop(); });

/** The CLI's files of one run or scoring, by name. */
function cliFiles(args) {
  const out = tmpDir('dialog-cli');
  const r = cli([...args, '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  return new Map(fs.readdirSync(out).map((n) => [n, fs.readFileSync(path.join(out, n), 'utf8')]));
}

/** metrics_summary.json without what differs between two runs (the run id). */
function metricsOf(text) {
  const s = JSON.parse(text);
  return { model_name: s.model_name, counters: s.counters, turn_rows: s.turn_rows, judge_used: s.judge_used, metrics: s.metrics };
}

/** turn_eval.jsonl rows without their run id. */
function rowsOf(text) {
  return text.trim().split('\n').map((l) => { const r = JSON.parse(l); delete r.run_id; return r; });
}

async function openDialogMode(page) {
  await page.goto(`${site.url}/?lang=en&mode=dialog`);
  await page.waitForSelector('[data-testid=dialog-dataset-summary]');
}

async function startRun(page, { url = '', model = '', workers = '4', maxTokens = '' } = {}) {
  for (const [id, v] of [['dialog-url', url], ['dialog-model', model], ['dialog-concurrency', workers], ['dialog-max-tokens', maxTokens]]) {
    await page.fill(`[data-testid=${id}]`, v);
  }
  await page.click('[data-testid=dialog-start]');
  await waitStatus(page, 'done');
  const zip = await downloadBytes(page, 'download-zip');
  return { name: zip.name, files: new Map(readStoredZip(zip.bytes)) };
}

test('the demo dialogs played in the page give the CLI demo run metrics', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await openDialogMode(page);
  assert.match(await page.textContent('[data-testid=dialog-dataset-summary]'), /demo_dialogs\.jsonl · 22 dialogs · 21 to play · 1 not aligned \(skipped\)/);
  assert.match(await page.textContent('[data-testid=dialog-unaligned]'), /demo_dialogs\.jsonl:\d+: memfin-skip-no-answer — no user turn is followed by an assistant turn/);
  assert.equal(await page.getAttribute('[data-testid=mode-dialog]', 'aria-selected'), 'true');
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('.dialog-mode input, .dialog-mode textarea, .dialog-mode select')]
    .filter((e) => e.labels.length === 0 || !e.labels[0].textContent.trim()).map((e) => e.dataset.testid));
  assert.deepEqual(unlabelled, [], 'every field has a label');

  const fromCli = cliFiles(['run', '--dialogs', DIALOGS, '--provider', 'demo']);
  const { name, files } = await startRun(page);
  assert.equal(name, 'evalpage-dialog-run.zip');
  const runId = JSON.parse(files.get('run_manifest.json')).run_id;
  assert.match(runId, /^eval_dialog-\d{8}T\d{6}Z-[0-9a-f]{6}$/, 'the id the CLI gives a dialog run');
  assert.equal(JSON.parse(files.get('run_manifest.json')).kind, 'dialog');
  assert.equal(JSON.parse(files.get('report.events.jsonl').split('\n')[0]).kind, 'dialog');
  assert.deepEqual([...files.keys()], [...FIVE, `progress_${runId}.jsonl`, 'report.events.jsonl', 'report.events.json-seq']);
  assert.deepEqual(metricsOf(files.get('metrics_summary.json')), metricsOf(fromCli.get('metrics_summary.json')));
  assert.deepEqual(rowsOf(files.get('turn_eval.jsonl')), rowsOf(fromCli.get('turn_eval.jsonl')));
  const manifest = JSON.parse(files.get('run_manifest.json'));
  assert.equal(manifest.model_name, 'evalpage-dialog-mock');
  assert.equal(manifest.workers_dialog, 4);

  // The summary: every metric with its counts, the judged ones not run with their reason.
  const summary = JSON.parse(files.get('metrics_summary.json'));
  assert.equal(await page.locator('[data-testid=dialog-metric]').count(), Object.keys(summary.metrics).length);
  const m1 = await page.textContent('[data-testid=dialog-metric][data-metric=m1_memory_recall]');
  const m1s = summary.metrics.m1_memory_recall;
  assert.ok(m1.includes(m1s.value.toFixed(3)) && m1.includes(`${m1s.eligible_count}${m1s.skipped_count}${m1s.failed_count}`), m1);
  const m5 = await page.textContent('[data-testid=dialog-metric][data-metric=m5_explainability]');
  assert.match(m5, /not_run/);
  assert.match(m5, /no judge model/);

  // metrics_summary.json alone is the zip's.
  const alone = await download(page, 'download-dialog-summary');
  assert.equal(alone.name, 'metrics_summary.json');
  assert.equal(alone.text, files.get('metrics_summary.json'));

  // Conversations: a table of the dialogs (one row each, only the rows in
  // view in the DOM); a row opens its conversation, turns rendered then.
  assert.match(await page.textContent('[data-testid=dialog-conversations] h2'), /\(22\)/);
  assert.equal(await page.locator('[data-testid=dialog-table] [data-testid=case-row]').count(), 22, '22 rows fit in the window');
  assert.equal(await page.locator('[data-testid=dialog-turn]').count(), 0);
  const cases = files.get('report.events.jsonl').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.record_type === 'case');
  const logged = cases.find((c) => c.case_id === 'memfin-001');
  const cells = await page.locator('[data-testid=case-row][data-id=memfin-001] td').allTextContents();
  const head = await page.locator('[data-testid=dialog-table] thead th').allTextContents();
  assert.deepEqual(cells.slice(0, 2), ['memfin-001', 'ok']);
  for (const [m, v] of Object.entries(logged.metrics)) {
    assert.equal(cells[head.indexOf(m)], v === null ? '–' : v.toFixed(3), `memfin-001 ${m}: the case record's value`);
  }
  await page.click('[data-testid=case-row][data-id=memfin-001]');
  const first = page.locator('[data-testid=case-detail] [data-testid=dialog-card][data-dialog-id=memfin-001][open]');
  await first.locator('[data-testid=dialog-turn]').first().waitFor();
  const trace = files.get('dialog_trace.jsonl').trim().split('\n').map((l) => JSON.parse(l))
    .find((t) => t.dialog_id === 'memfin-001');
  const turns = first.locator('[data-testid=dialog-turn]');
  assert.equal(await turns.count(), trace.turns.length);
  const turn1 = await turns.first().textContent();
  assert.ok(turn1.includes(trace.turns[0].user_text), 'the user message');
  assert.ok(turn1.includes(trace.turns[0].pred_assistant_text), 'the model answer');
  assert.ok(turn1.includes(trace.turns[0].gt_assistant_text), 'the ground truth');
  for (const m of ['m1', 'm2', 'm3', 'm4']) {
    assert.equal(await turns.first().locator(`[data-testid=verdict-${m}]`).count(), 1, m);
  }

  // The Reconcile panel reads a dialog run's metrics_summary.json against its log.
  const dir = tmpDir('dialog-reconcile');
  for (const f of ['metrics_summary.json', 'report.events.jsonl']) fs.writeFileSync(path.join(dir, f), files.get(f));
  await page.goto(`${site.url}/?lang=en`);
  await page.setInputFiles('[data-testid=reconcile-report]', path.join(dir, 'metrics_summary.json'));
  await page.setInputFiles('[data-testid=reconcile-events]', path.join(dir, 'report.events.jsonl'));
  await page.waitForSelector('[data-testid=reconcile-result]');
  assert.equal(await page.textContent('[data-testid=reconcile-result]'), 'agree');
  assert.match(await page.textContent('section:has([data-testid=reconcile-result])'), /case records2121✓/);
  assert.deepEqual(errors, []);
});

test('a long dialog run (300 dialogs) keeps only the rows in view in the DOM, every dialog reachable', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await openDialogMode(page);
  const lines = fs.readFileSync(DIALOGS, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    .filter((d) => d.dialog_id.startsWith('memfin-0'));
  const dataset = path.join(tmpDir('long-dialogs'), 'long_dialogs.jsonl');
  fs.writeFileSync(dataset, Array.from({ length: 300 }, (_, i) => JSON.stringify(
    { ...lines[i % lines.length], dialog_id: `D${String(i + 1).padStart(3, '0')}` })).join('\n') + '\n');
  await page.setInputFiles('[data-testid=dialog-file]', dataset);
  await page.waitForFunction(() => document.querySelector('[data-testid=dialog-dataset-summary]')?.textContent.includes('300 dialogs'));
  await page.fill('[data-testid=dialog-concurrency]', '32');
  await watchMost(page, '[data-testid=case-row]');
  await page.click('[data-testid=dialog-start]');
  await page.waitForFunction(() => Number(/(\d+)\//.exec(document.querySelector('[data-testid=dialog-progress]')?.textContent)?.[1]) >= 60);
  assert.equal(await page.textContent('[data-testid=run-status]'), 'running', 'measured while the run goes on');
  await waitStatus(page, 'done', 120000);
  assert.match(await page.textContent('[data-testid=dialog-conversations] h2'), /\(300\)/);
  // 480 px of 30 px rows and 10 rows above and below: at most 36 rows at any time.
  const most = await page.evaluate(() => window.__most);
  assert.ok(most > 0 && most <= 36, `${most} dialog rows were in the DOM at once`);
  const heights = await page.locator('[data-testid=case-row]').evaluateAll((rs) => rs.map((r) => r.getBoundingClientRect().height));
  assert.deepEqual([...new Set(heights)], [30]);
  // The last dialog is reached by scrolling; Enter opens its conversation.
  await page.$eval('[data-testid=dialog-table]', (t) => { t.closest('.vtable').scrollTop = 1e9; });
  const last = page.locator('[data-testid=case-row][data-id=D300]');
  await last.waitFor();
  assert.ok(await page.locator('[data-testid=case-row]').count() <= 36);
  await last.focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=case-detail] [data-testid=dialog-card][data-dialog-id=D300][open] [data-testid=dialog-turn]');
  assert.deepEqual(errors, []);
});

test('a dropped dialogs file and trace are scored as `evalpage score --dialogs` scores them', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await openDialogMode(page);
  const dir = tmpDir('dialog-score');
  const lines = fs.readFileSync(DIALOGS, 'utf8').trim().split('\n').slice(0, 5);
  lines.splice(2, 0, '{"dialog_id":"bad","turns":[{"role":"robot","content":"hi"}]}');
  lines.push('{"dialog_id":"unaligned","turns":[{"role":"assistant","content":"欢迎"},{"role":"user","content":"你好"}]}');
  const dataset = path.join(dir, 'dialogs.jsonl');
  fs.writeFileSync(dataset, `${lines.join('\n')}\n`);
  // A trace of the full demo run: its other dialogs are reported, not scored.
  const produced = cliFiles(['run', '--dialogs', DIALOGS, '--provider', 'demo']);
  const trace = path.join(dir, 'dialog_trace.jsonl');
  fs.writeFileSync(trace, produced.get('dialog_trace.jsonl'));
  const fromCli = cliFiles(['score', '--dialogs', dataset, '--dialog-trace', trace]);

  await page.setInputFiles('[data-testid=dialog-file]', dataset);
  await page.waitForSelector('[data-testid=dialog-line-errors]');
  assert.match(await page.textContent('[data-testid=dialog-line-errors]'), /dialogs\.jsonl:3: .*turns\[0\]\.role/);
  assert.match(await page.textContent('[data-testid=dialog-unaligned]'), /dialogs\.jsonl:7: unaligned — /);
  assert.match(await page.textContent('[data-testid=dialog-dataset-summary]'), /6 dialogs · 5 to play · 1 not aligned \(skipped\) · 1 lines skipped/);

  // Drop the trace on its drop zone, as a user drags it from the desktop.
  const transfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'dialog_trace.jsonl', { type: 'application/jsonl' }));
    return dt;
  }, fs.readFileSync(trace, 'utf8'));
  await page.dispatchEvent('[data-testid=dialog-trace-panel] .dropzone', 'drop', { dataTransfer: transfer });
  await page.waitForFunction(() => document.querySelector('[data-testid=dialog-trace-summary]')?.textContent.includes('dialog_trace.jsonl'));
  await page.click('[data-testid=dialog-score]');
  await page.waitForSelector('[data-testid=dialog-scored]');
  assert.match(await page.textContent('[data-testid=dialog-trace-problems]'), /dialog_trace\.jsonl:\d+: .*dialog_id.*memfin-0\d+/);
  const zip = await downloadBytes(page, 'download-zip');
  const files = new Map(readStoredZip(zip.bytes));
  const runId = JSON.parse(files.get('run_manifest.json')).run_id;
  assert.deepEqual([...files.keys()], [...FIVE, `progress_${runId}.jsonl`]);
  for (const name of ['metrics_summary.json', 'turn_eval.jsonl', 'dialog_trace.jsonl']) {
    assert.equal(files.get(name), fromCli.get(name), name);
  }
  assert.match(await page.textContent('[data-testid=dialog-conversations] h2'), /\(6\)/);
  assert.equal(await page.locator('[data-testid=dialog-table] [data-testid=case-row]').count(), 6);
  assert.equal(await page.textContent('[data-testid=case-row][data-id=unaligned] td:nth-child(2)'), 'skipped');
  await page.press('[data-testid=case-row][data-id=unaligned]', 'Enter');
  assert.equal(await page.getAttribute('[data-testid=case-detail] [data-testid=dialog-card][data-dialog-id=unaligned]', 'data-status'), 'skipped');
  assert.match(await page.textContent('[data-testid=case-detail] [data-testid=dialog-card][data-dialog-id=unaligned] summary'), /skipped/);

  // A plain chat model's trace has no recall: M1 is not measured, unless the
  // user asks to search the conversation sent, as --m1-from-conversation does.
  const plain = path.join(dir, 'plain_trace.jsonl');
  fs.writeFileSync(plain, fs.readFileSync(trace, 'utf8').trim().split('\n').map((l) => {
    const t = JSON.parse(l);
    for (const turn of t.turns ?? []) delete turn.recall;
    return JSON.stringify(t);
  }).join('\n') + '\n');
  const scorePlain = async (status) => {
    await page.setInputFiles('[data-testid=dialog-trace-file]', plain);
    await page.click('[data-testid=dialog-score]');
    await page.waitForFunction((want) => document.querySelector('[data-testid=dialog-metric][data-metric=m1_memory_recall] td:nth-child(2)')
      ?.textContent === want, status);
    const z = await downloadBytes(page, 'download-zip');
    return new Map(readStoredZip(z.bytes));
  };
  let scored = await scorePlain('not_run');
  let m1 = JSON.parse(scored.get('metrics_summary.json')).metrics.m1_memory_recall;
  assert.equal(m1.status, 'not_run');
  assert.ok(m1.details.turns_without_recall > 0, JSON.stringify(m1));
  assert.match(await page.textContent('[data-testid=dialog-metric][data-metric=m1_memory_recall]'), /no recall trace/);
  assert.equal(JSON.parse(scored.get('run_manifest.json')).m1_from_conversation, false);
  await page.click('[data-testid=dialog-m1-conversation]');
  scored = await scorePlain('ok');
  const cliConversation = cliFiles(['score', '--m1-from-conversation', '--dialogs', dataset, '--dialog-trace', plain]);
  assert.equal(JSON.parse(scored.get('run_manifest.json')).m1_from_conversation, true);
  assert.equal(scored.get('turn_eval.jsonl'), cliConversation.get('turn_eval.jsonl'));
  m1 = JSON.parse(scored.get('metrics_summary.json')).metrics.m1_memory_recall;
  assert.equal(m1.status, 'ok');
  assert.deepEqual(errors, []);
});

test('a run against the mock endpoint through fetch records its trace fields and sends no key', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const sent = [];
  page.on('request', (r) => { if (r.url().startsWith(mock.url)) sent.push(r); });
  await openDialogMode(page);
  const fromCli = cliFiles(['run', '--dialogs', DIALOGS, '--provider', 'demo']);

  const { files } = await startRun(page, { url: mock.url, model: 'memfin-mock', workers: '2', maxTokens: '40' });
  assert.ok(sent.length > 22, 'every turn went through fetch');
  // the bound on answer tokens is sent with every turn, as --max-tokens sends it
  const posted = sent.filter((r) => r.method() === 'POST').map((r) => JSON.parse(r.postData()));
  assert.ok(posted.length > 22 && posted.every((b) => b.max_tokens === 40), JSON.stringify(posted.map((b) => b.max_tokens)));
  assert.ok(sent.every((r) => r.method() !== 'POST' || !r.headers().authorization), 'no key is sent');
  assert.deepEqual(metricsOf(files.get('metrics_summary.json')).metrics, metricsOf(fromCli.get('metrics_summary.json')).metrics);
  const manifest = JSON.parse(files.get('run_manifest.json'));
  assert.equal(manifest.model_name, 'memfin-mock');
  assert.equal(manifest.workers_dialog, 2);
  const traces = files.get('dialog_trace.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  const turns = traces.flatMap((t) => t.turns);
  assert.ok(turns.length > 22);
  assert.ok(turns.every((t) => t.turn_status === 'ok' && t.trace_source === 'evalpage_trace'), 'fields from evalpage_trace');
  assert.ok(turns.every((t) => t.recall && typeof t.recall.short_term_context === 'string' && t.compliance));
  assert.ok(turns.some((t) => t.recall.items.length > 0), 'long-term recall items');
  const m1 = JSON.parse(files.get('metrics_summary.json')).metrics.m1_memory_recall;
  assert.ok(m1.status === 'ok' && m1.value > 0 && m1.details.turns_without_recall === 0, 'M1 from the recall the endpoint returned');
  assert.ok(turns.some((t) => Array.isArray(t.tools) && t.tools[0].tool_name === 'risk_template'));
  const log = files.get('report.events.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(log[0].record_type, 'meta');
  assert.equal(log[0].backend, 'openai');
  assert.equal(log[0].endpoint, mock.url);
  assert.equal(log.filter((r) => r.record_type === 'case').length, 21, 'the 21 aligned dialogs are played');
  assert.equal(log.at(-1).final_report_path, 'metrics_summary.json');

  // A base URL with a query (where keys hide) is refused before anything is sent.
  const before = sent.length;
  await page.fill('[data-testid=dialog-url]', `${mock.url}?api_key=secret`);
  await page.click('[data-testid=dialog-start]');
  // (the mode takes a key in its own field now, so the message says where a key goes)
  assert.match(await page.textContent('[data-testid=dialog-error]'), /may not carry a user name, a password or a query: put a key in the key field/);
  assert.equal(sent.length, before);
  assert.deepEqual(errors, []);
});

test('a live run: a plain chat endpoint gives M1 no value, the recall it returns gives one, the switch takes the conversation', async () => {
  // `evalpage mock-server` without --dialog-trace: a plain chat model, no recall.
  const plain = await startMock([]);
  try {
    const m1Of = (files) => JSON.parse(files.get('metrics_summary.json')).metrics.m1_memory_recall;
    const turnsOf = (files) => files.get('dialog_trace.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    const runIn = async (conversation) => {
      const errors = [];
      const page = await newPage(browser, errors);
      await openDialogMode(page);
      if (conversation) await page.click('[data-testid=dialog-m1-conversation]');
      const { files } = await startRun(page, { url: plain.url, model: 'plain', workers: '2' });
      const shown = await page.textContent('[data-testid=dialog-metric][data-metric=m1_memory_recall]');
      assert.deepEqual(errors, []);
      await page.context().close();
      return { files, shown };
    };
    const cliRun = (extra) => cliFiles(['run', '--dialogs', DIALOGS, '--endpoint', plain.url, '--model', 'plain', '--concurrency', '2', ...extra]);

    let { files, shown } = await runIn(false);
    let m1 = m1Of(files);
    assert.equal(m1.status, 'not_run', JSON.stringify(m1));
    assert.equal(m1.value, null);
    assert.ok(m1.details.turns_without_recall > 0);
    assert.equal(m1.not_run_count, m1.eligible_count, '§7: eligible, not run');
    assert.match(shown, /had no recall trace/);
    assert.deepEqual(metricsOf(files.get('metrics_summary.json')).metrics, metricsOf(cliRun([]).get('metrics_summary.json')).metrics);
    assert.equal(JSON.parse(files.get('run_manifest.json')).m1_from_conversation, false);
    const traces = turnsOf(files).filter((t) => t.valid_dialog);
    assert.ok(traces.flatMap((t) => t.turns).every((t) => t.recall === undefined && typeof t.latency_ms === 'number'));
    assert.ok(traces.every((t) => t.session_id === `session_${t.dialog_id}` && t.user_id === `eval_user_${t.dialog_id}` && t.worker_id < 2));

    ({ files, shown } = await runIn(true));
    m1 = m1Of(files);
    assert.equal(m1.status, 'ok', JSON.stringify(m1));
    assert.deepEqual(metricsOf(files.get('metrics_summary.json')).metrics,
      metricsOf(cliRun(['--m1-from-conversation']).get('metrics_summary.json')).metrics);
    assert.equal(JSON.parse(files.get('run_manifest.json')).m1_from_conversation, true);
    assert.equal(turnsOf(files)[0].turns[0].recall.source, 'run_conversation');
  } finally {
    plain.stop();
  }
});

test('with the mock judge, M3/M4/M5 by the judge are judged as the CLI judges them', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await openDialogMode(page);
  await page.selectOption('[data-testid=dialog-judge]', 'mock');
  const { files } = await startRun(page);
  const fromCli = cliFiles(['run', '--dialogs', DIALOGS, '--provider', 'demo', '--judge', 'mock', '--lang', 'en']);
  const pageSummary = JSON.parse(files.get('metrics_summary.json'));
  const cliSummary = JSON.parse(fromCli.get('metrics_summary.json'));
  const judged = (s) => Object.fromEntries(Object.entries(s.metrics)
    .filter(([k]) => /judge|m5/.test(k)).map(([k, v]) => [k, [v.status, v.value, v.eligible_count, v.unscored_count]]));
  assert.ok(Object.keys(judged(pageSummary)).length >= 3, JSON.stringify(pageSummary.metrics));
  assert.ok(Object.values(judged(pageSummary)).every(([status]) => status !== 'not_run'), JSON.stringify(judged(pageSummary)));
  assert.deepEqual(judged(pageSummary), judged(cliSummary));
  assert.deepEqual(errors, []);
});

test('the judge\'s code comes with the first judged run, not with the page; when it cannot be fetched Start says so, and the next Start runs', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  let fail = true;
  await page.route('**/*.split_judges.wasm', (route) => (fail ? route.abort() : route.continue()));
  await openDialogMode(page);
  const wasms = () => page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm')));
  assert.deepEqual((await wasms()).filter((n) => n.endsWith('.split_judges.wasm')), [], 'no judge code in the first load');
  await page.selectOption('[data-testid=dialog-judge]', 'mock');
  await page.click('[data-testid=dialog-start]');
  await page.waitForSelector('[data-testid=dialog-error]');
  assert.match(await page.textContent('[data-testid=dialog-error]'), /judge's code could not be fetched; check the network and press Start again/);
  const status = await page.evaluate(() => document.querySelector('[data-testid=run-status]')?.textContent ?? null);
  assert.ok(status !== 'running' && status !== 'done', `no run started (status ${status})`);
  fail = false;
  const { files } = await startRun(page);
  const summary = JSON.parse(files.get('metrics_summary.json'));
  const judged = Object.entries(summary.metrics).filter(([k]) => /judge|m5/.test(k));
  assert.ok(judged.length >= 3 && judged.every(([, v]) => v.status !== 'not_run'), JSON.stringify(summary.metrics));
  assert.equal(await page.locator('[data-testid=dialog-error]').count(), 0, 'the error goes when the run starts');
  assert.ok((await wasms()).some((n) => n.endsWith('.split_judges.wasm')), 'the judge code was fetched');
  assert.deepEqual(errors, []);
});
