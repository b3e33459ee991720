// Vision-language models priced whole: exact parameter counts against published totals, image
// tokens worked out by hand from each family's image processor, the freeze options, the vision
// encoder's activations, and warnings for parts the engine does not price.
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trainmem/compute_time.hpp"
#include "trainmem/flops.hpp"
#include "trainmem/image_tokens.hpp"
#include "trainmem/vision_activations.hpp"

using namespace trainmem;
using trainmem::test::hf_config_fixture;
using trainmem::test::total_of;
using trainmem::test::with_config;
using trainmem::test::estimate_from;
using trainmem::test::setup_from;

namespace {

const Architecture& architecture_of(const TrainingSetup& s) { return *s.model.architecture; }

// Qwen/Qwen2-VL-7B-Instruct config.json (architecture keys; the language model's keys sit at the top).
const std::string kQwen2Vl7b = R"({"model_type": "qwen2_vl", "hidden_size": 3584, "intermediate_size": 18944,
  "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064,
  "tie_word_embeddings": false, "vision_config": {"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16,
  "in_chans": 3, "hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2, "spatial_patch_size": 14,
  "temporal_patch_size": 2}})";
// Qwen/Qwen2-VL-2B-Instruct (architecture keys).
const std::string kQwen2Vl2b = R"({"model_type": "qwen2_vl", "hidden_size": 1536, "intermediate_size": 8960,
  "num_attention_heads": 12, "num_hidden_layers": 28, "num_key_value_heads": 2, "vocab_size": 151936,
  "tie_word_embeddings": true, "vision_config": {"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16,
  "in_chans": 3, "hidden_size": 1536, "patch_size": 14, "spatial_merge_size": 2, "spatial_patch_size": 14,
  "temporal_patch_size": 2}})";

}  // namespace

TEST_CASE("Gemma 3 presets count the SigLIP tower and the projector", "[multimodal][parameters]") {
  // Gemma-3-4B: SigLIP So400m at 896 px, patch 14 -> 64 x 64 = 4096 positions.
  //   embeddings: Conv2d 3*14*14*1152 + 1152 = 678,528; positions 4096*1152 = 4,718,592
  //   layer: q,k,v,out 4*(1152^2 + 1152) = 5,313,024; fc1 1152*4304 + 4304 = 4,962,512;
  //          fc2 4304*1152 + 1152 = 4,959,360; 2 LayerNorms 4,608 -> 15,239,504 x 27 = 411,466,608
  //   post_layernorm 2,304 -> tower 416,866,032
  //   projector: mm_input_projection 1152*2560 = 2,949,120 + mm_soft_emb_norm 1152 = 2,950,272
  //   language model 3,880,263,168 -> 4,300,079,472 = the Hub's safetensors total.
  const auto s = setup_from(R"({"model": {"preset": "gemma-3-4b"}})");
  const Architecture& a = architecture_of(s);
  REQUIRE(a.vision);
  CHECK(a.vision->encoder_params() == 416866032);
  CHECK(a.vision->projector_params() == 2950272);
  CHECK(a.text_params() == 3880263168);
  CHECK(a.total_params() == 4300079472);
  // 12B and 27B: the same tower; projections 1152 x 3840 and 1152 x 5376.
  CHECK(setup_from(R"({"model": {"preset": "gemma-3-12b"}})").model.architecture->total_params() == 12187325040);
  CHECK(setup_from(R"({"model": {"preset": "gemma-3-27b"}})").model.architecture->total_params() == 27432406640);
}

TEST_CASE("LLaVA-1.5-7B: CLIP ViT-L/14-336 - a two-layer projector and Vicuna-7B", "[multimodal][parameters]") {
  // CLIP: class_embedding 1024; Conv2d 3*14*14*1024 = 602,112 (no bias); positions 577*1024 = 590,848;
  //   pre_layrnorm 2,048; layer 4*(1024^2 + 1024) + (1024*4096 + 4096) + (4096*1024 + 1024) + 4*1024
  //   = 12,596,224 x 24 = 302,309,376; post_layernorm 2,048 -> 303,507,456
  // projector: 1024*4096 + 4096 + 4096*4096 + 4096 = 20,979,712
  // Vicuna-7B (LlamaConfig defaults, vocab 32064): 6,476,267,520 layers + 2*32064*4096 + 4096 = 6,738,939,904
  // total 7,063,427,072 (the published count of llava-hf/llava-1.5-7b-hf).
  const auto s = setup_from(with_config(hf_config_fixture("llava-1.5-7b-hf.json")));
  const Architecture& a = architecture_of(s);
  CHECK(a.vision->encoder_params() == 303507456);
  CHECK(a.vision->projector_params() == 20979712);
  CHECK(a.text_params() == 6738939904);
  CHECK(a.total_params() == 7063427072);
}

TEST_CASE("LLaVA-1.5-13B: the same CLIP tower - a 1024 -> 5120 projector - Vicuna-13B", "[multimodal][parameters]") {
  // CLIP ViT-L/14-336 as for the 7B: 303,507,456.
  // projector: linear_1 1024*5120 + 5120 = 5,248,000; linear_2 5120*5120 + 5120 = 26,219,520
  //   -> 31,467,520
  // Llama-2-13B shapes (hidden 5120, 40 layers, 40 heads, MLP 13824, vocab 32064, untied):
  //   layer 4*5120^2 + 3*5120*13824 + 2*5120 = 317,204,480 x 40 = 12,688,179,200;
  //   embed_tokens + lm_head 2*32064*5120 = 328,335,360; norm 5,120 -> 13,016,519,680
  // total 13,351,494,656. Published, rounded: the Hub's file list of llava-hf/llava-1.5-13b-hf
  // @e35e892aa406d31b1df3bad7ab0743e8bf98b8eb holds six fp16 shards of 4.96, 4.97, 4.88, 4.93, 4.93
  // and 2.02 GB = 26.69 GB (each to 10 MB, so within 30 MB): 2 x 13,351,494,656 = 26,702,989,312 bytes.
  const auto s = setup_from(with_config(hf_config_fixture("llava-1.5-13b-hf-awq.json")));
  const Architecture& a = architecture_of(s);
  CHECK(a.vision->encoder_params() == 303507456);
  CHECK(a.vision->projector_params() == 31467520);
  CHECK(a.text_params() == 13016519680);
  CHECK(a.total_params() == 13351494656);
  CHECK(std::fabs(2.0 * static_cast<double>(a.total_params()) - 26.69e9) <= 0.03e9);
}

