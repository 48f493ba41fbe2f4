// The model file on this device in the other modes that call a model: a model
// of the task mode's list beside a mock model (and the task's judge), the model
// of the dialog mode (and its judge), and a file loaded from a URL once and then
// from this browser's storage. The same real GGUF file as local_model.test.mjs
// (Gemma 3 270M Q4_K_M, assembled by scripts/test.sh). Every request the page
// makes is counted: none may leave its own origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  startSite, launch, newPage, waitStatus, download, downloadBytes, readStoredZip, cli, tmpDir, DEMO_DATASET,
} from './helpers.mjs';

const MODEL = process.env.EVALPAGE_GGUF
  || path.join(os.homedir(), '.cache/evalpage/models/gemma-3-270m-q4_k_m.gguf');
const FILE = path.basename(MODEL);

function sha256(file) {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(8 << 20);
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  fs.closeSync(fd);
  return h.digest('hex');
}

/** The first value under `key` anywhere in `value`. */
function find(value, key) {
  if (value && typeof value === 'object') {
    if (Object.hasOwn(value, key)) return value[key];
    for (const v of Object.values(value)) {
      const got = find(v, key);
      if (got !== undefined) return got;
    }
  }
  return undefined;
}

/** Every URL the page asks for, and those that leave `origin`. */
function watchRequests(page, origin) {
  const seen = [];
  page.on('request', (r) => seen.push(r.url()));
  return {
    seen,
    away: () => seen.filter((u) => !(u.startsWith(origin) || u.startsWith('blob:') || u.startsWith('data:'))),
  };
}

// The task mode with `yaml` (edited from `preset`) over the dataset file
// `data`, and the model file picked and loaded.
async function taskWithModelFile(page, site, preset, yaml, data) {
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.selectOption('[data-testid=task-preset]', preset);
  await page.fill('[data-testid=task-yaml]', yaml);
  await page.setInputFiles('[data-testid=task-dataset-file]', data);
  await page.click('[data-testid=local-model-summary]');
  await page.setInputFiles('[data-testid=local-model-file]', MODEL);
  await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
}

