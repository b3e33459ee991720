#include "trainmem/allocator.hpp"

#include <algorithm>
#include <cmath>


namespace trainmem {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMinBlockSize = 512;          // bytes, every request is a multiple of it
constexpr double kSmallSize = 1 * kMiB;        // largest small-pool request; smallest split rest
constexpr double kSmallBuffer = 2 * kMiB;      // small-pool segment
constexpr double kLargeBuffer = 20 * kMiB;     // segment for requests between 1 and 10 MiB
constexpr double kMinLargeAlloc = 10 * kMiB;   // larger requests get a segment of their own
constexpr double kRoundLarge = 2 * kMiB;       // ... rounded up to this

double round_up(double v, double to) { return std::ceil(v / to) * to; }
double round_request(double bytes) { return round_up(std::max(bytes, 1.0), kMinBlockSize); }

// Bytes of the segment cudaMalloc'd for a request no cached block fits.
double segment_for(double request) {
  if (request <= kSmallSize) return kSmallBuffer;
  if (request < kMinLargeAlloc) return kLargeBuffer;
  return round_up(request, kRoundLarge);
}
}  // namespace

double rounding_overhead(const std::vector<BlockRun>& live) {
  double lost = 0;
  for (const auto& b : live) {
    const double request = round_request(b.bytes);
    if (request < kMinLargeAlloc) continue;  // packed into shared segments
    const double rest = segment_for(request) - request;
    if (rest <= kSmallSize) lost += (rest + request - b.bytes) * b.count;
  }
  return lost;
}

namespace {
BlockPool::iterator first_at_least(BlockPool& pool, double bytes) {
  return std::lower_bound(pool.begin(), pool.end(), bytes, [](const std::pair<double, double>& b, double v) { return b.first < v; });
}

void add_rounded(BlockPool& pool, double bytes, double count) {
  auto it = first_at_least(pool, bytes);
  if (it != pool.end() && it->first == bytes) it->second += count;
  else pool.insert(it, {bytes, count});
}
}  // namespace

void add_blocks(BlockPool& pool, double bytes, double count) {
  if (count > 0 && bytes > 0) add_rounded(pool, round_request(bytes), count);
}

double unserved_bytes(BlockPool& pool, const std::vector<BlockRun>& requests, BlockPool* new_segments) {
  double grown = 0;
  for (const auto& r : requests) {
    const double request = round_request(r.bytes);
    if (request <= kSmallSize) continue;  // small-pool requests pack into 2 MiB segments: priced as rounding
    double left = r.count;
    while (left > 0) {
      auto it = first_at_least(pool, request);
      if (it == pool.end()) {
        // No cached block fits this request or the ones like it: a new segment each; what a
        // request leaves of its segment stays cached.
        const double segment = segment_for(request);
        grown += segment * left;
        if (new_segments) add_rounded(*new_segments, segment, left);
        if (segment - request > kSmallSize) add_rounded(pool, segment - request, left);
        break;
      }
      // Best fit takes the smallest block that fits and splits it; its rest is then the smallest
      // fit for the next request, so one block serves floor(block / request) requests in a row.
      const double block = it->first, blocks = it->second;
      const double per_block = std::floor(block / request);
      const double n = std::min(left, blocks * per_block);
      const double full = std::floor(n / per_block), partial = n - full * per_block;
      pool.erase(it);
      if (blocks - full - (partial > 0 ? 1 : 0) > 0) add_rounded(pool, block, blocks - full - (partial > 0 ? 1 : 0));
      const double rest = block - per_block * request;
      if (full > 0 && rest > kSmallSize) add_rounded(pool, rest, full);
      if (partial > 0 && block - partial * request > kSmallSize) add_rounded(pool, block - partial * request, 1);
      left -= n;
    }
  }
  return grown;
}

LongerBatch longer_batch_growth(const std::vector<BlockRun>& requests, BlockPool& after_step) {
  // Scratch space reused across estimates (the strategy search runs thousands).
  thread_local BlockPool pool, earlier;
  thread_local std::vector<BlockRun> large;
  pool.clear();
  earlier.clear();
  large.clear();
  after_step.clear();
  double one_length = 0;
  for (const auto& r : requests) {
    const double request = round_request(r.bytes);
    if (r.count <= 0) continue;
    if (request < kMinLargeAlloc) {
      add_rounded(after_step, request, r.count);
      continue;
    }
    const double segment = segment_for(request);
    add_rounded(earlier, segment - kRoundLarge, r.count);
    large.push_back(r);
    one_length += segment * r.count;
  }
  LongerBatch out;
  if (large.empty()) return out;
  pool = earlier;
  const double grown = unserved_bytes(pool, large, &after_step);
  double shorter = 0;
  for (const auto& block : earlier) {
    const double bytes = block.first, count = block.second;
    shorter += bytes * count;
    add_rounded(after_step, bytes, count);
    // Blocks of the earlier batch's sizes still whole in the pool (a rest of exactly such a size
    // would count too; sizes are 2 MiB multiples less one step, rests rarely are).
    const auto left = first_at_least(pool, bytes);
    if (left != pool.end() && left->first == bytes) out.releasable += bytes * std::min(count, left->second);
  }
  out.growth = std::max(0.0, shorter + grown - one_length);
  out.releasable = std::min(out.releasable, out.growth);
  return out;
}

}  // namespace trainmem