TEST_CASE("LLaVA-NeXT (v1.6) Mistral-7B and Vicuna-7B: LLaVA-1.5's parts plus image_newline", "[multimodal][parameters]") {
  // llava-hf/llava-v1.6-mistral-7b-hf: CLIP 303,507,456; projector 1024*4096 + 4096 + 4096^2 + 4096
  //   = 20,979,712; image_newline 4,096 (one text-width vector, modeling_llava_next.py);
  // Mistral-7B (MistralConfig defaults: 4096 wide, 32 layers, 8 KV heads, MLP 14336; vocab 32064):
  //   layer 2*4096^2 + 2*4096*1024 + 3*4096*14336 + 2*4096 = 218,112,000 x 32 = 6,979,584,000;
  //   embed_tokens + lm_head 2*32064*4096 = 262,668,288; norm 4,096 -> 7,242,256,384
  // total 7,566,747,648, the published count of BAAI/BGE-VL-v1.5-zs, this model's weights fine-tuned
  // (embeddings-benchmark/mteb model registry: n_parameters=7_566_747_648, n_embedding_parameters
  // 131,334,144 = 32064 x 4096); the Hub shows "7.57B params" for the checkpoints of this shape.
  const auto s = setup_from(with_config(hf_config_fixture("llava-v1.6-mistral-7b-hf.json")));
  const Architecture& a = architecture_of(s);
  CHECK(a.vision->encoder_params() == 303507456);
  CHECK(a.text_params() == 7242256384);
  CHECK(a.total_params() == 7566747648);
  // llava-hf/llava-v1.6-vicuna-7b-hf (architecture keys): LLaVA-1.5-7B's 7,063,427,072 (the test
  // above) + image_newline 4,096 = 7,063,431,168.
  CHECK(total_of(R"({"model_type": "llava_next",
    "text_config": {"model_type": "llama", "vocab_size": 32064},
    "vision_config": {"hidden_size": 1024, "image_size": 336, "intermediate_size": 4096,
      "model_type": "clip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 24, "patch_size": 14},
    "vision_feature_layer": -2, "vision_feature_select_strategy": "default"})") == 7063431168);
}

TEST_CASE("Qwen2-VL 2B and 7B: a 675.8M-parameter vision transformer with a patch merger", "[multimodal][parameters]") {
  // Vision (embed_dim 1280, depth 32, mlp_ratio 4): Conv3d 3*2*14*14*1280 = 1,505,280;
  //   block: LayerNorms 4*1280 = 5,120; qkv 1280*3840 + 3840 = 4,919,040; proj 1,639,680;
  //   fc1 1280*5120 + 5120 = 6,558,720; fc2 5120*1280 + 1280 = 6,554,880 -> 19,677,440 x 32 = 629,678,080
  //   merger: ln_q 2,560; Linear(5120, 5120) 26,219,520; Linear(5120, out)
  // 7B: out 3584 -> 5120*3584 + 3584 = 18,353,664; vision 675,759,104; Qwen2-7B text (vocab 152064,
  //   untied) 7,615,616,512 -> 8,291,375,616 (Qwen/Qwen2-VL-7B-Instruct safetensors).
  CHECK(total_of(kQwen2Vl7b) == 8291375616);
  // 2B: out 1536 -> 7,865,856; vision 665,271,296; Qwen2-1.5B text (tied) 1,543,714,304 -> 2,208,985,600,
  //   the published count of qwen/qwen2-vl-2b-instruct (floschne/gimmick @81c06a5e04ee936534f8519d1f13591505f5182b src/gimmick/models/__init__.py, which records the
  //   Hub's safetensors parameter_count (HfApi().get_safetensors_metadata, BF16)).
  CHECK(total_of(kQwen2Vl2b) == 2208985600);
}

TEST_CASE("Qwen2.5-VL 3B and 7B: RMSNorm - a gated vision MLP", "[multimodal][parameters]") {
  // Vision (hidden 1280, depth 32, intermediate 3420): Conv3d 1,505,280;
  //   block: RMSNorms 2,560; qkv 4,919,040; proj 1,639,680; gate/up 2*(1280*3420 + 3420) = 8,762,040;
  //   down 3420*1280 + 1280 = 4,378,880 -> 19,702,200 x 32 = 630,470,400; merger ln_q 1,280,
  //   Linear(5120, 5120) 26,219,520 + Linear(5120, out)
  // 7B (out 3584): merger 44,574,464; vision 676,550,144 + the Qwen2-7B-shaped text model
  //   7,615,616,512 = 8,292,166,656, the Hub total (16,584,333,312 bytes in bf16 / 2).
  CHECK(total_of(hf_config_fixture("qwen2.5-vl-7b-instruct.json")) == 8292166656);
  // 3B (Qwen/Qwen2.5-VL-3B-Instruct, architecture keys): out 2048 -> vision 668,684,288; the tied
  //   Qwen2.5-3B text model 3,085,938,688 -> 3,754,622,976, the published count of Alibaba-NLP/GVE-3B,
  //   Qwen2.5-VL-3B-Instruct loaded without added weights (embeddings-benchmark/mteb
  //   @edeffb25e36ee175dea6037eb77eca3cad76575d mteb/models/model_implementations/gve_models.py:
  //   n_parameters=3754622976, adapted_from Qwen/Qwen2.5-VL-3B-Instruct).
  CHECK(total_of(R"({"model_type": "qwen2_5_vl", "hidden_size": 2048, "intermediate_size": 11008,
    "num_attention_heads": 16, "num_hidden_layers": 36, "num_key_value_heads": 2, "vocab_size": 151936,
    "tie_word_embeddings": true, "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420,
    "num_heads": 16, "in_chans": 3, "out_hidden_size": 2048, "patch_size": 14, "spatial_merge_size": 2,
    "temporal_patch_size": 2}})") == 3754622976);
}

