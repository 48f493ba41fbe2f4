// The model file's thread count: never more engine threads than the machine
// has cores, although a browser reports logical CPUs (twice the cores with
// hyper-threading, where one thread too many collapses decoding a
// hundredfold). The rule is www/local_model.js's threadsFor; these tests drive
// it with the logical CPU counts a browser reports (1, 2, 4, 8, 16, 32, set
// through the DevTools protocol's Emulation.setHardwareConcurrencyOverride) and
// check what the engine (@wllama/wllama's loadModel) receives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { startSite, launch, newPage } from './helpers.mjs';
import { threadsFor, autoThreads } from '../../www/local_model.js';

const MODEL = process.env.EVALPAGE_GGUF
  || path.join(os.homedir(), '.cache/evalpage/models/gemma-3-270m-q4_k_m.gguf');

// What the rule gives for each count a browser may report: all of them up to
// 2, half of them above (a hyper-threaded machine's cores).
const AUTO = { 1: 1, 2: 2, 4: 2, 8: 4, 16: 8, 32: 16 };

test('the rule: auto never asks for more threads than cores, a set number is taken up to the logical CPUs, one thread without isolation', () => {
  for (const [logical, want] of Object.entries(AUTO)) {
    assert.equal(autoThreads(Number(logical)), want, `auto on ${logical} logical CPUs`);
    assert.equal(threadsFor(Number(logical), true, 0), want);
    assert.equal(threadsFor(Number(logical), false, 0), 1, 'no SharedArrayBuffer without isolation: one thread');
  }
  assert.equal(threadsFor(8, true, 3), 3, 'a number set by the user is taken');
  assert.equal(threadsFor(8, true, 64), 8, 'up to the logical CPUs');
  assert.equal(threadsFor(0, true, 0), 1, 'a browser that reports nothing gets one thread');
  assert.equal(threadsFor(undefined, true, 0), 1);
});

// Serves the real engine with a spy on its loadModel that records the
// threads it is handed; with `stop` set, the load ends there (the engine on
// 8 or 16 threads of this 2-core machine would crawl: the very cliff).
async function spyOnEngine(page) {
  await page.route('**/vendor/wllama/wllama.js', async (route) => {
    const res = await route.fetch();
    const body = (await res.text()) + `
;(() => {
  const load = Wllama.prototype.loadModel;
  Wllama.prototype.loadModel = function (blobs, params) {
    (globalThis.__engineThreads ??= []).push(params.n_threads);
    if (globalThis.__stopLoad) return Promise.reject(new Error('stopped by the test once the engine had its threads'));
    return load.call(this, blobs, params);
  };
})();`;
    await route.fulfill({ response: res, body });
  });
}

async function pageWithCpus(browser, errors, logical) {
  const page = await newPage(browser, errors);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: logical });
  await spyOnEngine(page);
  return page;
}

test('the engine receives what the rule says for 1, 2, 4, 8, 16 and 32 logical CPUs; a number picked beside the file is used and remembered', { timeout: 600000 }, async () => {
  assert.ok(fs.existsSync(MODEL), `the test model ${MODEL} is missing: scripts/test.sh assembles it`);
  const site = await startSite('/', { isolated: true });
  const browser = await launch();
  const errors = [];
  try {
    for (const [logical, want] of Object.entries(AUTO).map(([l, w]) => [Number(l), w])) {
      const page = await pageWithCpus(browser, errors, logical);
      const runs = want <= 2;
      if (!runs) await page.addInitScript(() => { globalThis.__stopLoad = true; });
      await page.goto(`${site.url}/?lang=en`);
      assert.equal(await page.evaluate(() => navigator.hardwareConcurrency), logical);
      await page.selectOption('[data-testid=provider]', 'local');
      assert.equal(await page.inputValue('[data-testid=local-model-threads]'), '0', 'auto by default');
      await page.setInputFiles('[data-testid=local-model-file]', MODEL);
      await page.waitForSelector('[data-testid=local-model-status]:is([data-state=loaded], [data-state=failed])', { timeout: 300000 });
      const threads = await page.evaluate(() => globalThis.__engineThreads);
      // With an adapter the engine is tried on the GPU first, then the CPU: the same threads each time.
      assert.ok(threads.length >= 1 && threads.every((n) => n === want), `${logical} logical CPUs: the engine got ${threads}, the rule says ${want}`);
      if (runs) {
        const shown = await page.textContent('[data-testid=local-model-status]');
        assert.match(shown, new RegExp(`· ${want} thread\\(s\\)`), shown);
      } else {
        assert.match(await page.textContent('[data-testid=local-model-status]'), /stopped by the test/);
      }
      await page.close();
    }
    // A number picked beside the file: the file loads again with it, and the
    // next visit keeps it.
    const page = await pageWithCpus(browser, errors, 4);
    await page.goto(`${site.url}/?lang=en`);
    await page.selectOption('[data-testid=provider]', 'local');
    await page.setInputFiles('[data-testid=local-model-file]', MODEL);
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    await page.selectOption('[data-testid=local-model-threads]', '1');
    await page.waitForFunction(() => (globalThis.__engineThreads || []).length >= 2, null, { timeout: 60000 });
    await page.waitForSelector('[data-testid=local-model-status][data-state=loaded]', { timeout: 300000 });
    assert.equal((await page.evaluate(() => globalThis.__engineThreads)).at(-1), 1);
    assert.match(await page.textContent('[data-testid=local-model-status]'), /· 1 thread\(s\)/);
    await page.reload();
    await page.selectOption('[data-testid=provider]', 'local');
    assert.equal(await page.inputValue('[data-testid=local-model-threads]'), '1', 'remembered in this browser');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});
