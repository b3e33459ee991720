// Every field of a catalog GPU entry (GpuEntry, with its GpuSpec, GpuPerformance and PriceOffers),
// named by its C++ member path. The build writes the GPU catalog as C++ data through this list
// (tools/gpu_table/), and tests/gpu_table_test.cpp compares the built table with the parsed files
// through it. A field added to one of these structs must be added here (or the built table would
// leave it at its default): tests/gpu_table_test.cpp counts each struct's members against the names
// listed here and fails until it is.
#pragma once

#include "trainmem/catalog.hpp"

namespace trainmem {

// visit(name, field) for each field of one published price; `Offer` is PriceOffer, const or not.
template <class Offer, class Visit>
void for_each_price_offer_field(Offer& o, Visit&& visit) {
  visit("usd_per_gpu_hour", o.usd_per_gpu_hour);
  visit("kind", o.kind);
  visit("provider_type", o.provider_type);
  visit("provider", o.provider);
  visit("offer", o.offer);
  visit("read_on", o.read_on);
  visit("source", o.source);
}

// visit(name, field) for each field of a GPU entry; `prices` is visited as the whole list (its
// offers' fields through for_each_price_offer_field). `Entry` is GpuEntry, const or not.
template <class Entry, class Visit>
void for_each_gpu_entry_field(Entry& g, Visit&& visit) {
  visit("spec.id", g.spec.id);
  visit("spec.display_name", g.spec.display_name);
  visit("spec.memory_bytes", g.spec.memory_bytes);
  visit("spec.device_total_bytes", g.spec.device_total_bytes);
  visit("spec.usable_bytes", g.spec.usable_bytes);
  visit("spec.cuda_context_bytes", g.spec.cuda_context_bytes);
  visit("spec.has_cuda_context", g.spec.has_cuda_context);
  visit("spec.kind", g.spec.kind);
  visit("spec.bf16", g.spec.bf16);
  visit("spec.flash_attention_2", g.spec.flash_attention_2);
  visit("spec.gpus_per_node", g.spec.gpus_per_node);
  visit("spec.performance.bf16_dense_flops_per_s", g.spec.performance.bf16_dense_flops_per_s);
  visit("spec.performance.fp8_dense_flops_per_s", g.spec.performance.fp8_dense_flops_per_s);
  visit("spec.performance.memory_bandwidth_bytes_per_s", g.spec.performance.memory_bandwidth_bytes_per_s);
  visit("spec.performance.matmul_efficiency_bf16", g.spec.performance.matmul_efficiency_bf16);
  visit("spec.performance.matmul_efficiency_fp8", g.spec.performance.matmul_efficiency_fp8);
  visit("spec.performance.streaming_multiprocessors", g.spec.performance.streaming_multiprocessors);
  visit("spec.performance.generation", g.spec.performance.generation);
  visit("spec.performance.intra_node_bytes_per_s", g.spec.performance.intra_node_bytes_per_s);
  visit("spec.performance.inter_node_bytes_per_s", g.spec.performance.inter_node_bytes_per_s);
  visit("spec.performance.intra_node_gpus", g.spec.performance.intra_node_gpus);
  visit("spec.performance.host_link_bytes_per_s", g.spec.performance.host_link_bytes_per_s);
  visit("spec.performance.interconnect_bytes_per_s", g.spec.performance.interconnect_bytes_per_s);
  visit("spec.price_per_gpu_hour_usd", g.spec.price_per_gpu_hour_usd);
  visit("spec.price_source", g.spec.price_source);
  visit("vendor", g.vendor);
  visit("kind", g.kind);
  visit("bf16_dense_tflops", g.bf16_dense_tflops);
  visit("memory_bandwidth_bytes_per_s", g.memory_bandwidth_bytes_per_s);
  visit("interconnect_name", g.interconnect_name);
  visit("interconnect_bytes_per_s", g.interconnect_bytes_per_s);
  visit("price_per_gpu_hour_usd", g.price_per_gpu_hour_usd);
  visit("prices", g.prices);
  visit("source", g.source);
  visit("raw_json", g.raw_json);
}

}  // namespace trainmem
