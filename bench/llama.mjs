// What the benches that set the page's engine against llama.cpp's native
// server share: running a project script for its last line, and starting
// llama-server (bench/llama_server.sh builds it) on a free loopback port.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../tests/e2e/helpers.mjs';

/** Runs a script of the project and returns the last line it printed. */
export const sh = (script) => execFileSync('bash', [path.join(ROOT, script)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop();

/** Starts `server` with `args` on a loopback port; resolves, once it is
 * healthy, to its base URL and a `stop` function. */
export async function startLlamaServer(server, args) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc = spawn(server, [...args, '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) break;
    if (i > 600) { proc.kill(); throw new Error('llama-server did not start'); }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => proc.kill() };
}
