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

double unserved_bytes(BlockPool& pool, const std::vector<BlockRun>& requests) {
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

double longer_batch_growth(const std::vector<BlockRun>& requests) {
  BlockPool pool;
  std::vector<BlockRun> large;
  double one_length = 0, shorter = 0;
  for (const auto& r : requests) {
    const double request = round_request(r.bytes);
    if (request < kMinLargeAlloc || r.count <= 0) continue;
    const double segment = segment_for(request);
    add_rounded(pool, segment - kRoundLarge, r.count);
    large.push_back(r);
    one_length += segment * r.count;
    shorter += (segment - kRoundLarge) * r.count;
  }
  if (large.empty()) return 0;
  const double grown = unserved_bytes(pool, large);
  return std::max(0.0, shorter + grown - one_length);
}

}  // namespace trainmem
