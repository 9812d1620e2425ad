// Runs Mermaid's own parser (mermaid.parse) over diagrams, for
// internal/report/mermaid_test.go:
//
//   node tools/mermaid/parse.mjs DIR < diagrams.json > results.json
//
// DIR is where scripts/mermaid.sh ran `npm ci` for this package.json (it has
// node_modules). diagrams.json is [{"name": ..., "source": ...}]; the result
// is [{"name": ..., "error": "..."}], error "" when Mermaid accepts the
// diagram. Mermaid in Node needs a DOM for DOMPurify, which sanitizes labels
// while parsing: jsdom provides window and document before mermaid loads.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node parse.mjs DIR < diagrams.json');
  process.exit(2);
}
const require = createRequire(join(dir, 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);

// Mermaid logs through console: keep stdout for the results.
console.log = console.info = console.debug = console.error;

const { JSDOM } = await load('jsdom');
const { window } = new JSDOM('');
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await load('mermaid');
mermaid.initialize({ startOnLoad: false });

const diagrams = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const d of diagrams) {
  let error = '';
  try {
    const ok = await mermaid.parse(d.source);
    if (!ok || !String(ok.diagramType).startsWith('flowchart')) {
      error = `not a flowchart: ${JSON.stringify(ok)}`;
    }
  } catch (e) {
    error = String(e && e.message ? e.message : e);
  }
  results.push({ name: d.name, error });
}
process.stdout.write(JSON.stringify(results) + '\n');
