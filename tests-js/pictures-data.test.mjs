// The Pictures views' data (web/src/pictures-data.js) from hand-made outputs of the documented shape
// (docs/api.md: per_gpu.timeline, per_gpu.peak_breakdown, pipeline_stages). The e2e spec
// (e2e/pictures.spec.js) compares the drawn views with the CLI's output for real documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as Pictures from '../web/src/pictures-data.js';

const MiB = 2 ** 20;
// Two layers on one stage: 100 MiB loaded; each forward keeps 10 MiB (layer 2: 30 MiB); the loss
// adds 50 MiB of logits; the backward frees them; the optimizer step adds 20 MiB of states.
const TIMELINE = [
  { phase: 'load', allocated: 100 * MiB, reserved: 128 * MiB },
  { phase: 'forward', layer: 1, allocated: 110 * MiB, reserved: 128 * MiB },
  { phase: 'forward', layer: 2, allocated: 140 * MiB, reserved: 160 * MiB },
  { phase: 'loss_forward', allocated: 190 * MiB, reserved: 224 * MiB },
  { phase: 'loss_backward', allocated: 170 * MiB, reserved: 224 * MiB },
  { phase: 'backward', layer: 2, allocated: 150 * MiB, reserved: 224 * MiB },
  { phase: 'backward', layer: 1, allocated: 130 * MiB, reserved: 224 * MiB },
  { phase: 'optimizer_step', allocated: 140 * MiB, reserved: 224 * MiB },
];
const oneStage = {
  gpu_capacity_bytes: 1000 * MiB,
  per_gpu: {
    peak: 300 * MiB,
    timeline: TIMELINE,
    peak_breakdown: [
      { component: 'parameters', bytes: 100 * MiB }, { component: 'gradients', bytes: 0 },
      { component: 'optimizer_states', bytes: 20 * MiB }, { component: 'activations', bytes: 70 * MiB },
      { component: 'temporary_buffers', bytes: 0 }, { component: 'allocator', bytes: 34 * MiB },
      { component: 'cuda_context', bytes: 76 * MiB },
    ],
  },
  pipeline_stages: [{ stage: 0, layers: 2, parameters: 100 * MiB, gradients: 0, optimizer_states: 20 * MiB, activations: 70 * MiB,
    peak_allocated: 190 * MiB, peak: 300 * MiB }],
};

test('the timeline: a label per point in step order, allocated and reserved in bytes, the capacity line', () => {
  const line = Pictures.timeline(oneStage);
  assert.deepEqual(line.labels, ['load', 'forward L1', 'forward L2', 'loss (forward)', 'loss (backward)', 'backward L2', 'backward L1', 'optimizer step']);
  assert.deepEqual(line.allocated, TIMELINE.map((p) => p.allocated));
  assert.deepEqual(line.reserved, TIMELINE.map((p) => p.reserved));
  assert.equal(line.capacity, 1000 * MiB);
  assert.equal(Pictures.timeline({ ...oneStage, gpu_capacity_bytes: null }).capacity, null);
});

test('no timeline without an architecture (absent or null), nor from a malformed point', () => {
  assert.equal(Pictures.timeline({ per_gpu: { timeline: null } }), null);
  assert.equal(Pictures.timeline({ per_gpu: {} }), null);
  assert.equal(Pictures.timeline({ per_gpu: { timeline: [{ phase: 'load', allocated: 'x', reserved: 0 }] } }), null);
  assert.equal(Pictures.stageBars({ per_gpu: {}, pipeline_stages: [{ stage: 0 }] }), null);
});

test('one stage: each layer\'s forward point split into what layer 1\'s point held and what the layers since added', () => {
  const bars = Pictures.stageBars(oneStage);
  assert.equal(bars.kind, 'layers');
  assert.deepEqual(bars.labels, ['L1', 'L2']);
  assert.deepEqual(bars.keys, ['layer_base', 'layer_growth']);
  // forward L1 holds 110 MiB; forward L2 holds 140 MiB, 30 MiB more
  assert.deepEqual(bars.values.layer_base, [110 * MiB, 110 * MiB]);
  assert.deepEqual(bars.values.layer_growth, [0, 30 * MiB]);
  assert.equal(bars.marker, null);
});

test('pipeline stages: one stacked bar per stage with its peak as the mark', () => {
  const out = {
    ...oneStage,
    pipeline_stages: [
      { stage: 0, layers: 16, parameters: 5 * MiB, gradients: 6 * MiB, optimizer_states: 7 * MiB, activations: 8 * MiB, peak_allocated: 30 * MiB, peak: 40 * MiB },
      { stage: 1, layers: 16, parameters: 1 * MiB, gradients: 2 * MiB, optimizer_states: 3 * MiB, activations: 4 * MiB, peak_allocated: 12 * MiB, peak: 20 * MiB },
    ],
  };
  const bars = Pictures.stageBars(out);
  assert.equal(bars.kind, 'stages');
  assert.deepEqual(bars.labels, ['stage 0 (16 layers)', 'stage 1 (16 layers)']);
  // One layer a stage (Llama-3.2-1B's 16 layers on 16 stages) is said in the singular.
  const single = Pictures.stageBars({ ...out, pipeline_stages: out.pipeline_stages.map((st) => ({ ...st, layers: 1 })) });
  assert.deepEqual(single.labels, ['stage 0 (1 layer)', 'stage 1 (1 layer)']);
  assert.deepEqual(bars.keys, ['parameters', 'gradients', 'optimizer_states', 'activations']);
  assert.deepEqual(bars.values.parameters, [5 * MiB, 1 * MiB]);
  assert.deepEqual(bars.values.activations, [8 * MiB, 4 * MiB]);
  assert.deepEqual(bars.marker, [40 * MiB, 20 * MiB]);
  // A parameter count alone: the engine gives no stage peak, so no mark is drawn (not one at 0).
  const counted = { ...out, pipeline_stages: out.pipeline_stages.map((st) => ({ ...st, layers: null, activations: null, peak_allocated: null, peak: null })) };
  assert.equal(Pictures.stageBars(counted).marker, null);
  assert.deepEqual(Pictures.stageBars(counted).labels, ['stage 0', 'stage 1']);
});

test('the treemap: the peak\'s components largest first, zero-byte ones left out, summing to the peak', () => {
  const cells = Pictures.peakCells(oneStage);
  assert.deepEqual(cells.map((c) => c.component), ['parameters', 'cuda_context', 'activations', 'allocator', 'optimizer_states']);
  // 100 + 76 + 70 + 34 + 20 = 300 MiB = per_gpu.peak
  assert.equal(cells.reduce((s, c) => s + c.bytes, 0), 300 * MiB);
  assert.equal(cells[0].label, 'Parameters');
  assert.equal(Pictures.peakCells({ per_gpu: { peak_breakdown: null } }), null);
});
