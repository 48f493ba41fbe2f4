// Benchmarks measure the release CLI (`cargo build --release -p evalpage-cli`),
// not the debug one the end-to-end tests run: imported first, before
// tests/e2e/helpers.mjs reads EVALPAGE_BIN.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.env.EVALPAGE_BIN ??= path.join(root, 'target/release/evalpage');
