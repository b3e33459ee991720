// Image tokens per family, following each image processor and modeling file (transformers
// v4.56.0, src/transformers/models/...):
//  - fixed: the processor resizes every image to vision_config.image_size (CLIPImageProcessor,
//    SiglipImageProcessor, Gemma3ImageProcessor without pan-and-scan); the encoder sees
//    (image/patch)^2 patches (+ CLIP's class token); the LM sees mm_tokens_per_image (Gemma 3's
//    average pool), image_seq_length (LLaVA, class token dropped by the "default" feature
//    strategy) or num_image_tokens (PaliGemma).
//  - qwen2_vl: qwen2_vl/image_processing_qwen2_vl.py smart_resize (multiples of patch x merge,
//    pixel bounds), one encoder sequence of (h/14)(w/14) patches per image, PatchMerger 2x2 -> LM.
//  - llava_next: llava_next/processing_llava_next.py _get_number_of_features and
//    image_processing_llava_next.py select_best_resolution (anyres), base image + grid tiles.
//  - idefics3: idefics3/image_processing_idefics3.py (resize to longest_edge, then to multiples of
//    the tile size, split, a global image when split), image_seq_len per tile after pixel shuffle.
//  - internvl: got_ocr2/image_processing_got_ocr2.py crop_to_patches / get_optimal_tiled_canvas
//    (max_patches 12, a thumbnail when tiled), 256 tokens per tile after the 0.5 pixel shuffle.
//  - mllama: mllama/image_processing_mllama.py pads every image to max_image_tiles tiles, and
//    modeling_mllama.py pads each tile's 1601 positions to a multiple of 8; the LM sees one
//    <|image|> token and cross-attends to all tiles' states.
#include "trainmem/image_tokens.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace trainmem {

