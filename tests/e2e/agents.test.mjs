// End-to-end: an agent task with scripted tools in the page's task mode
// (release build, Chromium). The example task of examples/agent, with seeded
// faults, on the two mock models: the same scores as the CLI's run of the same
// task, and each case's trajectory shown step by step (the model's calls,
// what each tool answered, faults marked; a long answer folded, the calls a
// case made at its step limit said not executed); the viewer shows the same
// steps for the saved run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, launch, newPage, waitStatus, downloadBytes, readStoredZip, cli, tmpDir, ROOT,
} from './helpers.mjs';

const EXAMPLE = path.join(ROOT, 'examples/agent');
const FAULTS = '  max_steps: 4\n  faults: {seed: 11, rate: 0.5}';

let site; let browser;

before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

/** The task mode with this agent task, its prompt and a dataset (the example's unless told). */
async function openAgentTask(errors, task, prompt, dataset = path.join(EXAMPLE, 'bank.jsonl'), count = 6) {
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.fill('[data-testid=task-yaml]', task);
  await page.fill('[data-testid=template-yaml]', prompt);
  await page.setInputFiles('[data-testid=task-dataset-file]', dataset);
  await page.waitForFunction((n) => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes(`${n} valid samples`), count);
  return page;
}

const scoresOf = (text) => Object.fromEntries(text.trim().split('\n').map((l) => JSON.parse(l))
  .map((s) => [`${s.detail.model}/${s.sample_id}/${s.metric}`, s.value]));

test('an agent task with scripted tools: the CLI\'s scores, and each trajectory step by step', async () => {
  const task = fs.readFileSync(path.join(EXAMPLE, 'bank.yaml'), 'utf8').replace('  max_steps: 4', FAULTS);
  assert.ok(task.includes('faults:'));
  const prompt = fs.readFileSync(path.join(EXAMPLE, 'bank_prompt.yaml'), 'utf8');
  const dir = tmpDir('agent-cli');
  fs.writeFileSync(path.join(dir, 'bank.yaml'), task);
  fs.writeFileSync(path.join(dir, 'bank_prompt.yaml'), prompt);
  const out = path.join(dir, 'out');
  const run = cli(['run', '--task', path.join(dir, 'bank.yaml'), '--dataset', path.join(EXAMPLE, 'bank.jsonl'),
    '--mock', '--models', 'mock-a,mock-b', '--out', out]);
  assert.equal(run.status, 0, run.stderr);

  const errors = [];
  const page = await openAgentTask(errors, task, prompt);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '12/12');

  const zip = await downloadBytes(page, 'download-zip');
  const files = new Map(readStoredZip(zip.bytes));
  assert.deepEqual(scoresOf(files.get('scores.jsonl')), scoresOf(fs.readFileSync(path.join(out, 'scores.jsonl'), 'utf8')));
  const results = files.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  const cliResults = fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  for (const [a, b] of results.map((r, i) => [r, cliResults[i]])) {
    assert.deepEqual(a.trajectory, b.trajectory, `${a.model}/${a.sample_id}`);
    assert.deepEqual(a.agent.steps.map((s) => s.tools?.map((t) => t.fault ?? null)), b.agent.steps.map((s) => s.tools?.map((t) => t.fault ?? null)));
  }
  const report = JSON.parse(files.get('report.json'));
  const faulted = results.reduce((n, r) => n + r.agent.faults, 0);
  assert.ok(faulted > 0);
  assert.equal(report.metrics.faulted_calls, faulted);
  const steps = files.get('report.events.jsonl').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.record_type === 'step');
  assert.equal(steps.length, results.reduce((n, r) => n + r.agent.model_calls, 0), 'one step record per model call');

  // The drill-down of a case with faults: every step, every call and answer.
  const withFault = results.find((r) => r.agent.faults > 0);
  await page.click(`[data-testid=sample-row][data-sample="${withFault.sample_id}"]`);
  const detail = page.locator('[data-testid=sample-detail]');
  await detail.waitFor();
  const trajectories = detail.locator('[data-testid=cell-trajectory]');
  assert.equal(await trajectories.count(), 2, 'one per model');
  const m = withFault.model === 'mock-a' ? 0 : 1;
  const shown = trajectories.nth(m);
  assert.equal(await shown.locator('[data-testid=trajectory-step]').count(), withFault.agent.model_calls);
  const calls = withFault.agent.steps.flatMap((s) => s.tools ?? []);
  assert.equal(await shown.locator('[data-testid=step-call]').count(), calls.length);
  assert.equal(await shown.locator('[data-testid=step-fault]').count(), withFault.agent.faults);
  const firstResult = await shown.locator('[data-testid=step-result]').first().textContent();
  assert.ok(firstResult.includes(calls[0].content.slice(0, 40)), `${firstResult} / ${calls[0].content}`);
  assert.deepEqual(errors, []);

  // The viewer: a CLI run with another seed shows its own steps, and beside
  // them, the page's run of the same case (its zip opened to compare).
  const other = path.join(dir, 'seed12');
  fs.writeFileSync(path.join(dir, 'bank.yaml'), task.replace('seed: 11', 'seed: 12'));
  const run12 = cli(['run', '--task', path.join(dir, 'bank.yaml'), '--dataset', path.join(EXAMPLE, 'bank.jsonl'),
    '--mock', '--models', 'mock-a,mock-b', '--out', other]);
  assert.equal(run12.status, 0, run12.stderr);
  const base = fs.readFileSync(path.join(other, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    .find((r) => r.sample_id === withFault.sample_id && r.model === withFault.model);
  const zipFile = path.join(dir, 'page-run.zip');
  fs.writeFileSync(zipFile, zip.bytes);
  const viewer = await newPage(browser, errors);
  await viewer.goto(`${site.url}/?mode=view&lang=en`);
  await viewer.setInputFiles('[data-testid=open-report]', [path.join(other, 'report.json'), path.join(other, 'results.jsonl')]);
  await viewer.waitForSelector('[data-testid=case-row]');
  await viewer.setInputFiles('[data-testid=open-compare]', zipFile);
  await viewer.waitForSelector('[data-testid=compare-row]');
  await viewer.locator('[data-testid=case-row]').filter({ hasText: withFault.sample_id }).filter({ hasText: withFault.model }).first().click();
  const own = viewer.locator('[data-testid=task-cell] [data-testid=cell-trajectory]');
  await own.waitFor();
  assert.equal(await own.locator('[data-testid=trajectory-step]').count(), base.agent.model_calls);
  assert.equal(await own.locator('[data-testid=step-fault]').count(), base.agent.faults);
  const sides = viewer.locator('[data-testid=compare-trajectories] [data-testid=compared-trajectory]');
  assert.equal(await sides.count(), 2);
  assert.equal(await sides.nth(0).locator('[data-testid=trajectory-step]').count(), base.agent.model_calls);
  assert.equal(await sides.nth(1).locator('[data-testid=trajectory-step]').count(), withFault.agent.model_calls);
  assert.equal(await sides.nth(1).locator('[data-testid=step-fault]').count(), withFault.agent.faults);
  assert.deepEqual(errors, []);
});

