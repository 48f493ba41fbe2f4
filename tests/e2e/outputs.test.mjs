// End-to-end: a RAG check in the page offers the same files as every run
// (the core's one renderer, as the CLI writes them) in one zip, and for the
// same answers (the offline demo model) they equal the CLI's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, launch, newPage, waitStatus, downloadBytes, readStoredZip, cli, tmpDir, DEMO_DATASET,
} from './helpers.mjs';

// The report and its logs under spec 000's names.
const FILES = ['results.jsonl', 'scores.jsonl', 'summary.csv', 'report.md', 'eval_rag_report.json', 'summary.json',
  'run_meta.json', 'dataset_fingerprint.json', 'model_snapshot.json',
  'eval_rag_report.events.jsonl', 'eval_rag_report.events.json-seq'];

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

test('the RAG check zips every file of the run, equal to what the CLI writes for the same answers', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=en&provider=demo&demo_latency=0&autorun=1`);
  await waitStatus(page, 'done');
  const zip = await downloadBytes(page, 'download-zip');
  assert.match(zip.name, /\.zip$/);
  const files = new Map(readStoredZip(zip.bytes));
  assert.deepEqual([...files.keys()], FILES);
  const rows = files.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(rows.length, 10);
  for (const key of ['sample_id', 'dataset_id', 'backend', 'run_config', 'response_text', 'status',
    'latency_ms', 'trace_id', 'attempts', 'error', 'raw']) {
    assert.ok(rows.every((r) => key in r), `RunRecord field ${key}`);
  }
  const fp = JSON.parse(files.get('dataset_fingerprint.json'));
  const sha = (await import('node:crypto')).createHash('sha256').update(fs.readFileSync(DEMO_DATASET)).digest('hex');
  assert.equal(fp.sha256, sha, 'the fingerprint is of the dataset bytes');
  const out = tmpDir('outputs-cli');
  const run = cli(['run', '--dataset', DEMO_DATASET, '--provider', 'demo', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  for (const name of ['scores.jsonl', 'dataset_fingerprint.json']) {
    assert.equal(files.get(name), fs.readFileSync(path.join(out, name), 'utf8'), `${name} equals the CLI's`);
  }
  // summary.csv equals the CLI's but for the timing columns (latency, tokens per second).
  const untimed = (csv) => {
    const rows = csv.trim().split('\n').map((l) => l.split(','));
    const keep = rows[0].map((h, i) => (/latency|per_s/.test(h) ? -1 : i)).filter((i) => i >= 0);
    return rows.map((r) => keep.map((i) => r[i]).join(','));
  };
  assert.deepEqual(untimed(files.get('summary.csv')), untimed(fs.readFileSync(path.join(out, 'summary.csv'), 'utf8')));
  const fromCli = JSON.parse(fs.readFileSync(path.join(out, 'eval_rag_report.json'), 'utf8'));
  const fromPage = JSON.parse(files.get('eval_rag_report.json'));
  assert.deepEqual(fromPage.metrics, fromCli.metrics);
  assert.deepEqual(fromPage.report.summaries, fromCli.report.summaries);
  assert.deepEqual(errors, []);
});

test('the zip writer comes with the first zip, not with the page; when it cannot be fetched the button says so, and the next click makes the zip', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  let fail = true;
  await page.route('**/*.split_zip.wasm', (route) => (fail ? route.abort() : route.continue()));
  await page.goto(`${site.url}/?lang=en&provider=demo&demo_latency=0&autorun=1`);
  await waitStatus(page, 'done');
  const wasms = () => page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm')));
  assert.deepEqual((await wasms()).filter((n) => n.endsWith('.split_zip.wasm')), [], 'no zip code before a zip is asked for');
  await page.click('[data-testid=download-zip]');
  await page.waitForSelector('[data-testid=zip-failed]');
  assert.match(await page.textContent('[data-testid=zip-failed]'), /could not be fetched/);
  fail = false;
  const zip = await downloadBytes(page, 'download-zip');
  assert.deepEqual(readStoredZip(zip.bytes).map(([name]) => name), FILES);
  assert.equal(await page.locator('[data-testid=zip-failed]').count(), 0, 'the line goes once the zip is made');
  assert.equal((await wasms()).filter((n) => n.endsWith('.split_zip.wasm')).length >= 1, true, 'the zip code was fetched');
  assert.deepEqual(errors, []);
});
