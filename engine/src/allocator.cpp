#include "trainmem/allocator.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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

void add_blocks(BlockPool& pool, double bytes, double count) {
  if (count > 0 && bytes > 0) pool[round_request(bytes)] += count;
}

double unserved_bytes(BlockPool& pool, const std::vector<BlockRun>& requests) {
  auto take = [&](BlockPool::iterator it, double n) {
    if ((it->second -= n) <= 0) pool.erase(it);
  };
  double grown = 0;
  for (const auto& r : requests) {
    const double request = round_request(r.bytes);
    double left = r.count;
    while (left > 0) {
      auto it = pool.lower_bound(request);
      if (it == pool.end()) {
        // No cached block fits this request or the ones like it: a new segment each; what a
        // request leaves of its segment stays cached.
        const double segment = segment_for(request);
        grown += segment * left;
        if (segment - request > kSmallSize) pool[segment - request] += left;
        break;
      }
      const double block = it->first;
      const double n = std::min(left, it->second);
      take(it, n);
      if (block - request > kSmallSize) pool[block - request] += n;
      left -= n;
    }
  }
  return grown;
}

}  // namespace trainmem
