// Parity and speed of a model file run in the page against llama.cpp's own
// server, on this machine, with the same GGUF file at temperature 0:
//   node bench/local_parity.mjs            (after scripts/test.sh or a trunk build)
// - the page: the RAG check on the demo dataset (10 questions) with the model
//   file on this device, once on one thread (a plain page) and once on every
//   core (cross-origin isolated, as scripts/serve.sh serves it);
// - native: `evalpage run --endpoint` (the CLI's endpoint provider) against
//   llama-server built by bench/llama_server.sh, on one thread and on every
//   core, with the chat template the page applies to this file (it has none).
// Prints the share of identical answers, each side's accuracy, and prompt and
// decode tokens per second as each engine times itself (llama.cpp's
// `timings`, which both report). Env: MAX_TOKENS (64), EVALPAGE_GGUF.
import './release_bin.mjs';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEMPLATE_OF_ARCH } from '../www/local_model.js';
import { BIN, DEMO_DATASET, startSite, launch, newPage, waitStatus, download } from '../tests/e2e/helpers.mjs';
import { sh, startLlamaServer } from './llama.mjs';

const MAX_TOKENS = Number(process.env.MAX_TOKENS || 64);
const CORES = os.cpus().length;
const model = process.env.EVALPAGE_GGUF || sh('scripts/test_model.sh');
const server = sh('bench/llama_server.sh');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evalpage-parity-'));
const template = path.join(dir, 'gemma.jinja');
fs.writeFileSync(template, TEMPLATE_OF_ARCH.gemma3[1]);

/** What a RAG report says: answers by case, accuracy, the engine's speeds. */
function read(report) {
  const answers = new Map(report.scores.filter((s) => s.metric === 'accuracy').map((s) => [s.sample_id, s.detail?.answer ?? '']));
  const latency = report.report.experiment?.run?.latency?.[0] ?? {};
  return {
    answers,
    accuracy: report.metrics.accuracy,
    failed: report.metrics.failed_calls,
    prompt: latency.prompt_tokens_per_s,
    decode: latency.decode_tokens_per_s,
  };
}

async function native(threads) {
  const srv = await startLlamaServer(server, ['-m', model, '-c', '4096', '-np', '1',
    '-t', String(threads), '-tb', String(threads), '--jinja', '--chat-template-file', template]);
  try {
    const out = path.join(dir, `native-${threads}`);
    execFileSync(BIN, ['run', '--dataset', DEMO_DATASET, '--endpoint', `${srv.url}/v1`, '--model', path.basename(model),
      '--temperature', '0', '--max-tokens', String(MAX_TOKENS), '--concurrency', '1', '--timeout-s', '600', '--out', out], { stdio: 'ignore' });
    return read(JSON.parse(fs.readFileSync(path.join(out, 'eval_rag_report.json'), 'utf8')));
  } finally {
    srv.stop();
  }
}

async function inPage(isolated) {
  const site = await startSite('/', { isolated });
  const browser = await launch();
  try {
    const page = await newPage(browser, []);
    await page.goto(`${site.url}/?lang=en&temperature=0&max_tokens=${MAX_TOKENS}&timeout=600`);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', model);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 600000 });
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 3600000);
    const report = JSON.parse((await download(page, 'download-report')).text);
    const threads = JSON.stringify(report).match(/"threads":\s*(\d+)/)?.[1];
    return { ...read(report), threads: Number(threads) };
  } finally {
    await browser.close();
    site.stop();
  }
}

const same = (a, b) => {
  const ids = [...a.answers.keys()];
  return ids.filter((id) => a.answers.get(id) === b.answers.get(id)).length / ids.length;
};
const f = (x) => (typeof x === 'number' ? x.toFixed(1) : '-');

const page1 = await inPage(false);
const pageN = await inPage(true);
const native1 = await native(1);
const nativeN = await native(CORES);
console.log(`model: ${path.basename(model)} · ${MAX_TOKENS} max tokens · temperature 0 · demo dataset (${page1.answers.size} questions) · ${CORES} cores`);
console.log('| engine | threads | accuracy | failed calls | prompt tokens/s | decode tokens/s |');
console.log('|---|---|---|---|---|---|');
for (const [name, r, t] of [['page (wllama)', page1, page1.threads], ['page (wllama), isolated', pageN, pageN.threads],
  ['llama-server (native)', native1, 1], ['llama-server (native)', nativeN, CORES]]) {
  console.log(`| ${name} | ${t} | ${f(r.accuracy * 100)}% | ${r.failed} | ${f(r.prompt)} | ${f(r.decode)} |`);
}
console.log(`identical answers, page vs native (1 thread): ${f(same(page1, native1) * 100)}%`);
console.log(`identical answers, page vs native (${CORES} threads): ${f(same(pageN, nativeN) * 100)}%`);
console.log(`decode speed, page / native: ${f((page1.decode / native1.decode) * 100)}% on 1 thread, ${f((pageN.decode / nativeN.decode) * 100)}% on ${CORES}`);
console.log(`prompt speed, page / native: ${f((page1.prompt / native1.prompt) * 100)}% on 1 thread, ${f((pageN.prompt / nativeN.prompt) * 100)}% on ${CORES}`);
