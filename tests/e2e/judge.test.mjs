// End-to-end: a task with llm_judge metrics in the page's task mode: the
// judge is chosen (the built-in mock judge, or a model of the list on
// `evalpage mock-server`, on its own pool), the report has spec 003's
// llm_judge_details and three outcomes, and for the same mock answers the
// numbers equal `evalpage run --task support_judged --mock`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, startMock, launch, newPage, waitStatus, downloadBytes, readStoredZip, cli, tmpDir, ROOT,
} from './helpers.mjs';

const SUPPORT_DEMO = path.join(ROOT, 'www/demo/tasks/support_qa.jsonl');

let site; let browser; let mock;
before(async () => { site = await startSite(); browser = await launch(); mock = await startMock(); });
after(async () => { await browser?.close(); site?.stop(); mock?.stop(); });

async function zipFiles(page) {
  const zip = await downloadBytes(page, 'download-zip');
  return new Map(readStoredZip(zip.bytes));
}

test('the mock judge in the page gives the CLI numbers; an endpoint judge is called on its own', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0&task=support_judged`);
  await page.waitForSelector('[data-testid=task-judge]');
  assert.equal(await page.inputValue('[data-testid=task-judge]'), 'mock');
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  const files = await zipFiles(page);
  const report = JSON.parse(files.get('report.json'));
  const details = report.report.llm_judge_details;
  const models = [...new Set(report.report.summaries.map((x) => x.model ?? null))];
  assert.equal(details.length, 2 * models.length, 'one detail per judged metric and model');
  for (const d of details) {
    for (const k of ['prompt_id', 'prompt_version', 'language', 'criteria', 'sample_count', 'sample_ids']) {
      assert.ok(k in d, `LLMJudgeDetail ${k}: ${JSON.stringify(d)}`);
    }
    assert.equal(d.judge_model, 'mock');
  }
  const log = files.get('report.events.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  const cases = log.filter((r) => r.record_type === 'case');
  assert.ok(cases.every((c) => c.judgements && Object.keys(c.judgements).length === 2), 'judgements in the log');

  const out = tmpDir('judge-cli');
  const run = cli(['run', '--task', 'support_judged', '--dataset', SUPPORT_DEMO, '--mock',
    '--models', models.join(','), '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  const fromCli = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  const means = (r) => r.report.summaries.map((s) => [s.model ?? null, s.metric, s.mean]);
  assert.deepEqual(means(report), means(fromCli));

  // A model of the list as the judge: an endpoint on mock-server (which plays
  // the judge), not ticked as an answerer; its requests are the judge's only.
  const setField = async (id, value) => {
    await page.fill(`[data-testid=${id}]`, value);
  };
  await setField('endpoint-url', mock.url);
  await setField('model-name', 'evalpage-demo');
  await page.click('[data-testid=add-endpoint-model]');
  await page.waitForSelector('[data-testid=model-toggle-evalpage-demo]');
  await page.uncheck('[data-testid=model-toggle-evalpage-demo]');
  await page.selectOption('[data-testid=task-judge]', 'evalpage-demo');
  const posts = [];
  page.on('request', (r) => { if (r.method() === 'POST') posts.push(JSON.parse(r.postData())); });
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  const judged = JSON.parse((await zipFiles(page)).get('report.json'));
  assert.ok(judged.report.llm_judge_details.every((d) => d.judge_model === 'evalpage-demo'));
  assert.ok(posts.length >= 8 * 2 * models.length, `a judge request per sample, metric and model: ${posts.length}`);
  assert.ok(posts.every((p) => p.model === 'evalpage-demo' && /GRADE/.test(p.messages.at(-1).content + (p.messages[0]?.content ?? ''))),
    'every request to the endpoint is a judge request');
  assert.ok(!posts.some((p) => 'response_format' in p), "the task's params are not sent to the judge");

  // A priced registry model as the judge: its usage row carries its cost, as the CLI's does.
  await page.click('[data-testid=task-models-panel] summary');
  const registry = { models: [{ name: 'grader', base_url: mock.url, model: 'evalpage-demo', price_in_per_mtok: 1, price_out_per_mtok: 2 }] };
  await page.fill('[data-testid=registry]', JSON.stringify(registry));
  await page.waitForSelector('[data-testid=model-toggle-grader]');
  await page.uncheck('[data-testid=model-toggle-grader]');
  await page.selectOption('[data-testid=task-judge]', 'grader');
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  const priced = JSON.parse((await zipFiles(page)).get('report.json'));
  const row = priced.report.usage.find((u) => u.role === 'judge');
  assert.ok(row, 'a usage row for the judge');
  assert.equal(row.model, 'grader');
  const expected = (row.prompt_tokens * 1 + row.completion_tokens * 2) / 1e6;
  assert.ok(row.prompt_tokens > 0 && Math.abs(row.cost - expected) < 1e-12, `the judge's price applies: ${JSON.stringify(row)}`);
  assert.deepEqual(errors, []);
});
