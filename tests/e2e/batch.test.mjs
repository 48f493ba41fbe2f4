// End-to-end: batch files in the task mode of the release build in Chromium.
// A person ticks a registry model on `evalpage mock-server`, exports the run's
// calls (one zip: batch.json and OpenAI Batch input per model), a stand-in for
// `vllm run-batch` answers them from the mock server in another order (one
// error line, one line missing), the person imports the answers and clicks
// Start once: nothing is sent to the model, the answers are scored as a live
// run scores them, the error is a failed case with its cause and the missing
// one is not run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startMock, startSite, launch, newPage, waitStatus, downloadBytes, readStoredZip, tmpDir, ROOT, startAgain,
} from './helpers.mjs';

let site; let browser; let mock;

before(async () => {
  site = await startSite();
  browser = await launch();
  mock = await startMock(['--task', 'event_eval', '--dataset', path.join(ROOT, 'www/demo/tasks/event_eval.jsonl')]);
});
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

test('export, answer elsewhere, import: scored like a live run, nothing sent', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.click('[data-testid=task-models-panel] summary');
  const registry = { models: [{ name: 'alpha', base_url: mock.url, model: 'alpha-7b' }] };
  await page.fill('[data-testid=registry]', JSON.stringify(registry, null, 2));
  await page.waitForSelector('[data-testid=model-toggle-alpha]');
  await page.check('[data-testid=model-toggle-alpha]');
  await page.uncheck('[data-testid=model-toggle-mock-a]');
  await page.uncheck('[data-testid=model-toggle-mock-b]');

  await page.click('[data-testid=batch-panel] summary');
  const zip = await downloadBytes(page, 'batch-export');
  const files = new Map(readStoredZip(zip.bytes));
  assert.deepEqual([...files.keys()].sort(), ['batch.json', 'round-1/requests-alpha-7b.jsonl']);
  const requests = files.get('round-1/requests-alpha-7b.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(requests.length, 8);
  assert.deepEqual(requests.map((r) => r.custom_id).slice(0, 2), ['j0-c0-S001', 'j1-c0-S002']);
  for (const r of requests) {
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/v1/chat/completions');
    assert.equal(r.body.model, 'alpha-7b');
  }
  // the stand-in for vllm run-batch
  const lines = [];
  for (const r of requests) {
    const res = await fetch(`${mock.url}/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r.body),
    });
    lines.push({ id: `v-${r.custom_id}`, custom_id: r.custom_id, response: { status_code: 200, request_id: 'x', body: await res.json() }, error: null });
  }
  lines.reverse();
  lines[0] = { id: 'e', custom_id: lines[0].custom_id, response: null, error: 'CUDA out of memory' };
  const missing = lines.splice(3, 1)[0].custom_id;
  const dir = tmpDir('batch');
  const answers = path.join(dir, 'vllm_out.jsonl');
  fs.writeFileSync(answers, `${lines.map((l) => JSON.stringify(l)).join('\n')}\nnot json\n`);
  await page.setInputFiles('[data-testid=batch-answers]', answers);
  await page.waitForSelector('[data-testid=batch-status]');
  assert.match(await page.textContent('[data-testid=batch-status]'), /^7 answers from vllm_out\.jsonl/);
  assert.match(await page.textContent('[data-testid=batch-line-errors]'), /vllm_out\.jsonl:8/);

  const sent = [];
  page.on('request', (req) => { if (req.method() === 'POST') sent.push(req.url()); });
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.deepEqual(sent, [], 'nothing is sent to the model');
  const fromBatch = new Map(readStoredZip((await downloadBytes(page, 'download-zip')).bytes));
  const results = fromBatch.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(results.length, 8, 'every case in every denominator');
  const bySample = new Map(results.map((r) => [r.sample_id, r]));
  const errorSample = lines[0].custom_id.split('-')[2];
  const missingSample = missing.split('-')[2];
  assert.equal(bySample.get(errorSample).status, 'error');
  assert.match(bySample.get(errorSample).error.message, /CUDA out of memory/);
  assert.equal(bySample.get(missingSample).error_detail.kind, 'not_run');

  // the same run live: the same scores for every answered case
  await page.click('[data-testid=batch-clear]');
  await startAgain(page);
  assert.equal(sent.length, 8, 'the live run calls the model');
  const live = new Map(readStoredZip((await downloadBytes(page, 'download-zip')).bytes));
  for (const l of live.get('results.jsonl').trim().split('\n').map((x) => JSON.parse(x))) {
    if (l.sample_id === errorSample || l.sample_id === missingSample) continue;
    assert.deepEqual(bySample.get(l.sample_id).metrics, l.metrics, l.sample_id);
  }
  assert.deepEqual(errors, []);
});