TEST_CASE("Llama-3.2-11B-Vision: tiles - gated layers and cross-attention layers", "[multimodal][parameters]") {
  // Vision (1280 wide, 560 px, patch 14 -> 1601 positions, 4 tiles, 9 aspect-ratio rows):
  //   Conv2d 3*14*14*1280 = 752,640; class_embedding 1,280; gated positions 1 + 1601*1280 = 2,049,281;
  //   tile_embedding 9*4*1601*1280 = 73,774,080; pre/post tile embeddings 2*(9*4*1280 + 1) = 92,162;
  //   layernorm_pre/post 5,120; layer 4*1280^2 + (1280*5120 + 5120) + (5120*1280 + 1280) + 4*1280
  //   = 19,683,840 x 32 + (19,683,840 + 2 gates) x 8 -> vision 863,567,379 with the projector's
  //   7680*4096 + 4096 = 31,461,376 counted apart.
  // Text: 32 self-attention layers of 218,112,000; 8 cross-attention layers of 218,112,000 + q/k norms
  //   2*128 + 2 gates; embed_tokens (128256 + 8)*4096; lm_head 128256*4096; norm 4096.
  // Total 10,670,220,835 = meta-llama/Llama-3.2-11B-Vision-Instruct's safetensors count.
  const std::string cfg = R"({"model_type": "mllama", "text_config": {"model_type": "mllama_text_model",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 40,
    "num_key_value_heads": 8, "vocab_size": 128256, "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38]},
    "vision_config": {"model_type": "mllama_vision_model", "hidden_size": 1280, "image_size": 560,
    "intermediate_size": 5120, "max_num_tiles": 4, "num_attention_heads": 16, "num_global_layers": 8,
    "num_hidden_layers": 32, "patch_size": 14, "vision_output_dim": 7680,
    "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]]}})";
  const auto s = setup_from(with_config(cfg));
  const Architecture& a = architecture_of(s);
  CHECK(a.vision->encoder_params() == 863567379);
  CHECK(a.vision->projector_params() == 31461376);
  CHECK(a.total_params() == 10670220835);
}

TEST_CASE("Llama-3.2-90B-Vision: the 11B's vision model - 20 of 100 text layers cross-attend", "[multimodal][parameters]") {
  // A published 90B config (keys at their defaults omitted: vocab 128256, 8 KV heads, the default
  // vision_config at 560 px). Every part of modeling_mllama.py is the 11B's (whose count above is
  // the checkpoint's exact total); only the sizes change:
  // Vision: 863,567,379 as for the 11B; projector 7680*8192 + 8192 = 62,922,752.
  // Text (8192 wide, MLP 28672, 64 heads, 8 KV heads): self layer 2*8192^2 + 2*8192*1024
  //   + 3*8192*28672 + 2*8192 = 855,654,400 x 80 = 68,452,352,000; cross layer + q/k norms 2*128
  //   + 2 gates = 855,654,658 x 20 = 17,113,093,160; embed_tokens (128256 + 8)*8192 = 1,050,738,688;
  //   lm_head 128256*8192 = 1,050,673,152; norm 8,192 -> 87,666,865,192
  // Total 88,593,355,323. The model card's "90B (88.8)" is a rounded figure 0.23 % above it; the
  // same card's "11B (10.6)" is 0.66 % below the 11B checkpoint's exact 10,670,220,835, so the card
  // does not count the checkpoint's tensors either way, and no part is missing here.
  const auto s = setup_from(with_config(hf_config_fixture("llama-3.3-90b-vision-merged.json")));
  const Architecture& a = architecture_of(s);
  CHECK(a.vision->encoder_params() == 863567379);
  CHECK(a.vision->projector_params() == 62922752);
  CHECK(a.text_params() == 87666865192);
  CHECK(a.total_params() == 88593355323);
  CHECK(std::abs(static_cast<double>(a.total_params()) - 88.8e9) / 88.8e9 < 0.005);
}

TEST_CASE("PaliGemma 3B at 224 px: SigLIP without its head - one projection - Gemma-2B", "[multimodal][parameters]") {
  // SigLIP So400m at 224 px: 16 x 16 = 256 positions: 411,466,608 + 678,528 + 294,912 + 2,304
  //   = 412,442,352; projector 1152*2048 + 2048 = 2,361,344;
  // Gemma-2B (vocab 257216, 1 KV head): layer 4,194,304*2 + 524,288*2 + 3*2048*16384 + 4096
  //   = 109,580,576 x 18 = 1,972,450,368; embed 257216*2048 = 526,778,368; norm 2048
  // total 2,923,466,480 = google/paligemma-3b-pt-224's count.
  CHECK(total_of(R"({"model_type": "paligemma", "projection_dim": 2048,
    "text_config": {"hidden_size": 2048, "intermediate_size": 16384, "model_type": "gemma",
      "num_attention_heads": 8, "num_hidden_layers": 18, "num_image_tokens": 256, "num_key_value_heads": 1,
      "vocab_size": 257216},
    "vision_config": {"hidden_size": 1152, "intermediate_size": 4304, "model_type": "siglip_vision_model",
      "num_attention_heads": 16, "num_hidden_layers": 27, "num_image_tokens": 256, "patch_size": 14,
      "projection_dim": 2048, "vision_use_head": false}})") == 2923466480);
}

TEST_CASE("PaliGemma at 448 px and PaliGemma 2 10B: more positions - a Gemma 2 text model", "[multimodal][parameters]") {
  // keras-hub's preset table (keras_hub/src/models/pali_gemma/pali_gemma_presets.py at commit
  // 1b9656b5ebb64dbd7862834c4d5378be390321bb) gives "params" for each checkpoint. It counts a
  // 257,152-row vocabulary; the Hugging Face checkpoints' vocab_size is 257,216 (64 rows more), as
  // its pali_gemma_3b_224 figure 2,923,335,408 + 64*2048 = 2,923,466,480 (the 224 px test above) shows.
  // google/paligemma-3b-pt-448: 448 / 14 = 32 -> 1024 positions, 768 more than at 224:
  //   2,923,466,480 + 768*1152 = 2,924,351,216 = keras-hub's 2,924,220,144 + 64*2048.
  CHECK(total_of(R"({"model_type": "paligemma", "projection_dim": 2048,
    "text_config": {"hidden_size": 2048, "intermediate_size": 16384, "model_type": "gemma",
      "num_attention_heads": 8, "num_hidden_layers": 18, "num_image_tokens": 1024, "num_key_value_heads": 1,
      "vocab_size": 257216},
    "vision_config": {"hidden_size": 1152, "image_size": 448, "intermediate_size": 4304, "model_type": "siglip_vision_model",
      "num_attention_heads": 16, "num_hidden_layers": 27, "num_image_tokens": 1024, "patch_size": 14,
      "projection_dim": 2048, "vision_use_head": false}})") == 2924351216);
  // google/paligemma2-10b-pt-224 (architecture keys): SigLIP at 224 px 412,442,352; projector
  //   1152*3584 + 3584 = 4,132,352; Gemma 2 9B shapes (3584 wide, 42 layers, 16 heads of 256, 8 KV
  //   heads, MLP 14336, four norms a layer): layer 3584*4096 + 2*3584*2048 + 4096*3584
  //   + 3*3584*14336 + 4*3584 = 198,195,200 x 42 = 8,324,198,400; embed 257216*3584 = 921,862,144;
  //   norm 3,584 -> 9,246,064,128; total 9,662,638,832 = keras-hub's pali_gemma2_pt_10b_224
  //   9,662,409,456 + 64*3584.
  CHECK(total_of(R"({"model_type": "paligemma", "projection_dim": 3584,
    "text_config": {"hidden_size": 3584, "intermediate_size": 14336, "model_type": "gemma2",
      "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8, "head_dim": 256,
      "vocab_size": 257216},
    "vision_config": {"hidden_size": 1152, "image_size": 224, "intermediate_size": 4304, "model_type": "siglip_vision_model",
      "num_attention_heads": 16, "num_hidden_layers": 27, "num_image_tokens": 256, "patch_size": 14,
      "projection_dim": 3584, "vision_use_head": false}})") == 9662638832);
}

TEST_CASE("InternVL 2.5 4B and 38B: InternViT-300M and InternViT-6B with a pixel-shuffle projector", "[multimodal][parameters]") {
  // The transformers-native (model_type internvl) form of OpenGVLab/InternVL2_5-4B's shapes.
  // InternViT-300M: class token 1,024; Conv2d 3*14*14*1024 + 1024 = 603,136; positions 1025*1024
  //   = 1,049,600; layer: q/k/v with bias 3*(1024^2 + 1024) = 3,148,800; projection_layer 1,049,600;
  //   fc1 4,198,400; fc2 4,195,328; LayerNorms 4,096; lambda_1/2 2,048 -> 12,598,272 x 24
  //   = 302,358,528; no final norm (use_mean_pooling) -> 304,012,288
  // projector: LayerNorm(4096) 8,192; linear_1 4096*2048 + 2048; linear_2 2048*2048 + 2048 -> 12,595,200
  // Qwen2.5-3B text, vocab 151674, untied: 3,396,030,464 -> 3,712,637,952, the published count of
  //   opengvlab/internvl2_5-4b (floschne/gimmick @81c06a5e04ee936534f8519d1f13591505f5182b src/gimmick/models/__init__.py, which records the
  //   Hub's safetensors parameter_count).
  CHECK(total_of(R"({"model_type": "internvl", "downsample_ratio": 0.5,
    "text_config": {"model_type": "qwen2", "hidden_size": 2048, "intermediate_size": 11008, "num_attention_heads": 16,
      "num_hidden_layers": 36, "num_key_value_heads": 2, "vocab_size": 151674, "tie_word_embeddings": false},
    "vision_config": {"model_type": "internvl_vision", "hidden_size": 1024, "intermediate_size": 4096,
      "num_attention_heads": 16, "num_hidden_layers": 24, "attention_bias": true, "use_qk_norm": false,
      "norm_type": "layer_norm", "image_size": [448, 448], "patch_size": [14, 14]}})") == 3712637952);
  // InternVL2_5-38B: InternViT-6B (3200 wide, 45 layers, bias-free q/k/v, RMSNorm, per-layer q/k
  //   norms) + Qwen2.5-32B text (vocab 151674): vision and projector 5,628,282,240 + text
  //   32,759,882,752 = 38,388,164,992, the published count of opengvlab/internvl2_5-38b (the same file).
  CHECK(total_of(R"({"model_type": "internvl", "downsample_ratio": 0.5,
    "text_config": {"model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648, "num_attention_heads": 40,
      "num_hidden_layers": 64, "num_key_value_heads": 8, "vocab_size": 151674, "tie_word_embeddings": false},
    "vision_config": {"model_type": "internvl_vision", "hidden_size": 3200, "intermediate_size": 12800,
      "num_attention_heads": 25, "num_hidden_layers": 45, "attention_bias": false, "use_qk_norm": true,
      "norm_type": "rms_norm", "image_size": [448, 448], "patch_size": [14, 14]}})") == 38388164992);
}

TEST_CASE("Idefics3 at SmolVLM-256M's shapes: SigLIP-B/16 at 512 px and a 4x pixel shuffle", "[multimodal][parameters]") {
  // Vision: Conv2d 3*16*16*768 + 768 = 590,592; positions 32*32*768 = 786,432; 12 layers of
  //   7,087,872 = 85,054,464; post_layernorm 1,536 -> 86,433,024
  // connector: modality_projection 768*16 -> 576, no bias: 7,077,888
  // text (SmolLM2-135M shapes, vocab 49280, untied): 162,974,016 -> 256,484,928
  // (HuggingFaceTB/SmolVLM-256M-Instruct and docling-project/SmolDocling-256M-preview).
  CHECK(total_of(R"({"model_type": "idefics3", "scale_factor": 4,
    "text_config": {"model_type": "llama", "hidden_size": 576, "intermediate_size": 1536, "num_attention_heads": 9,
      "num_hidden_layers": 30, "num_key_value_heads": 3, "vocab_size": 49280, "tie_word_embeddings": false},
    "vision_config": {"model_type": "idefics3_vision", "hidden_size": 768, "image_size": 512, "intermediate_size": 3072,
      "num_attention_heads": 12, "num_hidden_layers": 12, "patch_size": 16}})") == 256484928);
}

TEST_CASE("Idefics3 8B and SmolVLM-256M: image tokens per tile as published - tiles of a 4-tile longest edge",
          "[multimodal][image_tokens]") {
  // HuggingFaceM4/Idefics3-8B-Llama3: SigLIP So400m at 364 px, patch 14 (26 x 26 = 676 patches),
  // pixel shuffle 2 -> 169 tokens per tile, the model card's "169 visual tokens to encode an image of
  // size 364x364". A 364 x 364 image is resized to the longest edge 4 x 364 = 1456: 4 x 4 tiles and
  // the global image -> 17 x 169 = 2873 tokens. 700 x 364 (h x w): 1456 x int(1456 * 364 / 700 =
  // 757.12) = 757 -> 758 (even) -> tiles ceil(1456 / 364) = 4 high, ceil(int(1456 * 0.5206) = 758 /
  // 364) = 3 wide: 12 tiles + 1 -> 13 x 169 = 2197.
  const std::string idefics3_8b = R"({"model_type": "idefics3", "scale_factor": 2,
    "text_config": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
      "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128259, "tie_word_embeddings": false},
    "vision_config": {"model_type": "idefics3_vision", "hidden_size": 1152, "image_size": 364, "intermediate_size": 4304,
      "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14}})";
  const auto big = setup_from(with_config(idefics3_8b));
  const VisionTower& v = *architecture_of(big).vision;
  const ImageTokens square = image_tokens(v, 364, 364);
  CHECK(square.encoder_positions == 676);
  CHECK(square.encoder_sequences == 17);
  CHECK(square.lm_tokens == 17 * 169);
  CHECK(image_tokens(v, 700, 364).lm_tokens == 13 * 169);
  // Its parameters by hand: tower 678,528 (Conv2d with bias) + 676 x 1152 = 778,752 positions + 27
  //   SigLIP layers of 15,239,504 + post_layernorm 2,304 = 412,926,192; connector 1152 x 4 -> 4096,
  //   no bias: 18,874,368; Llama-3.1-8B shapes with vocab 128259, untied: 32 x 218,112,000 + 2 x
  //   128259 x 4096 + 4096 = 8,030,285,824 -> 8,462,086,384.
  CHECK(v.encoder_params() == 412926192);
  CHECK(v.projector_params() == 18874368);
  CHECK(architecture_of(big).total_params() == 8462086384);
  // Published, rounded: the Hub's file list of HuggingFaceM4/Idefics3-8B-Llama3 @8ed28d9357bb13359ab9a573e5e2e49e58132f0e
  // holds four bf16 shards of 4.97, 5, 4.92 and 2.04 GB = 16.93 GB (each to 10 MB, so within 20 MB):
  // 2 x 8,462,086,384 = 16,924,172,768 bytes.
  CHECK(std::fabs(2.0 * architecture_of(big).total_params() - 16.93e9) <= 0.02e9);
  // SmolVLM-256M: 512 px tiles, patch 16 (32 x 32 = 1024 patches), pixel shuffle 4 -> 64 tokens per
  // tile (image_seq_len 64 in its processor config); a 512 x 512 image goes to 2048 = 4 x 512:
  // 16 tiles + the global image -> 17 x 64 = 1088.
  const auto small = setup_from(with_config(R"({"model_type": "idefics3", "scale_factor": 4,
    "text_config": {"model_type": "llama", "hidden_size": 576, "intermediate_size": 1536, "num_attention_heads": 9,
      "num_hidden_layers": 30, "num_key_value_heads": 3, "vocab_size": 49280, "tie_word_embeddings": false},
    "vision_config": {"model_type": "idefics3_vision", "hidden_size": 768, "image_size": 512, "intermediate_size": 3072,
      "num_attention_heads": 12, "num_hidden_layers": 12, "patch_size": 16}})"));
  const ImageTokens smol = image_tokens(*architecture_of(small).vision, 512, 512);
  CHECK(smol.encoder_sequences == 17);
  CHECK(smol.lm_tokens == 17 * 64);
}

TEST_CASE("image tokens by hand: Qwen2-VL at two image sizes", "[multimodal][image_tokens]") {
  const auto s = setup_from(with_config(kQwen2Vl7b));
  const VisionTower& v = *architecture_of(s).vision;
  // 448 x 448: round(448 / 28) = 16 -> 448 x 448; 32 x 32 = 1024 patches of 14 px; merged 2 x 2 -> 256.
  const ImageTokens square = image_tokens(v, 448, 448);
  CHECK(square.encoder_positions == 1024);
  CHECK(square.lm_tokens == 256);
  // 600 x 1000 (h x w): round(600 / 28 = 21.43) = 21 -> 588; round(1000 / 28 = 35.71) = 36 -> 1008;
  // 588 * 1008 = 592,704 px is within [3136, 12845056]; 42 x 72 = 3024 patches -> 756 tokens.
  const ImageTokens wide = image_tokens(v, 600, 1000);
  CHECK(wide.height == 588);
  CHECK(wide.width == 1008);
  CHECK(wide.encoder_positions == 3024);
  CHECK(wide.lm_tokens == 756);
  // 4000 x 4000 exceeds max_pixels 12,845,056: beta = sqrt(16e6 / 12,845,056) = 1.116; floor(4000 /
  // 1.116 / 28) = 128 -> 3584 x 3584 = 12,845,056 px; 256 x 256 patches -> 16,384 tokens.
  CHECK(image_tokens(v, 4000, 4000).lm_tokens == 16384);
}

TEST_CASE("image tokens by hand: LLaVA-NeXT anyres at two image sizes", "[multimodal][image_tokens]") {
  // llava-hf/llava-v1.6-mistral-7b-hf shapes (CLIP ViT-L/14-336, default pinpoints).
  const auto s = setup_from(with_config(R"({"model_type": "llava_next",
    "text_config": {"model_type": "mistral", "vocab_size": 32064},
    "vision_config": {"hidden_size": 1024, "image_size": 336, "intermediate_size": 4096,
      "model_type": "clip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 24, "patch_size": 14},
    "image_grid_pinpoints": [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]],
    "vision_feature_layer": -2, "vision_feature_select_strategy": "default"})"));
  const VisionTower& v = *architecture_of(s).vision;
  // 336 x 336: [336, 672] keeps all 112,896 px with the least padding (112,896) -> a 1 x 2 grid;
  // 24 x 48 patches; the image is square, the grid 1:2, so the width is unpadded to
  // int(336 * 24 / 336) = 24: 24 * 24 = 576 features + 24 newlines + the base image 576 + 1 (class)
  // - 1 (the default strategy drops it) -> 1176. The encoder runs the base image and 2 tiles.
  const ImageTokens square = image_tokens(v, 336, 336);
  CHECK(square.lm_tokens == 1176);
  CHECK(square.encoder_sequences == 3);
  CHECK(square.encoder_positions == 577);
  // 600 x 800: [672, 672] keeps 672 x 504 = 338,688 px (the 1 x 2 grids keep 448 x 336) -> 2 x 2;
  // 48 x 48 patches; the image is wider (1.333 > 1): height int(600 * 48 / 800) = 36, padding 6 a
  // side -> 36 x 48 = 1728 + 36 newlines + 576 -> 2340; 5 encoder sequences.
  const ImageTokens wide = image_tokens(v, 600, 800);
  CHECK(wide.lm_tokens == 2340);
  CHECK(wide.encoder_sequences == 5);
}

TEST_CASE("fixed-resolution families: tokens per image whatever the input size", "[multimodal][image_tokens]") {
  // LLaVA-1.5: (336 / 14)^2 = 576 patches; the class token dropped.
  const auto llava = setup_from(with_config(hf_config_fixture("llava-1.5-7b-hf.json")));
  CHECK(image_tokens(*architecture_of(llava).vision, 1000, 700).lm_tokens == 576);
  // Gemma 3: 4096 patches average-pooled to mm_tokens_per_image = 256.
  const auto gemma = setup_from(R"({"model": {"preset": "gemma-3-4b"}})");
  const ImageTokens g = image_tokens(*architecture_of(gemma).vision, 896, 896);
  CHECK(g.encoder_positions == 4096);
  CHECK(g.lm_tokens == 256);
}

TEST_CASE("freeze options move the vision tower and projector in and out of training", "[multimodal][freeze]") {
  const std::string cfg = hf_config_fixture("llava-1.5-7b-hf.json");
  const std::string common = R"("precision": {"param_dtype": "bf16", "optimizer": "adamw"}, "batch": {"seq_length": 1024})";
  // Default: the tower frozen (303,507,456), the projector trained.
  const auto frozen = estimate_from(with_config(cfg, common));
  CHECK(frozen.parameters.trainable == 7063427072 - 303507456);
  // Tower trained too: every parameter.
  const auto tower = estimate_from(with_config(cfg, common + R"(, "multimodal": {"freeze_vision_tower": false})"));
  CHECK(tower.parameters.trainable == 7063427072);
  // Projector frozen as well: the language model alone.
  const auto text_only = estimate_from(with_config(cfg, common + R"(, "multimodal": {"freeze_projector": true})"));
  CHECK(text_only.parameters.trainable == 6738939904);
  // Optimizer states follow the trainable parameters: the tower's 303,507,456 parameters at the
  // optimizer's bytes per parameter (fp32 master, m and v with bf16 weights: 12 B).
  CHECK(tower.per_gpu.optimizer_states - frozen.per_gpu.optimizer_states ==
        Approx(303507456.0 * frozen.bytes_per_param.optimizer));
  CHECK(frozen.bytes_per_param.optimizer == 12.0);
  CHECK(frozen.per_gpu.optimizer_states - text_only.per_gpu.optimizer_states == Approx(20979712.0 * 12.0));
  // LoRA with the tower not frozen: adapters on its q_proj/v_proj too (24 layers x 2 x 16 x 2048).
  const std::string lora = common + R"(, "method": "lora", "lora": {"r": 16, "target_modules": ["q_proj", "v_proj"]})";
  const auto adapters = estimate_from(with_config(cfg, lora + R"(, "multimodal": {"freeze_vision_tower": false})"));
  const auto no_adapters = estimate_from(with_config(cfg, lora));
  CHECK(adapters.parameters.adapter - no_adapters.parameters.adapter == 24 * 2 * 16 * (1024 + 1024));
}

TEST_CASE("a frozen vision tower saves no activations - a trained one saves its layers", "[multimodal][activations]") {
  const std::string cfg = hf_config_fixture("llava-1.5-7b-hf.json");
  const std::string common =
      R"("precision": {"param_dtype": "bf16"}, "batch": {"seq_length": 1024, "micro_batch_size": 2}, "attention": "flash",
         "activation_checkpointing": "none", "multimodal": {"images_per_sample": 1)";
  const auto frozen = setup_from(with_config(cfg, common + "}"));
  const auto va_frozen = vision_activations(frozen, architecture_of(frozen), Dtype::bf16);
  CHECK(va_frozen.encoder_saved == 0);
  // The projector trains: it keeps linear_1's input (576 x 1024), GELU's input and linear_2's
  // input (576 x 4096 each) per image, bf16: 576 * 9216 * 2 B = 10,616,832 B x 2 images.
  CHECK(va_frozen.projector_saved == 2.0 * 10616832.0);
  // Trained tower, flash attention, 577 positions per image, per token and layer (bf16 unless
  // noted): LayerNorm input 2048 + fp32 mean/rstd 8 + output 2048; q, k, v 6144; log-sum-exp
  // 16 heads x 4 = 64; attention output 2048; second LayerNorm 4104; fc1 output 8192; GELU output
  // 8192 -> 32,848 B x 577 x 24 layers = 454,879,104 B per image, x 2 images.
  const auto trained = setup_from(with_config(cfg, common + R"(, "freeze_vision_tower": false})"));
  const auto va = vision_activations(trained, architecture_of(trained), Dtype::bf16);
  CHECK(va.encoder_saved == 2.0 * 454879104.0);
  CHECK(va.lm_image_tokens == 576);
  // The estimate carries them: activations grow by exactly the tower's saved bytes.
  const auto e_frozen = estimate(frozen), e_trained = estimate(trained);
  CHECK(*e_trained.per_gpu.activations - *e_frozen.per_gpu.activations == Approx(2.0 * 454879104.0));
}

TEST_CASE("the vision tower's FLOPs: forward always - backward only where gradients flow", "[multimodal][flops]") {
  const std::string cfg = hf_config_fixture("llava-1.5-7b-hf.json");
  const std::string common = R"("batch": {"seq_length": 1024}, "attention": "flash", "activation_checkpointing": "none")";
  const auto none = training_flops(setup_from(with_config(cfg, common + R"(, "multimodal": {"images_per_sample": 0})")));
  const auto one = training_flops(setup_from(with_config(cfg, common + R"(, "multimodal": {"images_per_sample": 1})")));
  // Encoder forward, per position and layer: linears 2 x (4 x 1024^2 + 2 x 1024 x 4096) = 25,165,824;
  // bidirectional attention over 577 positions 2 x 16 heads x (64 + 64) x 577 = 2,363,392
  //   -> 27,529,216 x 577 positions x 24 layers = 381,224,583,168.
  // Projector over 576 rows: 2 x (1024 x 4096 + 4096 x 4096) x 576 = 24,159,191,040 forward, and as
  // much again for its weight gradients (it trains), plus linear_2's input gradient, which
  // linear_1's weight gradient needs: 2 x 4096 x 4096 x 576 = 19,327,352,832. The frozen tower
  // takes no backward, and linear_1 no input gradient.
  CHECK(one.forward - none.forward == Approx(381224583168.0 + 24159191040.0));
  CHECK(one.backward - none.backward == Approx(24159191040.0 + 19327352832.0));
}

TEST_CASE("the vision tower's step time: its kernels on the first stage, forward only when frozen", "[multimodal][step_time]") {
  const std::string cfg = hf_config_fixture("llava-1.5-7b-hf.json");
  const std::string common = R"("batch": {"seq_length": 1024}, "attention": "flash", "activation_checkpointing": "none",
    "framework": "hf_trainer", "gpu": "a100-80gb")";
  const TrainingSetup s = setup_from(with_config(cfg, common + R"(, "multimodal": {"images_per_sample": 1})"));
  const StepTime none = trainmem::test::time_of(with_config(cfg, common + R"(, "multimodal": {"images_per_sample": 0})"));
  const StepTime one = trainmem::test::time_of(with_config(cfg, common + R"(, "multimodal": {"images_per_sample": 1})"));
  const DeviceRates r = device_rates(s.gpu->performance, Framework::hf_trainer, AttentionImplementation::flash);
  // One 336 x 336 image: 577 positions (24 x 24 patches + the class token) through 24 CLIP layers,
  // bf16 (2 bytes), forward only (the tower is frozen). Per layer: q, k, v, out_proj [577 x 1024] x
  // [1024 x 1024]; fc1 [577 x 1024] x [1024 x 4096]; fc2 [577 x 4096] x [4096 x 1024];
  // bidirectional attention 2 x 577 keys x (64 + 64) x 16 heads = 2,363,392 FLOPs per position;
  // memory-bound ops per position: two LayerNorms read and write 1024 (2 x 2 x 2 x 1024 = 8192 bytes),
  // two residual adds 3 passes of 1024 (12,288), GELU 2 passes of 4096 (16,384) -> 36,864 bytes.
  const double layer = 4 * gemm_seconds(577, 1024, 1024, 1, 2, false, r) + gemm_seconds(577, 4096, 1024, 1, 2, false, r) +
                       gemm_seconds(577, 1024, 4096, 1, 2, false, r) + attention_seconds(577 * 2363392.0, 577, false, r) +
                       memory_seconds(577 * 36864.0, r);
  // Projector over 576 rows (the class token dropped): linear_1 1024 -> 4096, GELU (2 passes of
  // 4096), linear_2 4096 -> 4096 forward; backward: both weight gradients, linear_2's input
  // gradient, GELU's backward (twice its forward bytes).
  const double gelu = memory_seconds(576 * 4096 * 2 * 2.0, r);
  const double projector = gemm_seconds(576, 4096, 1024, 1, 2, false, r) + gelu + gemm_seconds(576, 4096, 4096, 1, 2, false, r) +
                           gemm_seconds(1024, 4096, 576, 1, 2, false, r) + gemm_seconds(4096, 4096, 576, 1, 2, false, r) +
                           gemm_seconds(576, 4096, 4096, 1, 2, false, r) + 2 * gelu;
  CHECK(one.step_seconds - none.step_seconds == Approx(24 * layer + projector));
  CHECK(one.breakdown.compute - none.breakdown.compute == Approx(24 * layer + projector));
  // Training the tower adds its backward: the step grows further.
  const StepTime trained = trainmem::test::time_of(with_config(cfg, common + R"(, "multimodal": {"freeze_vision_tower": false})"));
  CHECK(trained.step_seconds > one.step_seconds + 24 * layer);
}

TEST_CASE("image tokens count in seq_length: too many images is an error at the field", "[multimodal][errors]") {
  const std::string cfg = hf_config_fixture("llava-1.5-7b-hf.json");
  // 4 images x 576 tokens = 2304 > 2048.
  CHECK(trainmem::test::error_fields(with_config(cfg, R"("batch": {"seq_length": 2048}, "multimodal": {"images_per_sample": 4})")) ==
        std::vector<std::string>{"batch.seq_length"});
  // Each side's error is at that side, saying what is wrong with it; a wrong count at the list.
  CHECK(trainmem::test::error_fields(with_config(cfg, R"("multimodal": {"image_size": [0, 5]})")) ==
        std::vector<std::string>{"multimodal.image_size[0]"});
  CHECK(trainmem::test::error_fields(with_config(cfg, R"("multimodal": {"image_size": [224, 224.5]})")) ==
        std::vector<std::string>{"multimodal.image_size[1]"});
  CHECK(trainmem::test::error_fields(with_config(cfg, R"("multimodal": {"image_size": [0, "a"]})")) ==
        std::vector<std::string>{"multimodal.image_size[0]", "multimodal.image_size[1]"});
  CHECK(trainmem::test::error_fields(with_config(cfg, R"("multimodal": {"image_size": [224, 224, 3]})")) ==
        std::vector<std::string>{"multimodal.image_size"});
  const std::string message = estimate_json(with_config(cfg, R"("multimodal": {"image_size": [224, 224.5]})")).json;
  CHECK_THAT(message, Catch::Contains("the width") && Catch::Contains("224.5 must be a whole number"));
}

TEST_CASE("config parts without a layout are named in a warning with a count - never dropped silently",
          "[multimodal][warnings]") {
  // An audio tower next to a known vision-language layout.
  const std::string gemma_with_audio = R"({"model_type": "gemma3", "text_config": {"hidden_size": 2560,
    "intermediate_size": 10240, "num_hidden_layers": 34}, "vision_config": {"hidden_size": 1152, "image_size": 896,
    "intermediate_size": 4304, "model_type": "siglip_vision_model", "num_attention_heads": 16,
    "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false},
    "audio_config": {"model_type": "whisper_encoder", "hidden_size": 1280, "num_hidden_layers": 32,
    "intermediate_size": 5120}})";
  const auto out = nlohmann::json::parse(estimate_json(with_config(gemma_with_audio)).json);
  bool named = false;
  for (const auto& w : out["warnings"]) {
    if (w["code"] != "unpriced_part") continue;
    const std::string m = w["message"];
    // 32 x (4*1280^2 + 4*1280 + 2*1280*5120 + 5120 + 1280 + 4*1280) = 32 x 19,677,440 = 629,678,080
    named = m.find("model.hf_config.audio_config") != std::string::npos && m.find("629678080") != std::string::npos;
  }
  CHECK(named);
  // An unknown wrapper read through its text_config: its vision_config is named as well.
  const auto other = nlohmann::json::parse(estimate_json(with_config(R"({"model_type": "some_vlm",
    "text_config": {"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024, "num_attention_heads": 8,
    "num_hidden_layers": 2, "vocab_size": 1000}, "vision_config": {"model_type": "some_vit"}})")).json);
  bool vision_named = false;
  for (const auto& w : other["warnings"])
    vision_named = vision_named || (w["code"] == "unpriced_part" &&
                                    w["message"].get<std::string>().find("model.hf_config.vision_config") != std::string::npos);
  CHECK(vision_named);
}

