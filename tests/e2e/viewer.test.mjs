// End-to-end: the viewer (`?mode=view`) opens saved runs with no server:
// a CLI report.json (any kind), an event log cut off mid-record, a run's zip
// downloaded from the page, and `?report=<url>`; search, filters and sort
// work and live in the URL; a row opens its drill-down; and a 20,000-case
// report keeps only the rows in view in the DOM while scrolling. Each kind of
// run shows as its live mode showed it: a RAG run's √/×, reasons, metrics,
// error summary and Notes; a dialog run's M1–M5 summary and conversations;
// a task run's parsed fields; a retrieval run's per-bucket means.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, launch, newPage, waitStatus, download, downloadBytes, cli, tmpDir, ROOT, DEMO_DATASET,
} from './helpers.mjs';

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

async function openViewer(query = '', lang = 'en') {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=view&lang=${lang}${query}`);
  await page.waitForSelector('[data-testid=open-report]');
  return { page, errors };
}

const rows = (page) => page.locator('[data-testid=case-row]').count();

test('a CLI report: summaries, search, filters and sort in the URL, a drill-down', async () => {
  const out = tmpDir('viewer-rag');
  const run = cli(['run', '--dataset', DEMO_DATASET, '--provider', 'demo', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  const { page, errors } = await openViewer();
  await page.setInputFiles('[data-testid=open-report]', path.join(out, 'eval_rag_report.json'));
  await page.waitForSelector('[data-testid=case-row]');
  assert.equal(await rows(page), 10);
  const report = JSON.parse(fs.readFileSync(path.join(out, 'eval_rag_report.json'), 'utf8'));
  const summaries = await page.textContent('[data-testid=viewer-summaries]');
  for (const s of report.report.summaries) {
    assert.ok(summaries.includes(s.metric) && summaries.includes(s.mean.toFixed(3)), `${s.metric} ${s.mean}`);
  }
  assert.equal(await page.locator('[data-testid=chart-metrics] rect').count(), report.report.summaries.length);

  await page.fill('[data-testid=case-search]', 'q3');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=case-row]').length === 1);
  assert.match(page.url(), /[?&]q=q3/);
  await page.fill('[data-testid=case-search]', '');
  await page.selectOption('[data-testid=filter-outcome]', 'accuracy=fail');
  const failing = report.scores.filter((s) => s.metric === 'accuracy' && s.value < 0.5).length;
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=case-row]').length === n, failing);
  assert.match(page.url(), /metric=accuracy&outcome=fail/);
  await page.selectOption('[data-testid=filter-outcome]', '');
  await page.selectOption('[data-testid=sort-by]', 'id');
  await page.check('[data-testid=sort-desc]');
  const ids = await page.locator('[data-testid=case-row]').evaluateAll((rs) => rs.map((r) => r.dataset.id));
  assert.deepEqual(ids, [...ids].sort().reverse());
  assert.match(page.url(), /sort=id&desc=1/);

  await page.locator('[data-testid=case-row]').first().press('Enter');
  await page.waitForSelector('[data-testid=case-detail]');
  assert.match(await page.textContent('[data-testid=case-detail]'), /accuracy/);
  assert.deepEqual(errors, []);
});

test('a cut-off event log, a zip from the page and ?report=<url> open too', async () => {
  const out = tmpDir('viewer-log');
  const run = cli(['run', '--task', 'event_eval', '--dataset', path.join(ROOT, 'www/demo/tasks/event_eval.jsonl'),
    '--mock', '--models', 'mock-a,mock-b', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  const log = fs.readFileSync(path.join(out, 'report.events.jsonl'), 'utf8');
  const cut = log.slice(0, log.lastIndexOf('{"record_type":"case"') + 40);
  const cutFile = path.join(out, 'cut.jsonl');
  fs.writeFileSync(cutFile, cut);
  const settled = (cut.match(/"record_type":"case"/g) || []).length - 1;
  const { page, errors } = await openViewer();
  await page.setInputFiles('[data-testid=open-report]', cutFile);
  await page.waitForSelector('[data-testid=case-row]');
  assert.equal(await rows(page), settled);
  assert.match(await page.textContent('[data-testid=viewer-summary]'), /cut off/);
  await page.selectOption('[data-testid=filter-model]', 'mock-b');
  const b = (cut.match(/"model":"mock-b"/g) || []).length;
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=case-row]').length <= n, b);

  // The task run's report.json and results.jsonl picked together: a row's
  // drill-down is the task grid's cell, its parsed fields with their status.
  await page.setInputFiles('[data-testid=open-report]', [path.join(out, 'report.json'), path.join(out, 'results.jsonl')]);
  await page.waitForFunction(() => document.querySelector('[data-testid=viewer-count]')?.textContent === '16 / 16');
  await page.locator('[data-testid=case-row]').first().click();
  await page.waitForSelector('[data-testid=task-cell]');
  const results = fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const firstId = await page.locator('[data-testid=case-row]').first().getAttribute('data-id');
  const firstModel = await page.locator('[data-testid=case-row]').first().evaluate((r) => r.children[1].textContent);
  const line = results.find((l) => l.sample_id === firstId && l.model === firstModel);
  const fields = await page.locator('[data-testid=task-cell] [data-testid=parsed-field]').evaluateAll((fs) => fs.map((f) => [f.querySelector('.name').textContent, f.dataset.status]));
  assert.deepEqual(fields, line.parsed.map((f) => [f.field, f.status]));
  const metricsShown = await page.locator('[data-testid=task-cell] [data-testid=cell-metric]').evaluateAll((ms) => ms.map((m) => m.dataset.metric).sort());
  assert.deepEqual(metricsShown, Object.keys(line.metrics).sort());
  // Its input (the sample's fields) and the prompt the run sent, as results.jsonl has them.
  assert.ok(Array.isArray(line.messages) && line.messages.some((m) => m.role === 'user'), JSON.stringify(line.messages));
  const shownPrompt = await page.locator('[data-testid=task-prompt] [data-testid=prompt-message]').evaluateAll((ms) => ms.map((m) => [m.dataset.role, m.querySelector('pre').textContent]));
  assert.deepEqual(shownPrompt, line.messages.map((m) => [m.role, m.content]));
  assert.deepEqual(JSON.parse(await page.textContent('[data-testid=task-input] pre')), line.fields);

  // A zip downloaded from the page (a retrieval run) opens as its report,
  // with the retrieval mode's per-bucket means and rows.
  const r = await newPage(browser, errors);
  await r.goto(`${site.url}/?mode=retrieval&lang=en`);
  await r.click('[data-testid=retrieval-start]');
  await waitStatus(r, 'done');
  const zip = await downloadBytes(r, 'download-zip');
  const zipFile = path.join(out, 'run.zip');
  fs.writeFileSync(zipFile, zip.bytes);
  await page.setInputFiles('[data-testid=open-report]', zipFile);
  await page.waitForFunction(() => document.querySelector('[data-testid=viewer-summary] h2')?.textContent.includes('run.zip/eval_retrieval_report.json'));
  assert.equal(await page.textContent('[data-testid=viewer-count]'), '16 / 16');
  const means = (p) => p.locator('[data-testid=retrieval-summary] tbody tr').evaluateAll((rs) => rs.map((x) => x.textContent));
  const liveMeans = await means(r);
  assert.ok(liveMeans.length > 2, 'overall and buckets');
  assert.deepEqual(await means(page), liveMeans);
  const cells = (p) => p.locator('[data-testid=case-row]').evaluateAll((rs) => rs.map((x) => {
    const c = [...x.children].map((td) => td.textContent);
    return [c[0], ...c.slice(-8, -1)];
  }));
  const liveRows = await r.locator('[data-testid=case-row]').evaluateAll((rs) => rs.map((x) => [...x.children].map((td) => td.textContent)));
  assert.deepEqual(await cells(page), liveRows);

  // ?report=<url> (served beside the site), with the filter in the URL.
  const served = path.join(ROOT, 'dist', `viewer-test-${process.pid}.json`);
  fs.copyFileSync(path.join(out, 'report.json'), served);
  try {
    const { page: p2 } = await openViewer(`&report=${encodeURIComponent(`/viewer-test-${process.pid}.json`)}&model_filter=mock-a`);
    await p2.waitForSelector('[data-testid=case-row]');
    assert.equal(await p2.textContent('[data-testid=viewer-count]'), '8 / 16');
  } finally {
    fs.rmSync(served);
  }
  assert.deepEqual(errors, []);
});

test('20,000 cases: only the rows in view are in the DOM while scrolling', async () => {
  const dir = tmpDir('viewer-big');
  const file = path.join(dir, 'big.json');
  execBig(file, 20000);
  const { page, errors } = await openViewer();
  await page.setInputFiles('[data-testid=open-report]', file);
  await page.waitForSelector('[data-testid=case-row]');
  assert.equal(await page.textContent('[data-testid=viewer-count]'), '20000 / 20000');
  const counts = [];
  for (const y of [0, 30000, 300000, -1]) {
    await page.$eval('.vtable', (el, top) => { el.scrollTop = top < 0 ? el.scrollHeight : top; el.dispatchEvent(new Event('scroll')); }, y);
    await page.waitForTimeout(50);
    counts.push(await rows(page));
  }
  assert.ok(counts.every((c) => c > 0 && c <= 40), `rows in the DOM: ${counts}`);
  const last = await page.locator('[data-testid=case-row]').last().getAttribute('data-id');
  assert.equal(last, 'c19999', 'scrolled to the end');
  assert.deepEqual(errors, []);
});

function execBig(file, n) {
  const r = cli(['bench-report', '--cases', String(n), '--out', file]);
  if (r.status !== 0) {
    // No generator in the CLI: write the report here.
    const scores = [];
    for (let i = 0; i < n; i += 1) {
      for (const m of ['accuracy', 'citation']) {
        scores.push({ sample_id: `c${i}`, metric: m, value: (i * (m === 'accuracy' ? 7 : 3)) % 10 < 6 ? 1 : 0,
          tags: [`t${i % 7}`], language: i % 2 ? 'zh' : 'en', length_bucket: 'short', detail: { answer: `answer ${i}` } });
      }
    }
    const mean = (m) => scores.filter((s) => s.metric === m).reduce((a, s) => a + s.value, 0) / n;
    const report = {
      metrics: { cases: n, passed_cases: 0, failed_calls: 0 },
      scores,
      report: {
        experiment: { dataset: { dataset_id: 'big', version: 'v1', name: 'big.jsonl', counts: {}, languages: {}, tags: {} },
          run_config: { kind: 'rag' }, evaluator_config: {} },
        summaries: ['accuracy', 'citation'].map((m) => ({ metric: m, mean: mean(m), std: 0.5, sample_count: n })),
        breakdowns: [], error_cases: [], llm_judge_details: [],
      },
    };
    fs.writeFileSync(file, JSON.stringify(report));
  }
}

test('compare two runs, two models of one run, and a published folder (?eval=)', async () => {
  const out = tmpDir('viewer-compare');
  const ds = path.join(ROOT, 'www/demo/tasks/event_eval.jsonl');
  for (const m of ['mock-a', 'mock-b']) {
    const r = cli(['run', '--task', 'event_eval', '--dataset', ds, '--mock', '--models', m, '--out', path.join(out, m)]);
    assert.equal(r.status, 0, r.stderr);
  }
  const both = cli(['run', '--task', 'event_eval', '--dataset', ds, '--mock', '--models', 'mock-a,mock-b', '--out', path.join(out, 'both')]);
  assert.equal(both.status, 0, both.stderr);
  const json = path.join(out, 'cmp.json');
  const c = cli(['compare', path.join(out, 'mock-a'), path.join(out, 'mock-b'), '--json', json]);
  assert.equal(c.status, 0, c.stderr);
  const fromCli = JSON.parse(fs.readFileSync(json, 'utf8'));
  const cliRows = fromCli.rows ?? fromCli.comparison?.rows;

  const { page, errors } = await openViewer();
  await page.setInputFiles('[data-testid=open-report]', path.join(out, 'mock-a', 'report.json'));
  await page.waitForSelector('[data-testid=case-row]');
  await page.setInputFiles('[data-testid=open-compare]', path.join(out, 'mock-b', 'report.json'));
  await page.waitForSelector('[data-testid=compare-row]');
  const rowsIn = (p) => p.locator('[data-testid=compare-row]').evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
  const shown = await rowsIn(page);
  assert.equal(shown.length, cliRows.length);
  for (const r of cliRows) {
    const row = shown.find((s) => s[0].endsWith(r.metric));
    assert.ok(row, r.metric);
    assert.equal(Number(row[1]), r.n);
    assert.equal(row[4], `${r.delta >= 0 ? '+' : ''}${r.delta.toFixed(3)}`.replace('+-', '-'));
    assert.equal(Number(row[7]), r.regressions);
  }
  const twoRuns = shown.map((s) => s.slice(0, 5));

  // Two more runs at once (mock-b again and mock-a itself): each compared with the
  // base on its own, side by side, with the numbers of `evalpage compare A B A`.
  await page.click('[data-testid=compare-panel] button');
  await page.waitForSelector('[data-testid=compare-panel]', { state: 'detached' });
  const many = path.join(out, 'many.json');
  const cm = cli(['compare', path.join(out, 'mock-a'), path.join(out, 'mock-b'), path.join(out, 'mock-a'), '--json', many]);
  assert.equal(cm.status, 0, cm.stderr);
  const cliMany = JSON.parse(fs.readFileSync(many, 'utf8')).comparisons;
  await page.setInputFiles('[data-testid=open-compare]', [path.join(out, 'mock-b', 'report.json'), path.join(out, 'mock-a', 'report.json')]);
  await page.waitForSelector('[data-testid=side-by-side-row]');
  assert.equal(await page.locator('[data-testid=compare-panel]').count(), 2);
  const side = await page.locator('[data-testid=side-by-side-row]').evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
  assert.equal(side.length, cliRows.length);
  for (const row of side) {
    const metric = row[0];
    cliMany.forEach((cmp, j) => {
      const r = cmp.comparison.rows.find((x) => x.metric === metric);
      assert.ok(r, metric);
      const d = `${r.delta >= 0 ? '+' : ''}${r.delta.toFixed(3)}`.replace('+-', '-');
      assert.ok(row[1 + j].startsWith(`${r.new.toFixed(3)} (${d}`), `${metric} run ${j}: ${row[1 + j]}`);
    });
    assert.ok(row[2].startsWith(`${cliMany[1].comparison.rows.find((x) => x.metric === metric).new.toFixed(3)} (+0.000`), row[2]);
  }
  // Closing one comparison leaves the other, and no side by side for one run.
  await page.locator('[data-testid=compare-panel] button').first().click();
  await page.waitForSelector('[data-testid=compare-side-by-side]', { state: 'detached' });
  assert.equal(await page.locator('[data-testid=compare-panel]').count(), 1);
  await page.click('[data-testid=compare-panel] button');

  // The models of one run compared with each other: the same numbers.
  await page.setInputFiles('[data-testid=open-report]', path.join(out, 'both', 'report.json'));
  await page.waitForSelector('[data-testid=compare-models]');
  await page.selectOption('[data-testid=compare-model-a]', 'mock-a');
  await page.selectOption('[data-testid=compare-model-b]', 'mock-b');
  await page.click('[data-testid=compare-models]');
  await page.waitForSelector('[data-testid=compare-row]');
  assert.deepEqual((await rowsIn(page)).map((s) => s.slice(1, 5)), twoRuns.map((s) => s.slice(1, 5)));

  // A published folder beside the site: its runs listed, opened and compared.
  const folder = path.join(ROOT, 'dist', `evals-test-${process.pid}`);
  fs.mkdirSync(folder, { recursive: true });
  try {
    for (const m of ['mock-a', 'mock-b']) fs.copyFileSync(path.join(out, m, 'report.json'), path.join(folder, `${m}.json`));
    fs.writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify({
      title: 'Team evals', runs: [{ name: 'A', path: 'mock-a.json' }, { name: 'B', path: 'mock-b.json', description: 'the other mock' }],
      datasets: [{ name: 'news', path: 'news.jsonl' }],
    }));
    const { page: p2, errors: e2 } = await openViewer(`&eval=${encodeURIComponent(`/evals-test-${process.pid}/`)}`);
    await p2.waitForSelector('[data-testid=manifest-run]');
    assert.equal(await p2.locator('[data-testid=manifest-run]').count(), 2);
    await p2.locator('[data-testid=manifest-open]').first().click();
    await p2.waitForSelector('[data-testid=case-row]');
    await p2.locator('[data-testid=manifest-compare]').nth(1).click();
    await p2.waitForSelector('[data-testid=compare-row]');
    assert.deepEqual((await rowsIn(p2)).map((s) => s.slice(0, 5)), twoRuns);
    assert.deepEqual(e2, []);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  assert.deepEqual(errors, []);
});

test('a RAG run downloaded from the page shows its √/×, reasons, metrics, error summary and Notes as live', async () => {
  // In Chinese: the report keeps English reasons, so equal reasons show the
  // viewer derives them as the live page does, in the page's language.
  const errors = [];
  const live = await newPage(browser, errors);
  await live.goto(`${site.url}/?lang=zh&provider=demo&demo_latency=0.05`);
  await live.click('[data-testid=start]');
  await waitStatus(live, 'done');
  const liveRows = await live.locator('[data-testid=case-row]').evaluateAll((rs) => rs.map((r) => ({
    id: r.children[0].textContent,
    q: r.children[1].textContent,
    acc: r.querySelector('[data-testid=case-accuracy]').textContent,
    cit: r.querySelector('[data-testid=case-citation]').textContent,
    reason: r.querySelector('[data-testid=case-reason]').textContent,
  })));
  assert.equal(liveRows.length, 10);
  assert.ok(liveRows.some((x) => x.reason) && liveRows.some((x) => !x.reason), 'some cases fail, some pass');
  // A live row is clipped: a failing case's whole answer and reasons are in its drill-down.
  const failing = liveRows.find((x) => x.reason);
  await live.locator('[data-testid=case-row]').filter({ has: live.locator('td:first-child', { hasText: new RegExp(`^${failing.id}$`) }) }).click();
  const liveDetail = live.locator('[data-testid=case-detail] tbody tr');
  await liveDetail.waitFor();
  failing.reasons = await liveDetail.locator('td.reason div').allTextContents();
  failing.answer = await liveDetail.locator('td.answer .clip').textContent();
  failing.timing = await liveDetail.locator('td.muted').last().textContent();
  assert.match(failing.timing, /^[1-9]\d* · \d+ ms$/, 'attempts and time of the case');
  assert.equal(failing.reasons.join(' / '), failing.reason, 'the row shows the reasons of its drill-down');
  const text = (p, sel) => p.textContent(sel);
  const liveMetrics = await Promise.all(['metric-accuracy', 'metric-citation', 'metric-failed'].map((id) => text(live, `[data-testid=${id}]`)));
  const liveFailing = await live.locator('[data-testid=error-summary] li').allTextContents();
  const liveNotes = await text(live, '[data-testid=notes]');
  assert.match(liveNotes, /^Notes:/);
  assert.ok(liveRows.some((x) => /[\u4e00-\u9fff]/.test(x.reason)), 'reasons in Chinese');
  const zip = await downloadBytes(live, 'download-zip');
  const out = tmpDir('viewer-rag-live');
  const zipFile = path.join(out, 'rag-run.zip');
  fs.writeFileSync(zipFile, zip.bytes);

  const { page, errors: viewErrors } = await openViewer('', 'zh');
  await page.setInputFiles('[data-testid=open-report]', zipFile);
  await page.waitForSelector('[data-testid=rag-look]');
  assert.equal(await page.locator('[data-testid=case-row]').count(), 10);
  for (const want of liveRows) {
    const row = page.locator(`[data-testid=case-row][data-id=${want.id}]`);
    assert.equal(await row.locator('[data-testid=case-accuracy]').textContent(), want.acc, `${want.id} accuracy`);
    assert.equal(await row.locator('[data-testid=case-citation]').textContent(), want.cit, `${want.id} citation`);
    assert.equal(await row.locator('[data-testid=case-reason]').textContent(), want.reason, `${want.id} reasons`);
    assert.equal(await row.locator('td.q').textContent(), want.q, `${want.id} question`);
  }
  assert.deepEqual(
    await Promise.all(['metric-accuracy', 'metric-citation', 'metric-failed'].map((id) => text(page, `[data-testid=${id}]`))),
    liveMetrics,
  );
  assert.deepEqual(await page.locator('[data-testid=error-summary] li').allTextContents(), liveFailing);
  assert.equal(await text(page, '[data-testid=notes]'), liveNotes);

  // A failing case's drill-down is the RAG page's row: answer, √/×, reasons.
  await page.click(`[data-testid=case-row][data-id=${failing.id}]`);
  await page.waitForSelector('[data-testid=rag-case]');
  const detail = page.locator('[data-testid=case-detail] [data-testid=rag-case] tbody tr');
  assert.deepEqual(await detail.locator('td.reason div').allTextContents(), failing.reasons);
  assert.equal(await detail.locator('td.answer .clip').textContent(), failing.answer);
  assert.equal(await detail.locator('td.muted').last().textContent(), failing.timing, "attempts and time as live (the zip's results.jsonl)");
  assert.equal(await page.textContent('[data-testid=latency-count]'), '10 / 10', 'every case in the latency histogram');
  assert.equal(await detail.locator('[data-testid=case-accuracy]').textContent(), failing.acc);
  assert.deepEqual(errors, []);
  assert.deepEqual(viewErrors, []);
});

test('a dialog run downloaded from the page, or its CLI files, shows its conversations and M1–M5 summary as live', async () => {
  const errors = [];
  const live = await newPage(browser, errors);
  await live.goto(`${site.url}/?lang=en&mode=dialog`);
  await live.waitForSelector('[data-testid=dialog-dataset-summary]');
  await live.click('[data-testid=dialog-start]');
  await waitStatus(live, 'done');
  const summaryRows = (p) => p.locator('[data-testid=dialog-metric]').evaluateAll((rs) => rs.map((r) => [r.dataset.metric, ...[...r.children].map((c) => c.textContent)]));
  const liveSummary = await summaryRows(live);
  assert.ok(liveSummary.length >= 5, JSON.stringify(liveSummary));
  const liveCounters = await live.textContent('[data-testid=dialog-counters]');
  // The live table: one row per dialog, only the rows in view in the DOM.
  const tableRows = (p) => p.locator('[data-testid=case-row]').evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
  const liveTable = await tableRows(live);
  assert.equal(liveTable.length, 22, 'the 22 rows fit in the window');
  assert.match(await live.textContent('[data-testid=dialog-conversations] h2'), /\(22\)/);
  /** Opens a dialog's row and returns each turn of its conversation. */
  const turns = async (p, id) => {
    await p.click(`[data-testid=case-row][data-id=${id}]`);
    const card = p.locator(`[data-testid=case-detail] [data-testid=dialog-card][data-dialog-id=${id}][open]`);
    await card.locator('[data-testid=dialog-turn]').first().waitFor();
    return card.locator('[data-testid=dialog-turn]').allTextContents();
  };
  const liveTurns = await turns(live, 'memfin-002');
  assert.ok(liveTurns.length > 1 && liveTurns.every((t) => /M1 .*M2 .*M3 .*M4 /.test(t)), 'turns with their verdicts');
  const zip = await downloadBytes(live, 'download-zip');
  const out = tmpDir('viewer-dialog-live');
  const zipFile = path.join(out, zip.name);
  fs.writeFileSync(zipFile, zip.bytes);

  const { page, errors: viewErrors } = await openViewer();
  await page.setInputFiles('[data-testid=open-report]', zipFile);
  await page.waitForSelector('[data-testid=dialog-results]');
  assert.deepEqual(await summaryRows(page), liveSummary);
  assert.equal(await page.textContent('[data-testid=dialog-counters]'), liveCounters);
  assert.equal(await page.textContent('[data-testid=viewer-count]'), '22 / 22', 'one row per dialog');
  // The rows are the live table's (the dialogs have no model column), the
  // drill-down its conversation, open, as live.
  assert.deepEqual(await tableRows(page), liveTable);
  assert.deepEqual(await turns(page, 'memfin-002'), liveTurns);
  await page.fill('[data-testid=case-search]', 'memfin-002');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=case-row]').length === 1);

  // The CLI's folder, its files picked together, one turn_eval line broken:
  // the summary is the CLI's, the bad line named with its file and line.
  const dir = tmpDir('viewer-dialog-cli');
  const run = cli(['run', '--dialogs', path.join(ROOT, 'www/demo/demo_dialogs.jsonl'), '--provider', 'demo', '--out', dir]);
  assert.equal(run.status, 0, run.stderr);
  const turnEval = fs.readFileSync(path.join(dir, 'turn_eval.jsonl'), 'utf8').split('\n');
  turnEval[3] = '{"trace_version":"v1","run_id":"x"';
  fs.writeFileSync(path.join(dir, 'turn_eval.jsonl'), turnEval.join('\n'));
  const picked = ['dialog_trace.jsonl', 'turn_eval.jsonl', 'metrics_summary.json', 'run_manifest.json'].map((n) => path.join(dir, n));
  await page.fill('[data-testid=case-search]', '');
  await page.setInputFiles('[data-testid=open-report]', picked);
  await page.waitForFunction(() => document.querySelector('[data-testid=viewer-summary] h2')?.textContent.includes('turn_eval.jsonl'));
  assert.match(await page.textContent('[data-testid=viewer-summary]'), /turn_eval\.jsonl:4: .*\(skipped\)/);
  const cliSummary = JSON.parse(fs.readFileSync(path.join(dir, 'metrics_summary.json'), 'utf8'));
  for (const [name, m] of Object.entries(cliSummary.metrics)) {
    const row = await page.locator(`[data-testid=dialog-metric][data-metric=${name}]`).evaluate((r) => [...r.children].map((c) => c.textContent));
    assert.deepEqual(row.slice(1, 6), [m.status, m.value === null ? '—' : m.value.toFixed(3), String(m.eligible_count), String(m.skipped_count), String(m.failed_count)], name);
  }
  assert.equal(await page.textContent('[data-testid=viewer-count]'), `${cliSummary.counters.total_dialogs} / ${cliSummary.counters.total_dialogs}`);

  // Another producer's turn_eval.jsonl: spec 001 §5's own example row opens
  // (evalpage's extras absent); a row without eligible_m3 is named with §5's list.
  const foreign = tmpDir('viewer-dialog-foreign');
  const section5 = {
    trace_version: 'v1', run_id: '20260217_210500_abc123', dialog_id: '3e53acb5-c444-4640-8ac4-78ce4d26a104', turn_pair_id: 1,
    eligible_m1: true, eligible_m2: false, eligible_m3: true, eligible_m4: true, eligible_m5: true,
    required_keys_raw: ['profile_gt.risk_level_gt'],
    resolved_keys: [{ key: 'profile_gt.risk_level_gt', resolvable: true, target_text: '稳健', resolver: 'profile_field' }],
    key_hit_flags: [1], key_hit_sources: [['short_term']], m1_source_hits: { short_term: 1, long_term: 0, profile: 0 },
    constraint_contradiction: 0, risk_required_tags: ['market_uncertainty'], risk_pred_tags: ['market_uncertainty', 'not_buy_sell_advice'],
    risk_tag_hits: 1, forbidden_hits: [], pred_compliance_label: 'compliant', gt_compliance_label: 'compliant',
    rubric_required: ['信息依据', '边界声明'], rubric_hit_items: ['信息依据', '边界声明'], judge_score_1_5: 4.0,
  };
  const { eligible_m3: _, ...withoutM3 } = { ...section5, turn_pair_id: 2 };
  const foreignFile = path.join(foreign, 'turn_eval.jsonl');
  fs.writeFileSync(foreignFile, `${JSON.stringify(section5)}\n${JSON.stringify(withoutM3)}\n`);
  await page.setInputFiles('[data-testid=open-report]', foreignFile);
  await page.waitForFunction(() => document.querySelector('[data-testid=viewer-summary]')?.textContent.includes('turn_eval.jsonl:2'));
  const said = await page.textContent('[data-testid=viewer-summary]');
  assert.match(said, /turn_eval\.jsonl:2: .*eligible_m3.*spec 001 §5 requires trace_version, run_id, dialog_id, turn_pair_id, eligible_m1/);
  assert.equal(await page.textContent('[data-testid=viewer-count]'), '1 / 1');
  assert.deepEqual(errors, []);
  assert.deepEqual(viewErrors, []);
});
