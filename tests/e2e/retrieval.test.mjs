// End-to-end: the retrieval mode (spec 000) in the page: the demo retriever
// in the page and `evalpage mock-server`'s /v1/retrieve through fetch give
// the numbers `evalpage run --retrieval` gives for the same cases; a cases
// file with a bad line is loaded with the line reported; an endpoint whose
// answers hold no list at the path gives failed cases, not a crash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, startMock, launch, newPage, waitStatus, downloadBytes, readStoredZip, cli, tmpDir, ROOT,
} from './helpers.mjs';

const CASES = path.join(ROOT, 'www/demo/demo_retrieval.jsonl');

let site; let browser; let mock;
before(async () => { site = await startSite(); browser = await launch(); mock = await startMock(); });
after(async () => { await browser?.close(); site?.stop(); mock?.stop(); });

async function runIn(page, { url = '', pathText = null, k = '3' } = {}) {
  await page.fill('[data-testid=retrieval-url]', url);
  if (pathText !== null) {
    await page.fill('[data-testid=retrieval-path]', pathText);
  }
  await page.fill('[data-testid=retrieval-k]', k);
  await page.click('[data-testid=retrieval-start]');
  await waitStatus(page, 'done');
  const zip = await downloadBytes(page, 'download-zip');
  return new Map(readStoredZip(zip.bytes));
}

test('the demo retriever and the mock endpoint give the CLI numbers', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=en&mode=retrieval`);
  await page.waitForSelector('[data-testid=retrieval-dataset-summary]');
  assert.match(await page.textContent('[data-testid=retrieval-dataset-summary]'), /demo_retrieval\.jsonl · 16 valid cases/);

  const out = tmpDir('retrieval-cli');
  const run = cli(['run', '--retrieval', '--dataset', CASES, '--k', '3', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  const fromCli = JSON.parse(fs.readFileSync(path.join(out, 'eval_retrieval_report.json'), 'utf8'));

  const offline = await runIn(page);
  assert.equal(await page.locator('[data-testid=case-row]').count(), 16);
  const fromPage = JSON.parse(offline.get('eval_retrieval_report.json'));
  assert.deepEqual(fromPage.metrics, fromCli.metrics);
  assert.deepEqual(fromPage.report.summaries, fromCli.report.summaries);
  assert.deepEqual(fromPage.report.breakdowns, fromCli.report.breakdowns);
  assert.equal(offline.get('scores.jsonl'), fs.readFileSync(path.join(out, 'scores.jsonl'), 'utf8'));
  const overall = await page.textContent('[data-testid=retrieval-overall]');
  assert.match(overall, /all16/);

  const viaFetch = await runIn(page, { url: `${mock.url}/retrieve` });
  const fetched = JSON.parse(viaFetch.get('eval_retrieval_report.json'));
  assert.deepEqual(fetched.report.summaries, fromCli.report.summaries);
  const log = viaFetch.get('eval_retrieval_report.events.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(log[0].record_type, 'meta');
  assert.equal(log[0].k, 3);
  assert.equal(log[0].endpoint, `${mock.url}/retrieve`);
  const cases = log.filter((r) => r.record_type === 'case');
  assert.equal(cases.length, 16);
  assert.ok(cases.every((c) => c.bucket && c.query && Array.isArray(c.expected_sources) && Array.isArray(c.topk)));
  assert.equal(log.at(-1).metrics.hit_cases, fromCli.metrics.hit_cases);
  assert.equal(log.at(-1).final_report_path, 'eval_retrieval_report.json', 'the summary names spec 000\'s report');
  assert.deepEqual(errors, []);
});

test('a bad cases line is reported and an answer without a list is a failed case', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=en&mode=retrieval`);
  const dir = tmpDir('retrieval-bad');
  const file = path.join(dir, 'cases.jsonl');
  fs.writeFileSync(file, [
    '{"case_id":"a","query":"RAG系统需要哪三个主要组件？","expected_sources":["02_rag_architecture.md"]}',
    '{"case_id":"b","query":42,"expected_sources":["x.md"]}',
    '{"case_id":"c","query":"LightRAG支持哪些向量数据库？","expected_sources":["04_supported_databases.md"]}',
  ].join('\n'));
  await page.setInputFiles('[data-testid=retrieval-file]', file);
  await page.waitForSelector('[data-testid=retrieval-line-errors]');
  assert.match(await page.textContent('[data-testid=retrieval-line-errors]'), /cases\.jsonl:2/);
  assert.match(await page.textContent('[data-testid=retrieval-dataset-summary]'), /2 valid cases/);
  const files = await runIn(page, { url: `${mock.url}/retrieve`, pathText: 'hits[*].doc' });
  const report = JSON.parse(files.get('eval_retrieval_report.json'));
  assert.equal(report.metrics.failed_calls, 2);
  assert.equal(report.report.error_cases.length, 2);
  assert.match(report.report.error_cases[0].message, /no ranked list/);
  assert.match(await page.textContent('[data-testid=retrieval-progress]'), /2 without a list/);
  assert.deepEqual(errors, []);
});

test('a long retrieval run keeps a window of rows in the DOM, and a row opens its case', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=en&mode=retrieval`);
  const demo = fs.readFileSync(CASES, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const lines = [];
  for (let i = 0; i < 400; i += 1) lines.push(JSON.stringify({ ...demo[i % demo.length], case_id: `R${i + 1}` }));
  const file = path.join(tmpDir('retrieval-long'), 'cases.jsonl');
  fs.writeFileSync(file, lines.join('\n'));
  await page.setInputFiles('[data-testid=retrieval-file]', file);
  await page.waitForFunction(() => /400 valid cases/.test(document.querySelector('[data-testid=retrieval-dataset-summary]')?.textContent ?? ''));
  await runIn(page);
  const rows = await page.locator('[data-testid=case-row]').count();
  assert.ok(rows > 0 && rows <= 40, `${rows} of 400 rows in the DOM`);
  assert.match(await page.textContent('[data-testid=retrieval-overall]'), /all400/);
  // The last case, reached by scrolling, opens below the table.
  await page.locator('[data-testid=retrieval-cases]').evaluate((t) => { const area = t.closest('.vtable'); area.scrollTop = area.scrollHeight; });
  await page.waitForSelector('[data-testid=case-row][data-row="399"]');
  await page.click('[data-testid=case-row][data-row="399"]');
  const detail = await page.textContent('[data-testid=retrieval-case-detail]');
  assert.match(detail, /R400/);
  assert.ok(detail.includes(demo[399 % demo.length].query), detail);
  assert.deepEqual(errors, []);
});
