// ONNX Runtime (CPU execution provider) on an exported encoder: p50 latency of one input shape,
// or the output for given ids (the accuracy check). Prints one JSON object on stdout.
//
//   node run.mjs --model M.onnx --batch 1 --seq 128 --threads 1 [--min-time 1] [--min-runs 10]
//   node run.mjs --model M.onnx --threads 1 --ids FILE    (FILE: {"ids": [[...], ...]})
//
// The model takes int64 `ids` [batch, seq] and returns float32 `hidden` [batch, seq, d].
// Session options: intraOpNumThreads = --threads, interOpNumThreads 1, all graph optimisations,
// sequential execution. Timed runs reuse one input, as the other engines in the comparison do.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import ort from 'onnxruntime-node';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string' },
    batch: { type: 'string', default: '1' },
    seq: { type: 'string', default: '8' },
    threads: { type: 'string', default: '1' },
    'min-time': { type: 'string', default: '1' },
    'min-runs': { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    vocab: { type: 'string', default: '30522' },
    ids: { type: 'string' },
  },
});

function fail(message) {
  process.stderr.write(`run.mjs: ${message}\n`);
  process.exit(2);
}

function positive(name) {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 1) {
    fail(`--${name}: expected a positive integer, got '${args[name]}'`);
  }
  return value;
}

if (!args.model) fail('--model FILE is required');
const threads = positive('threads');
const executionProviders = ['cpu'];
let session;
try {
  session = await ort.InferenceSession.create(args.model, {
    executionProviders,
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
} catch (error) {
  fail(`${args.model}: ${error.message}`);
}
const about = { ort: ort.env.versions.common, execution_providers: executionProviders, threads };

function idsTensor(rows) {
  const batch = rows.length;
  const seq = rows[0].length;
  const data = new BigInt64Array(batch * seq);
  rows.forEach((row, b) => row.forEach((id, t) => { data[b * seq + t] = BigInt(id); }));
  return new ort.Tensor('int64', data, [batch, seq]);
}

// process.exit() would cut off output still queued for a pipe, so both modes end by returning.
async function hiddenFor(file) {
  const rows = JSON.parse(readFileSync(file, 'utf8')).ids;
  const { hidden } = await session.run({ ids: idsTensor(rows) });
  return { ...about, dims: hidden.dims, hidden: Array.from(hidden.data) };
}

async function timing() {
  const batch = positive('batch');
  const seq = positive('seq');
  const vocab = positive('vocab');
  const minRuns = positive('min-runs');
  const minSeconds = Number(args['min-time']);
  // Deterministic ids (a 32-bit LCG), away from the special tokens at the start of the vocabulary.
  let state = 12345;
  const rows = Array.from({ length: batch }, () => Array.from({ length: seq }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return 1000 + (state % Math.max(1, vocab - 2000));
  }));
  const feeds = { ids: idsTensor(rows) };
  for (let i = 0; i < positive('warmup'); ++i) await session.run(feeds);
  const times = [];
  const start = performance.now();
  while (times.length < minRuns || performance.now() - start < minSeconds * 1e3) {
    const t0 = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const p50 = times.length % 2 ? times[(times.length - 1) / 2]
    : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
  return { ...about, batch, seq, runs: times.length, p50_ms: p50, min_ms: times[0] };
}

const result = args.ids ? await hiddenFor(args.ids) : await timing();
process.stdout.write(JSON.stringify(result) + '\n');
