#include "predictor/import/disksim_keys.hpp"

#include <cmath>

#include <fmt/format.h>

namespace disksched::disksim {

void KeysRead::unread(const Block& b, const std::string& path, std::vector<std::string>& out) const {
  for (const Param& p : b.params) {
    if (!read(&p)) {
      out.push_back(fmt::format("{}: {} ({})", path, p.key, p.where.str()));
      continue;
    }
    // A read block may still hold keys nobody read (a zone's, a nested model's).
    if (p.value.kind == Value::Kind::Block)
      unread(*p.value.block, path + " > " + p.key, out);
    if (p.value.kind == Value::Kind::List)
      for (std::size_t i = 0; i < p.value.items.size(); ++i)
        if (p.value.items[i].kind == Value::Kind::Block)
          unread(*p.value.items[i].block, fmt::format("{} > {}[{}]", path, p.key, i), out);
  }
}

std::string Keys::where() const {
  return b_.name.empty() ? fmt::format("{} block at {}", b_.type, b_.where.str())
                         : fmt::format("{} {} at {}", b_.type, b_.name, b_.where.str());
}

void Keys::fail(const Param& p, const std::string& expected) {
  throw ParamError(fmt::format("{}: '{}': expected {}, found {}", p.value.where.str(), p.key,
                               expected, p.value.describe()));
}

void Keys::fail(const Value& v, const std::string& what, const std::string& expected) {
  throw ParamError(fmt::format("{}: {}: expected {}, found {}", v.where.str(), what, expected,
                               v.describe()));
}

const Param* Keys::find(std::string_view key) const {
  const Param* p = b_.find(key);
  if (p != nullptr) read_.mark(p);
  return p;
}

const Param& Keys::need(std::string_view key, std::string_view expected) const {
  const Param* p = find(key);
  if (p == nullptr)
    throw ParamError(fmt::format("{}: missing '{}': expected {}", where(), key, expected));
  return *p;
}

double list_number(const Value& v, const std::string& what, double lo, double hi, bool integer) {
  const std::string expected = fmt::format("{} in [{}, {}]", integer ? "an integer" : "a number", lo, hi);
  if (v.kind != Value::Kind::Number || (integer && !v.integer) || !std::isfinite(v.number) ||
      v.number < lo || v.number > hi)
    Keys::fail(v, what, expected);
  return v.number;
}

double Keys::number(std::string_view key, double lo, double hi) const {
  const Param& p = need(key, fmt::format("a number in [{}, {}]", lo, hi));
  return list_number(p.value, fmt::format("'{}'", p.key), lo, hi, false);
}

std::optional<double> Keys::number_if(std::string_view key, double lo, double hi) const {
  const Param* p = find(key);
  if (p == nullptr) return std::nullopt;
  return list_number(p->value, fmt::format("'{}'", p->key), lo, hi, false);
}

std::int64_t Keys::integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
  const Param& p = need(key, fmt::format("an integer in [{}, {}]", lo, hi));
  return static_cast<std::int64_t>(list_number(p.value, fmt::format("'{}'", p.key),
                                               static_cast<double>(lo), static_cast<double>(hi), true));
}

std::int64_t Keys::integer_or(std::string_view key, std::int64_t lo, std::int64_t hi,
                              std::int64_t def) const {
  return find(key) == nullptr ? def : integer(key, lo, hi);
}

std::string Keys::word(std::string_view key) const {
  const Param& p = need(key, "a word");
  if (p.value.kind != Value::Kind::Word) fail(p, "a word");
  return p.value.word;
}

const Block& Keys::block(std::string_view key, std::string_view type) const {
  const Param& p = need(key, fmt::format("a {} {{ ... }} block", type));
  if (p.value.kind != Value::Kind::Block || normalize_key(p.value.block->type) != normalize_key(type))
    fail(p, fmt::format("a {} {{ ... }} block", type));
  return *p.value.block;
}

const Value& Keys::list(std::string_view key) const {
  const Param& p = need(key, "a list [ ... ]");
  if (p.value.kind != Value::Kind::List) fail(p, "a list [ ... ]");
  return p.value;
}

}  // namespace disksched::disksim
