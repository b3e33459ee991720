# Writes a C++ source holding every model preset's JSON file (catalog/models/*.json) as a string
# literal, so the engine (native and WASM) carries the presets without file I/O; each is parsed when
# first asked for (engine/src/json/builtin_catalog.cpp). The GPUs are compiled as data instead
# (tools/gpu_table). Run as:
#   cmake -DCATALOG_DIR=<catalog> -DOUTPUT=<file.cpp> -P embed_catalog.cmake
file(GLOB files RELATIVE "${CATALOG_DIR}" "${CATALOG_DIR}/models/*.json")
list(SORT files)
set(body "// Generated from catalog/models/ by cmake/embed_catalog.cmake. Do not edit.\n#include <cstddef>\nnamespace trainmem {\nstruct EmbeddedModelFile { const char* path; const char* text; };\nextern const EmbeddedModelFile kEmbeddedModelFiles[] = {\n")
list(LENGTH files count)
foreach(f IN LISTS files)
  file(READ "${CATALOG_DIR}/${f}" text)
  # Split into chunks: compilers limit the length of one string literal.
  string(LENGTH "${text}" len)
  set(literal "")
  set(pos 0)
  while(pos LESS len)
    string(SUBSTRING "${text}" ${pos} 8000 chunk)
    string(APPEND literal "R\"tmjson(${chunk})tmjson\"\n")
    math(EXPR pos "${pos} + 8000")
  endwhile()
  string(APPEND body "  {\"${f}\",\n${literal}},\n")
endforeach()
if(count EQUAL 0)
  string(APPEND body "  {\"\", \"\"},\n")
endif()
string(APPEND body "};\nextern const std::size_t kEmbeddedModelFileCount = ${count};\n}  // namespace trainmem\n")
file(WRITE "${OUTPUT}.tmp" "${body}")
configure_file("${OUTPUT}.tmp" "${OUTPUT}" COPYONLY)
