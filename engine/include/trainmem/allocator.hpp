// Reserved memory from PyTorch's CUDA caching allocator rules (c10/cuda/CUDACachingAllocator.cpp,
// PyTorch 2.x): what peak_reserved holds beyond peak_allocated. Bytes. docs/memory-model.md,
// "Reserved memory".
//
// The rules used:
//  - every request is rounded up to 512 B (kMinBlockSize); requests up to 1 MiB (kSmallSize) come
//    from 2 MiB small-pool segments, requests up to 10 MiB (kMinLargeAlloc) from 20 MiB segments
//    (kLargeBuffer), larger ones get a segment of their own rounded up to 2 MiB (kRoundLarge);
//  - a free block is split for a smaller request only when the rest exceeds 1 MiB (large pool);
//    otherwise the whole block is handed out and the rest is lost to the request (rounding);
//  - freed blocks stay cached (reserved) and serve later requests best-fit, only when they fit;
//    a request no cached block fits gets a new segment, so the reserve grows.
// Growths priced: the gradients autograd allocates tensor by tensor during the first backward (when
// the blocks freed so far, the loss's and the later layers' activations, are too small for them), the
// optimizer step's temporaries after backward freed every activation, and a batch longer than the
// ones before it (batches that vary in length: longer_batch_growth).
#pragma once

#include <utility>
#include <vector>

namespace trainmem {

// Tensor sizes (bytes) with how many of each.
struct BlockRun {
  double bytes = 0;
  double count = 1;
};

// Bytes lost to rounding by live tensors: a tensor over 10 MiB occupies a segment rounded up to
// 2 MiB, and a rest of 1 MiB or less is not split off.
double rounding_overhead(const std::vector<BlockRun>& live);

// Cached free blocks: (size in bytes, how many), sorted by size; a flat vector, as a step has a few
// dozen distinct tensor sizes.
using BlockPool = std::vector<std::pair<double, double>>;

// Adds `count` free blocks of `bytes` (as rounded by the allocator) to the pool.
void add_blocks(BlockPool& pool, double bytes, double count);

// Bytes of new segments the large requests need, served in order best-fit from the pool's free
// blocks (each split when the rest exceeds 1 MiB); requests of 1 MiB or less come from the small
// pool. The pool is updated: blocks used are removed, split rests and what new segments leave over
// are added.
// `new_segments`, when given, receives the segments cudaMalloc'd.
double unserved_bytes(BlockPool& pool, const std::vector<BlockRun>& requests, BlockPool* new_segments = nullptr);

// What a step's length-proportional tensors (`requests`, in the step's order) add to the reserve when
// they come a little longer than an earlier batch's, whose blocks are cached: each tensor over
// 10 MiB had a segment of its own, rounded up to 2 MiB, so the earlier batch's block of a kind is
// taken one 2 MiB step short of this request (a batch shorter by at least the rounding); every
// request is then served best-fit from a larger kind's cached block where one fits (split), else
// from a new segment. Requests of 10 MiB or less share 20 MiB segments and are left out. PyTorch
// docs/source/notes/cuda.rst @68e217b9, "expandable_segments": a batch of size N + 1 after batches of
// size N "will have to make new allocations that are slightly larger". Bytes.
struct LongerBatch {
  // The segments reserved this way less those a batch of one length reserves.
  double growth = 0;
  // Of the earlier batch's blocks, those no request split: a cudaMalloc that fails makes the
  // allocator free every unsplit cached block and retry (CUDACachingAllocator.cpp,
  // release_cached_blocks), so they are reserved while memory is ample but cannot run it out.
  double releasable = 0;
};
// `after_step` receives what is cached once the step has freed its tensors (the earlier batch's
// blocks and the new segments, whole again, and the small requests' blocks), for the requests
// that follow.
LongerBatch longer_batch_growth(const std::vector<BlockRun>& requests, BlockPool& after_step);

}  // namespace trainmem
