#!/usr/bin/env bash
# The other route of issue 20, measured: one Wasm module with each mode's root
# behind a wasm-split point (wasm_split_helpers 0.2 / wasm_split_cli_support 0.2),
# against the page's separate bundle per mode (bench/bundle_size.sh). Builds a
# throwaway copy of this checkout in a temporary directory (nothing here is
# changed) with one more bin whose five roots are split points, links it with
# --emit-relocs, splits it (wasm-split-cli, installed into the temporary
# directory from the registry), runs wasm-bindgen on the main module and
# wasm-opt -Oz on every module, and prints per mode what a first visit
# downloads (main module and its js, the split loader, the mode's split and
# every shared chunk it needs) and, after the RAG check, what opening each other
# mode adds. Sizes only: the split page is not run in a browser here.
# Takes a few minutes (a full build for wasm32 in the page profile with other link flags).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
git -C "$ROOT" archive HEAD | tar -x -C "$WORK" && mkdir -p "$WORK/src/bin"
cd "$WORK"
cargo install --quiet --locked wasm_split_cli_support@0.2.4 --features build-binary --root "$WORK/tools" >&2
python3 - <<'PY'
s = open('Cargo.toml').read()
s = s.replace('[[bin]]\nname = "evalpage-task"', '[[bin]]\nname = "evalpage-split"\npath = "src/bin/split.rs"\n\n[[bin]]\nname = "evalpage-task"', 1)
s = s.replace('gloo-events = "0.2"\n', 'gloo-events = "0.2"\nwasm_split_helpers = "0.2.3"\n', 1)
open('Cargo.toml', 'w').write(s)
roots = [('rag', 'RagRoot', 'app', 'Rag'), ('task', 'TaskRoot', 'app', 'Task'),
         ('retrieval', 'RetrievalRoot', 'app', 'Retrieval'), ('dialog', 'DialogRoot', 'app', 'Dialog'),
         ('view', 'ViewerPage', 'view_page', 'View')]
mod = 'pub mod split {\n    use wasm_split_helpers::wasm_split;\n'
for name, root, module, mode in roots:
    mod += f'    #[wasm_split({name})]\n    fn mount_{name}() {{ crate::start::<crate::{module}::{root}>(crate::state::Mode::{mode}) }}\n'
mod += '    pub async fn mount(mode: crate::state::Mode) {\n        match mode {\n'
for name, _, _, mode in roots:
    mod += f'            crate::state::Mode::{mode} => mount_{name}().await,\n'
mod += '        }\n    }\n}\n'
open('src/lib.rs', 'a').write(mod)
open('src/bin/split.rs', 'w').write('fn main() {\n    let mode = evalpage_web::effects::modes::current();\n'
                                    '    wasm_bindgen_futures::spawn_local(evalpage_web::split::mount(mode));\n}\n')
PY
RUSTFLAGS="-C link-args=--emit-relocs" cargo build --quiet --profile page --target wasm32-unknown-unknown --bin evalpage-split >&2
"$WORK/tools/bin/wasm-split-cli" --target web --out-name evalpage-split \
  target/wasm32-unknown-unknown/page/evalpage-split.wasm "$WORK/split" >&2
mkdir -p "$WORK/out"
wasm-bindgen --target web --no-typescript --out-dir "$WORK/out" --out-name evalpage-split "$WORK/split/evalpage-split.wasm"
wasm-opt -Oz --quiet -o "$WORK/out/main.wasm" "$WORK/out/evalpage-split_bg.wasm" 2>/dev/null
for f in "$WORK"/split/chunk_*.wasm "$WORK"/split/split_*.wasm; do
  wasm-opt -Oz --enable-reference-types --enable-bulk-memory -o "$WORK/out/$(basename "$f")" "$f" 2>/dev/null
done
cp "$WORK/split/__wasm_split.js" "$WORK/out/"
python3 - "$WORK/out" <<'PY'
import gzip, os, re, sys
out = sys.argv[1]
js = open(os.path.join(out, '__wasm_split.js')).read()
users = {f'chunk_{m[2]}.wasm': [u.strip() for u in m[1].split(',')]
         for m in re.finditer(r'/\* ([a-z, ]+) \*/\nconst __chunk_(\d+)', js)}
def size(f):
    b = open(os.path.join(out, f), 'rb').read()
    return len(b), len(gzip.compress(b, 9))
base = [size(f) for f in ('main.wasm', 'evalpage-split.js', '__wasm_split.js')]
def files(mode):
    return {f'split_{mode}.wasm'} | {c for c, u in users.items() if mode in u}
print(f'wasm-split: {len(users)} shared chunks; main module {base[0][1] / 1024:.1f} KB gzip, its js {base[1][1] / 1024:.1f} KB, split loader {base[2][1] / 1024:.1f} KB')
print('first load of each mode (main module and js, loader, the split, its chunks; no html/css/init.js):')
for mode in ('rag', 'task', 'retrieval', 'dialog', 'view'):
    fs = files(mode)
    raw = sum(b[0] for b in base) + sum(size(f)[0] for f in fs)
    gz = sum(b[1] for b in base) + sum(size(f)[1] for f in fs)
    print(f'  {mode:10s} {raw / 1024:8.1f} KB raw {gz / 1024:8.1f} KB gzip  ({len(fs)} .wasm files besides main)')
print('after the RAG check, opening a mode adds (gzip):')
for mode in ('task', 'retrieval', 'dialog', 'view'):
    print(f'  {mode:10s} {sum(size(f)[1] for f in files(mode) - files("rag")) / 1024:8.1f} KB')
PY
