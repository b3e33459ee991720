// Python's json.dumps writes NaN, Infinity and -Infinity for non-finite floats, and
// transformers saves configs with it (Mamba-2's time_step_limit is [0.0, Infinity] in
// mistralai/Mamba-Codestral-7B-v0.1's config.json). They are not JSON. A pasted config.json must
// still be read: inside an hf_config they stand for a value the estimate does not use and are read
// as null (the key as absent); anywhere else they are an error naming the field.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "object_reader.hpp"

namespace trainmem::json_io {

// The text with every NaN/Infinity/-Infinity value token (outside strings) replaced by a marker
// string; nullopt when there is none. Linear in the text.
std::optional<std::string> mark_nonfinite_tokens(std::string_view text);

// Replaces the markers of a document parsed from marked text: null inside an hf_config object,
// an error at the field elsewhere ("FILE:key" for a file named `file`; the bare path for the
// estimate document, `file` empty). Recursion is bounded by kMaxNestingDepth.
void resolve_nonfinite_markers(json& doc, const std::string& file, Errors& errors);

}  // namespace trainmem::json_io
