#include "config_fields.hpp"

#include <algorithm>
#include <cmath>

#include "trainmem/json_api.hpp"
#include "trainmem/number_text.hpp"

namespace trainmem::architectures {

void ConfigFields::type_error(const char* key, const char* expected, const char* type, const HfValue& got) {
  const bool scalar = got.kind != HfValue::Kind::list && got.kind != HfValue::Kind::object;
  errors_.push_back({error_code::wrong_type, field(key),
                     field(key) + " must be " + expected + ", got " + got.type_name() + (scalar ? " " + got.shown : ""),
                     scalar ? Params{{"expected", type}, {"got", got.type_name()}, {"value", got.shown}}
                            : Params{{"expected", type}, {"got", got.type_name()}}});
  ok_ = false;
}

std::optional<std::int64_t> ConfigFields::integer(const char* key, double min, double max) {
  const HfValue* v = config_.find(key);
  if (!v) return std::nullopt;
  if (v->kind != HfValue::Kind::number) {
    type_error(key, "an integer", "integer", *v);
    return std::nullopt;
  }
  const double d = v->number;
  if (!std::isfinite(d) || std::floor(d) != d) {
    errors_.push_back({error_code::not_integer, field(key), field(key) + " = " + v->shown + " must be a whole number", {{"value", v->shown}}});
    ok_ = false;
    return std::nullopt;
  }
  if (d < min || d > max || d > kMaxExactInteger) {
    errors_.push_back({error_code::out_of_range, field(key),
                       field(key) + " = " + v->shown + " is out of range (" + number_text(min) + " to " +
                           number_text(std::min(max, kMaxExactInteger)) + ")",
                       {{"value", v->shown}, {"min", min}, {"max", std::min(max, kMaxExactInteger)}}});
    ok_ = false;
    return std::nullopt;
  }
  return static_cast<std::int64_t>(d);
}

std::int64_t ConfigFields::size(std::initializer_list<const char*> keys, std::optional<std::int64_t> fallback) {
  for (const char* k : keys) {
    if (has(k)) return integer(k, 1, kMaxDimension).value_or(1);
  }
  if (fallback) return *fallback;
  errors_.push_back({error_code::missing_field, field(*keys.begin()),
                     field(*keys.begin()) + " is required for this model_type and is missing",
                     {{"reason", "config_key_required"}}});
  ok_ = false;
  return 1;
}

std::int64_t ConfigFields::optional_size(const char* key, std::int64_t fallback, double min, double max) {
  if (!has(key)) return fallback;
  return integer(key, min, max).value_or(fallback);
}

bool ConfigFields::flag(const char* key, bool fallback) {
  const HfValue* v = config_.find(key);
  if (!v) return fallback;
  if (v->kind != HfValue::Kind::boolean) {
    type_error(key, "true or false", "boolean", *v);
    return fallback;
  }
  return v->boolean;
}

double ConfigFields::number(const char* key, double fallback, double min, double max) {
  const HfValue* v = config_.find(key);
  if (!v) return fallback;
  if (v->kind != HfValue::Kind::number) {
    type_error(key, "a number", "number", *v);
    return fallback;
  }
  if (!std::isfinite(v->number) || v->number < min || v->number > max) {
    errors_.push_back({error_code::out_of_range, field(key),
                       field(key) + " = " + v->shown + " is out of range (>= " + number_text(min) + " and <= " +
                           number_text(max) + ")"});
    ok_ = false;
    return fallback;
  }
  return v->number;
}

double ConfigFields::probability(const char* key, double fallback) { return number(key, fallback, 0, 1); }

std::string ConfigFields::text(const char* key, const std::string& fallback) {
  const HfValue* v = config_.find(key);
  if (!v) return fallback;
  if (v->kind != HfValue::Kind::string) {
    type_error(key, "a string", "string", *v);
    return fallback;
  }
  return v->text;
}

std::vector<std::int64_t> ConfigFields::integer_list(const char* key) {
  std::vector<std::int64_t> out;
  const HfValue* v = config_.find(key);
  if (!v) return out;
  if (v->kind != HfValue::Kind::list) {
    type_error(key, "a list of layer indices", "array", *v);
    return out;
  }
  if (v->items.size() > kMaxListEntries) {
    errors_.push_back({error_code::out_of_range, field(key),
                       field(key) + " has " + std::to_string(v->items.size()) + " entries; the limit is " +
                           std::to_string(kMaxListEntries)});
    ok_ = false;
    return out;
  }
  for (std::size_t i = 0; i < v->items.size(); ++i) {
    const HfValue& x = v->items[i];
    if (x.kind != HfValue::Kind::number || std::floor(x.number) != x.number || std::fabs(x.number) > kMaxExactInteger) {
      // The entry that is not a layer index, at its own path.
      const std::string path = field(key) + "." + std::to_string(i);
      const bool scalar = x.kind != HfValue::Kind::list && x.kind != HfValue::Kind::object;
      if (x.kind == HfValue::Kind::number)
        errors_.push_back({error_code::not_integer, path, path + " must be a layer index (a whole number), got " + x.shown,
                           {{"value", x.shown}}});
      else
        errors_.push_back({error_code::wrong_type, path,
                           path + " must be a layer index (an integer), got " + x.type_name() + (scalar ? " " + x.shown : ""),
                           scalar ? Params{{"expected", "integer"}, {"got", x.type_name()}, {"value", x.shown}}
                                  : Params{{"expected", "integer"}, {"got", x.type_name()}}});
      ok_ = false;
      return {};
    }
    out.push_back(static_cast<std::int64_t>(x.number));
  }
  return out;
}

const HfConfig* ConfigFields::object(const char* key) {
  const HfValue* v = config_.find(key);
  if (!v) return nullptr;
  if (v->kind != HfValue::Kind::object) {
    errors_.push_back({error_code::wrong_type, field(key),
                       field(key) + " must be an object, got " + v->type_name()});
    ok_ = false;
    return nullptr;
  }
  return v->object.get();
}

void ConfigFields::fail(const std::string& key, const char* code, const std::string& message, Params params) {
  errors_.push_back({code, field(key), message, std::move(params)});
  ok_ = false;
}

bool ConfigFields::within_parameter_limit(const std::string& key, double parameters) {
  if (parameters <= 1e15) return true;
  fail(key, error_code::out_of_range, field(key) + " describes a part of more than 1e15 parameters; the limit is 1e15", {{"limit", 1e15}});
  return false;
}

}  // namespace trainmem::architectures