TEST_CASE("every stored vision-language and SSM config prices every memory field", "[multimodal][ssm]") {
  for (const char* name : {"llava-1.5-7b-hf.json", "llava-1.5-13b-hf-awq.json", "llava-v1.6-mistral-7b-hf.json",
                           "qwen2.5-vl-7b-instruct.json", "llama-3.3-90b-vision-merged.json", "mamba-2.8b-hf.json",
                           "mamba-codestral-7b-v0.1.json", "ai21-jamba-1.5-mini.json"}) {
    CAPTURE(name);
    const JsonResult r = estimate_json(with_config(hf_config_fixture(name), R"("gpu": "h100-sxm-80gb", "batch": {"seq_length": 2048})"));
    REQUIRE(r.ok);
    const auto out = nlohmann::json::parse(r.json);
    for (const char* field : {"parameters", "gradients", "optimizer_states", "model_states", "activations",
                              "temporary_buffers", "peak_allocated", "peak_reserved", "peak"})
      CHECK_FALSE(out["per_gpu"][field].is_null());
    CHECK_FALSE(out["per_gpu"]["phases"].is_null());
  }
}

TEST_CASE("batches padded to their longest sample still hold each sample's image tokens", "[multimodal][uncertainty]") {
  // LLaVA-1.5-7B: one 336 x 336 image is (336 / 14)^2 = 576 tokens of the sequence, so the shortest
  // sample is 576 image tokens and one text token: 577, rounded up to the layout's unit of 2 -> 578.
  const JsonResult r = estimate_json(with_config(hf_config_fixture("llava-1.5-7b-hf.json"),
      R"("gpu": "h100-sxm-80gb", "method": "lora", "batch": {"seq_length": 2048, "padding": "longest"}, "multimodal": {"images_per_sample": 1})"));
  REQUIRE(r.ok);
  const auto out = nlohmann::json::parse(r.json);
  bool named = false;
  for (const auto& t : out["uncertainty"]) named |= t["alternative"] == "batch.seq_length: 578 (a batch of short samples)";
  CHECK(named);
  CHECK(out["per_gpu"]["peak_range"]["low"].get<double>() < out["per_gpu"]["peak"].get<double>());
}

TEST_CASE("a vision tower value the config leaves out is named as the default, not as the user's", "[multimodal][errors]") {
  // llava-hf/llava-1.5-7b-hf's vision_config without num_attention_heads: CLIPVisionConfig's default
  // 12 heads do not divide hidden_size 1024, and the message says the 12 was not given.
  auto config = nlohmann::json::parse(hf_config_fixture("llava-1.5-7b-hf.json"));
  config["vision_config"].erase("num_attention_heads");
  const auto errors = trainmem::parse_estimate_document(with_config(config.dump())).errors;
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "not_divisible");
  CHECK(errors[0].message ==
        "model.hf_config.vision_config.num_attention_heads (not given: the default 12) must divide hidden_size = 1024");
  // Given, it is the user's value.
  config["vision_config"]["num_attention_heads"] = 12;
  const auto given = trainmem::parse_estimate_document(with_config(config.dump())).errors;
  REQUIRE(given.size() == 1);
  CHECK(given[0].message == "model.hf_config.vision_config.num_attention_heads = 12 must divide hidden_size = 1024");
}