test('task mode: the model file is a model of the list beside a mock model; nothing leaves the page', { timeout: 900000 }, async () => {
  assert.ok(fs.existsSync(MODEL), `the test model ${MODEL} is missing: scripts/test.sh assembles it`);
  const dir = tmpDir('local-task');
  const data = path.join(dir, 'support_two.jsonl');
  fs.writeFileSync(data, JSON.stringify(
    { id: 'pw', messages: [{ role: 'user', content: 'I forgot my password. What do I do?' }], expected: 'Use the reset link sent to your registered email.' },
  ) + '\n');
  // support_qa with a bound on the answers. (The file as a judge is run end
  // to end in the dialog test below: a judge's answers are not bounded, and
  // on a CPU they take minutes.)
  const yaml = ['name: support_small', 'version: v1', 'prompt_template: support_qa', 'default_params:',
    '  temperature: 0', '  max_tokens: 24', 'metrics:', '  - type: token_f1', '    name: f1', '    pred_field: raw_answer',
    '    label_field: expected', ''].join('\n');
  const site = await startSite('/', { isolated: true });
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    const requests = watchRequests(page, new URL(site.url).origin);
    await taskWithModelFile(page, site, 'support_qa', yaml, data);
    assert.ok(await page.isChecked(`[data-testid="model-toggle-${FILE}"]`), 'the file just loaded is ticked');
    await page.uncheck('[data-testid=model-toggle-mock-b]');
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 600000);
    assert.equal(await page.textContent('[data-testid=progress]'), '2/2');
    assert.deepEqual(await page.locator('[data-testid=summary-model]').allTextContents(), ['mock-a', FILE]);

    const zip = await downloadBytes(page, 'download-zip');
    const files = new Map(readStoredZip(zip.bytes));
    const snapshot = JSON.parse(files.get('model_snapshot.json'));
    const local = snapshot.models.find((m) => m.name === FILE);
    assert.equal(local.base_url, null, 'nothing is sent anywhere');
    assert.equal(local.engine.sha256, sha256(MODEL), 'the report names the very file');
    assert.equal(local.engine.quantisation, 'Q4_K_M');
    assert.equal(local.settings.max_tokens, 24, 'the task\'s parameters');
    const report = JSON.parse(files.get('report.json'));
    const usage = report.report.usage.filter((u) => u.model === FILE);
    assert.equal(usage.length, 1);
    assert.ok(usage[0].completion_tokens > 0 && usage[0].completion_tokens <= 24, JSON.stringify(usage));
    const speed = report.report.experiment.run.latency.find((l) => l.model === FILE);
    assert.ok(speed.prompt_tokens_per_s > 0 && speed.decode_tokens_per_s > 0, `the engine's own speeds: ${JSON.stringify(speed)}`);
    const row = page.locator('[data-testid=usage-row]', { hasText: FILE });
    assert.match(await row.locator('[data-testid=usage-decode-speed]').textContent(), /^\d+\.\d$/);
    assert.deepEqual(requests.away(), [], 'nothing leaves the page\'s origin');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('tools: the model file is offered the task\'s tools, answers with calls, and its calls get the CLI\'s verdict', { timeout: 900000 }, async () => {
  // A BFCL entry with one function; the task asks for a call (tool_choice:
  // required). The file has no chat template: the page's Gemma
  // turns offer the tools in Hermes' <tool_call> format and the engine reads
  // the calls back into OpenAI's tool_calls.
  const dir = tmpDir('evalpage-local-tools');
  const data = path.join(dir, 'BFCL_v4_simple_python.json');
  fs.writeFileSync(data, JSON.stringify({
    id: 'simple_python_0',
    question: [[{ role: 'user', content: 'What is the weather in Paris?' }]],
    function: [{
      name: 'get_weather',
      description: 'The weather of a city.',
      parameters: { type: 'dict', properties: { city: { type: 'string', description: 'The city.' } }, required: ['city'] },
    }],
    ground_truth: [{ get_weather: { city: ['Paris'] } }],
  }) + '\n');
  const yaml = ['name: bfcl', 'version: v1', 'prompt_template: bfcl', 'default_params:', '  temperature: 0', '  max_tokens: 40',
    '  tool_choice: required', 'tools:', '  field: function', 'metrics:', '  - type: tool_call', '    name: tool_call', ''].join('\n');
  const site = await startSite('/', { isolated: true });
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    const requests = watchRequests(page, new URL(site.url).origin);
    await taskWithModelFile(page, site, 'bfcl', yaml, data);
    await page.uncheck('[data-testid=model-toggle-mock-a]');
    await page.uncheck('[data-testid=model-toggle-mock-b]');
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 600000);
    assert.equal(await page.textContent('[data-testid=progress]'), '1/1');

    const zip = await downloadBytes(page, 'download-zip');
    const files = new Map(readStoredZip(zip.bytes));
    const [row] = files.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(row.status, 'ok', JSON.stringify(row));
    assert.ok(Array.isArray(row.tool_calls) && row.tool_calls.length > 0 && row.tool_calls.every((c) => c.name === 'get_weather'),
      `the answer is calls of get_weather: ${JSON.stringify(row)}`);
    // the tools were in the prompt: far more tokens than the question alone (16)
    const usage = JSON.parse(files.get('report.json')).report.usage.find((u) => u.model === FILE);
    assert.ok(usage.prompt_tokens > 100, JSON.stringify(usage));
    // the case view shows each call
    await page.click('[data-testid=sample-row][data-sample="simple_python_0"]');
    assert.match(await page.locator('[data-testid=sample-detail] [data-testid=cell-call]').first().textContent(), /get_weather/);
    // the same answer through the CLI's `score` gets the same verdict
    const page_verdict = JSON.parse(files.get('scores.jsonl').trim().split('\n')[0]);
    const answers = path.join(dir, 'answers.jsonl');
    fs.writeFileSync(answers, JSON.stringify({
      id: 'simple_python_0',
      response: {
        role: 'assistant',
        content: null,
        tool_calls: row.tool_calls.map((c) => ({ type: 'function', function: { name: c.name, arguments: c.arguments } })),
      },
    }) + '\n');
    const out = path.join(dir, 'out');
    const scored = cli(['score', '--task', 'bfcl', '--dataset', data, '--responses', answers, '--out', out]);
    assert.equal(scored.status, 0, scored.stderr);
    const cli_verdict = JSON.parse(fs.readFileSync(path.join(out, 'scores.jsonl'), 'utf8').trim().split('\n')[0]);
    assert.deepEqual([page_verdict.value, page_verdict.detail.error_type ?? null], [cli_verdict.value, cli_verdict.detail.error_type ?? null]);
    assert.deepEqual(requests.away(), [], 'nothing leaves the page\'s origin');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('dialog mode: the model file answers every turn and judges M3-M5; nothing leaves the page', { timeout: 900000 }, async () => {
  const dir = tmpDir('local-dialog');
  const dialogs = path.join(dir, 'one_dialog.jsonl');
  fs.writeFileSync(dialogs, JSON.stringify({
    dialog_id: 'd1',
    profile_gt: { risk_level_gt: 'conservative' },
    turns: [
      { role: 'user', content: 'Hi, I am a conservative investor. Remember that.' },
      { role: 'assistant', content: 'Noted: you are a conservative investor.' },
      { role: 'user', content: 'What kind of investor am I?' },
      { role: 'assistant', content: 'A conservative one.' },
    ],
  }) + '\n');
  const site = await startSite('/', { isolated: true });
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    const requests = watchRequests(page, new URL(site.url).origin);
    await page.goto(`${site.url}/?mode=dialog&lang=en`);
    await page.waitForSelector('[data-testid=dialog-dataset-summary]');
    await page.setInputFiles('[data-testid=dialog-file]', dialogs);
    await page.waitForFunction(() => document.querySelector('[data-testid=dialog-dataset-summary]')?.textContent.includes('1 to play'));
    await page.selectOption('[data-testid=dialog-provider]', 'local');
    await page.selectOption('[data-testid=dialog-judge]', 'local');
    // the answers bounded, the model's and the judge's (a CPU takes minutes on unbounded ones)
    await page.fill('[data-testid=dialog-max-tokens]', '16');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    await page.click('[data-testid=dialog-start]');
    await waitStatus(page, 'done', 600000);
    assert.match(await page.textContent('[data-testid=dialog-progress]'), /1\/1/);
    const files = new Map(readStoredZip((await downloadBytes(page, 'download-zip')).bytes));
    const trace = files.get('dialog_trace.jsonl');
    const line = JSON.parse(trace.trim().split('\n')[0]);
    assert.equal(line.turns.length, 2, 'both user turns were answered');
    assert.ok(line.turns.every((t) => t.usage.completion_tokens <= 16), JSON.stringify(line.turns.map((t) => t.usage)));
    assert.ok(line.turns.every((t) => (t.pred_assistant_text ?? '').trim().length > 0),
      JSON.stringify(line.turns.map((t) => [t.turn_status, t.error, (t.pred_assistant_text ?? '').slice(0, 80)])));
    const manifest = JSON.parse(files.get('run_manifest.json'));
    assert.ok(JSON.stringify(manifest).includes(FILE), 'the manifest names the file');
    assert.ok(String(manifest.notes).includes(sha256(MODEL)), 'and its SHA-256');
    const summary = JSON.parse(files.get('metrics_summary.json'));
    assert.equal(summary.judge_used, true, 'the file judged the turns');
    const judged = Object.entries(summary.metrics).filter(([k]) => /^m[345]_/.test(k));
    assert.ok(judged.length >= 3, Object.keys(summary.metrics).join());
    for (const [k, m] of judged) assert.notEqual(m.status, 'not_run', `${k}: ${JSON.stringify(m)}`);
    assert.deepEqual(requests.away(), [], 'nothing leaves the page\'s origin');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('a model file from a URL is downloaded once and read from this browser\'s storage on the next visit', { timeout: 900000 }, async () => {
  // Another loopback origin that allows CORS, as a model host would.
  let gets = 0;
  const host = http.createServer((req, res) => {
    if (req.url !== `/models/${FILE}`) { res.writeHead(404); res.end(); return; }
    gets += 1;
    res.writeHead(200, {
      'access-control-allow-origin': '*',
      'content-type': 'application/octet-stream',
      'content-length': fs.statSync(MODEL).size,
    });
    fs.createReadStream(MODEL).pipe(res);
  });
  await new Promise((r) => host.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${host.address().port}/models/${FILE}`;
  const dir = tmpDir('local-url');
  const one = path.join(dir, 'one.jsonl');
  fs.writeFileSync(one, fs.readFileSync(DEMO_DATASET, 'utf8').split('\n').filter((l) => l.trim()).slice(0, 1).join('\n') + '\n');
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    for (const visit of [1, 2]) {
      await page.goto(`${site.url}/?lang=en&max_tokens=8`);
      await page.selectOption('[data-testid=provider]', 'local');
      await page.fill('[data-testid=local-model-url]', url);
      await page.click('[data-testid=local-model-url-load]');
      await page.waitForSelector('[data-testid=local-model-status]:is([data-state=loaded], [data-state=failed])', { timeout: 300000 });
      const status = page.locator('[data-testid=local-model-status]');
      assert.equal(await status.getAttribute('data-state'), 'loaded', await status.textContent());
      assert.equal(await status.getAttribute('data-from-cache'), String(visit === 2), `visit ${visit}`);
      assert.equal(gets, 1, `visit ${visit}: the file was downloaded once`);
    }
    await page.setInputFiles('[data-testid=dataset-file]', one);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 300000);
    const report = JSON.parse((await download(page, 'download-report')).text);
    const described = find(report, 'local_model');
    assert.equal(described.sha256, sha256(MODEL), 'the stored copy is the very file');
    assert.equal(described.source_url, url);
    assert.equal(described.from_cache, true);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
    host.close();
  }
});