test('an agent run resumed in the page from a cut log: settled cases are not asked again, the cut one restarts', async () => {
  const task = fs.readFileSync(path.join(EXAMPLE, 'bank.yaml'), 'utf8');
  const prompt = fs.readFileSync(path.join(EXAMPLE, 'bank_prompt.yaml'), 'utf8');
  const dir = tmpDir('agent-resume');
  const out = path.join(dir, 'full');
  const run = cli(['run', '--task', path.join(EXAMPLE, 'bank.yaml'), '--dataset', path.join(EXAMPLE, 'bank.jsonl'),
    '--mock', '--models', 'mock-a,mock-b', '--concurrency', '1', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  // cut the log inside its fourth case record: three cases settled, the
  // trajectories in progress logged without their end
  const log = fs.readFileSync(path.join(out, 'report.events.jsonl'), 'utf8');
  const lines = log.split('\n');
  const caseAt = lines.map((l, i) => [l, i]).filter(([l]) => l.includes('"record_type":"case"')).map(([, i]) => i);
  const cutAt = caseAt[3];
  const cutLog = lines.slice(0, cutAt).join('\n') + '\n' + lines[cutAt].slice(0, 40);
  const settled = lines.slice(0, cutAt).filter((l) => l.includes('"record_type":"case"')).map((l) => JSON.parse(l))
    .map((r) => `${r.model}/${r.case_id}`);
  // cases whose steps were logged without their end (one per model: each
  // model has its own slot at concurrency 1)
  const cutCases = [...new Set(lines.slice(0, cutAt).filter((l) => l.includes('"record_type":"step"'))
    .map((l) => JSON.parse(l)).map((r) => `${r.model}/${r.case_id}`))].filter((k) => !settled.includes(k)).sort();
  assert.ok(cutCases.length >= 1);
  const logPath = path.join(dir, 'cut.jsonl');
  fs.writeFileSync(logPath, cutLog);

  const errors = [];
  const page = await openAgentTask(errors, task, prompt);
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await page.setInputFiles('[data-testid=resume-log-file]', logPath);
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '12/12');
  const zip = await downloadBytes(page, 'download-zip');
  const files = new Map(readStoredZip(zip.bytes));
  const results = files.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  const full = fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  for (const [a, b] of results.map((r, i) => [r, full[i]])) {
    assert.deepEqual([a.metrics, a.trajectory], [b.metrics, b.trajectory], `${a.model}/${a.sample_id}`);
  }
  const records = files.get('report.events.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  const asked = records.filter((r) => r.record_type === 'step').map((r) => `${r.model}/${r.case_id}`);
  for (const key of settled) assert.ok(!asked.includes(key), `${key} was settled and asked again`);
  const restarted = records.filter((r) => r.record_type === 'step' && r.restarted);
  assert.deepEqual(restarted.map((r) => `${r.model}/${r.case_id}`).sort(), cutCases);
  assert.ok(restarted.every((r) => r.step === 1));
  assert.deepEqual(errors, []);
});

test('an agent case view: a long tool answer folded and unfolded by a click, the calls at the step limit not executed', async () => {
  const prompt = fs.readFileSync(path.join(EXAMPLE, 'bank_prompt.yaml'), 'utf8');
  const task = fs.readFileSync(path.join(EXAMPLE, 'bank.yaml'), 'utf8').replace('  max_steps: 4', '  max_steps: 2');
  assert.ok(task.includes('max_steps: 2'));
  // a balance with its history (an answer longer than the fold), and pay_rent,
  // whose second call comes at the step limit
  const history = Array.from({ length: 8 }, (_, i) => ({ date: `2026-11-0${i + 1}`, amount: -7 * (i + 1), to: 'GROCER' }));
  const result = { balance: 120, history };
  const long = JSON.stringify(result);
  assert.ok(long.length > 160 * 2);
  const statement = {
    sample_id: 'statement', request: 'What did A1 spend lately?', answer: ['GROCER'],
    tool_results: [{ name: 'get_balance', arguments: { account: 'A1' }, result }],
    expected_trajectory: [
      { role: 'assistant', content: '', tool_calls: [{ id: 'c0', type: 'function', function: { name: 'get_balance', arguments: '{"account": "A1"}' } }] },
      { role: 'tool', tool_call_id: 'c0', content: long },
      { role: 'assistant', content: 'A1 paid GROCER eight times.' },
    ],
  };
  const payRent = fs.readFileSync(path.join(EXAMPLE, 'bank.jsonl'), 'utf8').split('\n').find((l) => l.includes('"pay_rent"'));
  const dir = tmpDir('agent-fold');
  const dataset = path.join(dir, 'fold.jsonl');
  fs.writeFileSync(dataset, `${JSON.stringify(statement)}\n${payRent}\n`);

  const errors = [];
  const page = await openAgentTask(errors, task, prompt, dataset, 2);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '4/4');
  const files = new Map(readStoredZip((await downloadBytes(page, 'download-zip')).bytes));
  const results = files.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  const of = (model, id) => results.find((r) => r.model === model && r.sample_id === id);
  // mock-a asks for the balance (mock-b answers without a call)
  const told = of('mock-a', 'statement').agent.steps[0].tools[0].content;
  assert.equal(told.length, long.length);
  assert.ok(results.filter((r) => r.sample_id === 'pay_rent').every((r) => r.status === 'step_limit' && r.agent.end === 'step_limit'));

  // the long answer: folded to its first 160 characters, whole after one click
  await page.click('[data-testid=sample-row][data-sample="statement"]');
  const detail = page.locator('[data-testid=sample-detail]');
  await detail.waitFor();
  const answer = detail.locator('[data-testid=cell-trajectory]').nth(0).locator('[data-testid=step-result]');
  assert.equal(await answer.count(), 1);
  const summary = answer.locator('summary');
  assert.equal(await summary.textContent(), `→ ${told.slice(0, 160)}…`);
  const whole = answer.locator('pre');
  assert.equal(await whole.isVisible(), false, 'folded');
  await summary.click();
  await whole.waitFor({ state: 'visible' });
  assert.equal(await whole.textContent(), told);

  // pay_rent: the balance answered, the transfer at the step limit not executed
  await page.click('[data-testid=sample-row][data-sample="pay_rent"]');
  await page.waitForFunction(() => document.querySelector('[data-testid=sample-detail] [data-testid=step-unexecuted]'));
  const trajectories = detail.locator('[data-testid=cell-trajectory]');
  assert.equal(await trajectories.count(), 2, 'one per model');
  for (let m = 0; m < 2; m += 1) {
    const steps = trajectories.nth(m).locator('[data-testid=trajectory-step]');
    assert.equal(await steps.count(), 2);
    const first = steps.nth(0);
    assert.equal(await first.locator('[data-testid=step-call] code.name').textContent(), 'get_balance');
    assert.equal(await first.locator('[data-testid=step-result]').textContent(), '→ {"balance":950}');
    assert.equal(await first.locator('[data-testid=step-unexecuted]').count(), 0);
    const last = steps.nth(1);
    assert.equal(await last.locator('[data-testid=step-call] code.name').textContent(), 'transfer');
    assert.equal(await last.locator('[data-testid=step-result]').count(), 0);
    assert.equal(await last.locator('[data-testid=step-unexecuted]').textContent(), 'not executed: the step limit was reached');
  }
  assert.deepEqual(errors, []);
});
