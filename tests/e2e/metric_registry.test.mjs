// End-to-end: the page's metric lists read the core's one metric registry.
// The retrieval and dialog modes list the metrics their runs compute (with
// what each needs); the task editor's hints list only the types a task can
// name, none of another kind's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, launch, newPage } from './helpers.mjs';

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

const names = (page, list, item) => page.locator(`[data-testid=${list}] [data-testid=${item}]`).allTextContents();

test('retrieval and dialog modes list their metrics from the registry', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&mode=retrieval`);
  await page.click('[data-testid=metrics-retrieval] summary');
  assert.deepEqual(await names(page, 'metrics-retrieval', 'metric-name'),
    ['hit_at_k', 'recall_at_k', 'mrr', 'ndcg_at_k']);
  assert.match(await page.locator('[data-testid=metrics-retrieval]').innerText(), /trec_eval success\.k/);
  assert.match(await page.locator('[data-testid=metrics-retrieval]').innerText(), /Needs: .*expected_sources/);

  await page.goto(`${site.url}/?lang=zh&mode=dialog`);
  await page.click('[data-testid=metrics-dialog] summary');
  assert.deepEqual(await names(page, 'metrics-dialog', 'metric-name'), [
    'm1_memory_recall', 'm2_constraint_contradiction', 'm3_risk_disclosure',
    'm3_risk_disclosure_judge', 'm4_compliance', 'm4_compliance_judge', 'm5_explainability',
  ]);
  assert.match(await page.locator('[data-testid=metrics-dialog]').innerText(), /命中的记忆键/);
});

test("the task editor's hints list only task metric types", async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&mode=task`);
  await page.click('[data-testid=metric-types] summary');
  const types = await names(page, 'metric-types', 'metric-type');
  assert.ok(types.includes('exact_match') && types.includes('llm_judge'), types.join(','));
  for (const other of ['hit_at_k', 'm1_memory_recall']) assert.ok(!types.includes(other), other);
});
