// pat-go's issuance vectors of token types 0x0001, 0x0002 and 0x0005
// (tests/vectors/pat-go/tokens/, each file as published, both the pat-go
// and the .rust variants), privacypass-ts's of 0xDA7A, pat's own of 0xDA7B
// (tests/vectors/pat/), ARC's, ACT's and the batches' (pat-go's and the
// privacypass crate's amortized and generic files) through the WebAssembly package built
// with the `hazmat` feature, under Node. The cases and their checks are in
// vector-cases.mjs, which the browser page (browser/vectors-page.js) runs too.
//
// Prints `FILE: N passed, M failed` per file and exits non-zero if any case
// failed, or a file had no cases, or not every case of a file was run, or
// a file's run checked another number of values (fields or tokens) than
// VECTOR_FILES says, or a case has a field the runner does not know.

import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { hazmatDir, importFrom, root } from './harness.mjs';
import { runFiles } from './vector-cases.mjs';

const pkg = await importFrom(hazmatDir);
const raw = await importFrom(hazmatDir, 'pat_wasm.js');
const dir = path.join(root, 'tests/vectors');

const load = async (file) => JSON.parse(await readFile(path.join(dir, file), 'utf8'));
const result = await runFiles(pkg, raw, load, (line) => console.log(line));
process.exitCode = result.ok ? 0 : 1;