namespace {

using Size = std::pair<std::int64_t, std::int64_t>;  // (height, width)

// Python's round(): halves go to the even neighbour.
std::int64_t round_half_even(double x) {
  const double r = std::nearbyint(x);  // default rounding mode: to nearest, ties to even
  return static_cast<std::int64_t>(r);
}

ImageTokens fixed(const VisionTower& v) {
  ImageTokens t;
  t.height = v.image_height;
  t.width = v.image_width;
  const std::int64_t patches = (v.image_height / v.patch_size) * (v.image_width / v.patch_size);
  t.encoder_sequences = 1;
  t.encoder_positions = patches + (v.class_token ? 1 : 0);
  t.lm_tokens = v.lm_tokens_per_image > 0 ? v.lm_tokens_per_image : patches;
  t.projector_rows = t.lm_tokens;
  return t;
}

// Qwen2-VL smart_resize: sides to multiples of factor = patch x merge, the area within
// [min_pixels, max_pixels].
ImageTokens qwen2_vl(const VisionTower& v, std::int64_t h, std::int64_t w) {
  const std::int64_t factor = v.patch_size * v.merge_size;
  const double hd = static_cast<double>(h), wd = static_cast<double>(w), f = static_cast<double>(factor);
  std::int64_t hb = std::max(factor, round_half_even(hd / f) * factor);
  std::int64_t wb = std::max(factor, round_half_even(wd / f) * factor);
  if (static_cast<double>(hb) * static_cast<double>(wb) > static_cast<double>(v.max_pixels)) {
    const double beta = std::sqrt(hd * wd / static_cast<double>(v.max_pixels));
    hb = std::max(factor, static_cast<std::int64_t>(std::floor(hd / beta / f)) * factor);
    wb = std::max(factor, static_cast<std::int64_t>(std::floor(wd / beta / f)) * factor);
  } else if (static_cast<double>(hb) * static_cast<double>(wb) < static_cast<double>(v.min_pixels)) {
    const double beta = std::sqrt(static_cast<double>(v.min_pixels) / (hd * wd));
    hb = static_cast<std::int64_t>(std::ceil(hd * beta / f)) * factor;
    wb = static_cast<std::int64_t>(std::ceil(wd * beta / f)) * factor;
  }
  ImageTokens t;
  t.height = hb;
  t.width = wb;
  const std::int64_t patches = (hb / v.patch_size) * (wb / v.patch_size);
  t.encoder_sequences = 1;
  t.encoder_positions = patches;
  t.lm_tokens = patches / (v.merge_size * v.merge_size);
  t.projector_rows = t.lm_tokens;
  return t;
}

// LLaVA-NeXT select_best_resolution: the pinpoint keeping the most of the image, then the least
// padding.
Size best_resolution(const std::vector<Size>& pinpoints, std::int64_t h, std::int64_t w) {
  Size best = pinpoints.front();
  std::int64_t best_effective = -1, least_wasted = std::numeric_limits<std::int64_t>::max();
  for (const auto& [ph, pw] : pinpoints) {
    const double scale = std::min(static_cast<double>(pw) / static_cast<double>(w), static_cast<double>(ph) / static_cast<double>(h));
    const auto dw = static_cast<std::int64_t>(static_cast<double>(w) * scale);
    const auto dh = static_cast<std::int64_t>(static_cast<double>(h) * scale);
    const std::int64_t effective = std::min(dw * dh, w * h);
    const std::int64_t wasted = ph * pw - effective;
    if (effective > best_effective || (effective == best_effective && wasted < least_wasted)) {
      best_effective = effective;
      least_wasted = wasted;
      best = {ph, pw};
    }
  }
  return best;
}

ImageTokens llava_next(const VisionTower& v, std::int64_t h, std::int64_t w) {
  const auto [best_h, best_w] = best_resolution(v.grid_pinpoints, h, w);
  const std::int64_t tile = v.image_height;  // tiles are vision_config.image_size squares
  const std::int64_t scale_h = best_h / tile, scale_w = best_w / tile;
  const std::int64_t patches_h = tile / v.patch_size, patches_w = v.image_width / v.patch_size;
  // _get_unpadded_features: the tile grid's features, the padding added to keep the aspect ratio
  // cut away again, and one newline feature per row.
  std::int64_t current_h = patches_h * scale_h, current_w = patches_w * scale_w;
  const double original_aspect = static_cast<double>(w) / static_cast<double>(h);
  const double current_aspect = static_cast<double>(current_w) / static_cast<double>(current_h);
  if (original_aspect > current_aspect) {
    const auto new_h = static_cast<std::int64_t>(std::round(static_cast<double>(h) * (static_cast<double>(current_w) / static_cast<double>(w)) * 1e7) / 1e7);
    current_h -= 2 * ((current_h - new_h) / 2);
  } else {
    const auto new_w = static_cast<std::int64_t>(std::round(static_cast<double>(w) * (static_cast<double>(current_h) / static_cast<double>(h)) * 1e7) / 1e7);
    current_w -= 2 * ((current_w - new_w) / 2);
  }
  const std::int64_t base = patches_h * patches_w + (v.class_token ? 1 : 0) - (v.drop_class_token ? 1 : 0);
  ImageTokens t;
  t.height = best_h;
  t.width = best_w;
  t.encoder_sequences = 1 + scale_h * scale_w;
  t.encoder_positions = patches_h * patches_w + (v.class_token ? 1 : 0);
  t.lm_tokens = current_h * current_w + current_h + base;
  t.projector_rows = t.encoder_sequences * (t.encoder_positions - (v.drop_class_token ? 1 : 0));
  return t;
}

ImageTokens idefics3(const VisionTower& v, std::int64_t h, std::int64_t w) {
  const std::int64_t tile = v.image_height;
  // _resize_output_size_rescale_to_max_len: the longest edge becomes longest_edge (up or down),
  // the other side int(longest / aspect) made even; then resize_for_vision_encoder grows each side
  // to a multiple of the tile.
  const double input_aspect = static_cast<double>(w) / static_cast<double>(h);
  double hd, wd;
  if (w >= h) {
    wd = static_cast<double>(v.longest_edge);
    auto other = static_cast<std::int64_t>(wd / input_aspect);
    if (other % 2 != 0) ++other;
    hd = static_cast<double>(std::max<std::int64_t>(other, 1));
  } else {
    hd = static_cast<double>(v.longest_edge);
    auto other = static_cast<std::int64_t>(hd * input_aspect);
    if (other % 2 != 0) ++other;
    wd = static_cast<double>(std::max<std::int64_t>(other, 1));
  }
  const double t_size = static_cast<double>(tile);
  std::int64_t rh, rw;
  const double aspect = wd / hd;
  if (wd >= hd) {
    rw = static_cast<std::int64_t>(std::ceil(wd / t_size)) * tile;
    rh = static_cast<std::int64_t>(std::ceil(static_cast<double>(static_cast<std::int64_t>(static_cast<double>(rw) / aspect)) / t_size)) * tile;
  } else {
    rh = static_cast<std::int64_t>(std::ceil(hd / t_size)) * tile;
    rw = static_cast<std::int64_t>(std::ceil(static_cast<double>(static_cast<std::int64_t>(static_cast<double>(rh) * aspect)) / t_size)) * tile;
  }
  const std::int64_t tiles = (rh / tile) * (rw / tile);
  const std::int64_t per_tile = ((tile / v.patch_size) * (tile / v.patch_size)) / (v.merge_size * v.merge_size);
  ImageTokens t;
  t.height = rh;
  t.width = rw;
  t.encoder_sequences = tiles > 1 ? tiles + 1 : 1;  // the tiles and the global image
  t.encoder_positions = (tile / v.patch_size) * (tile / v.patch_size);
  t.lm_tokens = t.encoder_sequences * per_tile;
  t.projector_rows = t.lm_tokens;
  return t;
}

// InternVL / GOT-OCR2 get_optimal_tiled_canvas: the grid (columns x rows, at most max_tiles
// tiles) whose aspect ratio is closest to the image's; on a tie the larger grid when the image
// has more than half its area.
ImageTokens internvl(const VisionTower& v, std::int64_t h, std::int64_t w) {
  const std::int64_t tile = v.image_height;
  std::vector<Size> grids;  // (columns, rows), by tile count
  for (std::int64_t n = 1; n <= v.max_tiles; ++n)
    for (std::int64_t c = 1; c <= n; ++c)
      for (std::int64_t r = 1; r <= n; ++r)
        if (c * r == n) grids.emplace_back(c, r);
  const double aspect = static_cast<double>(w) / static_cast<double>(h);
  const double area = static_cast<double>(w) * static_cast<double>(h);
  Size best{1, 1};
  double best_diff = std::numeric_limits<double>::infinity();
  for (const auto& [c, r] : grids) {
    const double diff = std::fabs(aspect - static_cast<double>(c) / static_cast<double>(r));
    if (diff < best_diff) {
      best_diff = diff;
      best = {c, r};
    } else if (diff == best_diff && area > 0.5 * static_cast<double>(tile * tile * c * r)) {
      best = {c, r};
    }
  }
  const std::int64_t tiles = best.first * best.second;
  const std::int64_t patches = (tile / v.patch_size) * (tile / v.patch_size);
  ImageTokens t;
  t.height = best.second * tile;
  t.width = best.first * tile;
  t.encoder_sequences = tiles > 1 ? tiles + 1 : 1;  // the tiles and a thumbnail
  t.encoder_positions = patches + (v.class_token ? 1 : 0);
  t.lm_tokens = t.encoder_sequences * patches / (v.merge_size * v.merge_size);
  t.projector_rows = t.lm_tokens;
  return t;
}

ImageTokens mllama(const VisionTower& v) {
  ImageTokens t;
  t.height = v.image_height;
  t.width = v.image_width;
  t.encoder_sequences = v.max_tiles;  // padded to max_image_tiles by the processor
  t.encoder_positions = v.padded_positions;
  t.lm_tokens = 1;                    // one <|image|> token
  t.projector_rows = v.max_tiles * v.padded_positions;
  t.cross_attention_states = t.projector_rows;
  return t;
}

}  // namespace

ImageTokens image_tokens(const VisionTower& v, std::int64_t height, std::int64_t width) {
  switch (v.rule) {
    case ImageTokenRule::fixed: return fixed(v);
    case ImageTokenRule::qwen2_vl: return qwen2_vl(v, height, width);
    case ImageTokenRule::llava_next: return llava_next(v, height, width);
    case ImageTokenRule::idefics3: return idefics3(v, height, width);
    case ImageTokenRule::internvl: return internvl(v, height, width);
    case ImageTokenRule::mllama: return mllama(v);
  }
  return fixed(v);
}

}  // namespace trainmem
