#include "predictor/import/disksim_overrides.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace disksched::disksim {
namespace {

// `name` split into its leading part and trailing digits (libparam's dumb_split).
std::pair<std::string, long> split_number(const std::string& name) {
  std::size_t c = name.size();
  while (c > 0 && std::isdigit(static_cast<unsigned char>(name[c - 1]))) --c;
  const long n = c < name.size() ? std::strtol(name.c_str() + c, nullptr, 10) : -1;
  return {name.substr(0, c), n};
}

// Does the component pattern `range` name the instance `name`? (libparam's range_match:
// the name itself, `*`, `prefix*` for prefix followed by digits or nothing, `a3 .. a7`.)
bool range_match(const std::string& range, const std::string& name) {
  if (range == name || range == "*") return true;
  const auto dots = range.find(" .. ");
  if (dots == std::string::npos) {
    return range.size() == split_number(name).first.size() + 1 && range.back() == '*' &&
           range.compare(0, range.size() - 1, split_number(name).first) == 0;
  }
  const auto [base1, i1] = split_number(range.substr(0, dots));
  const auto [base2, i2] = split_number(range.substr(dots + 4));
  const auto [base3, i3] = split_number(name);
  return base1 == base2 && base3 == base2 && i1 >= 0 && i2 >= i1 && i3 >= i1 && i3 <= i2;
}

[[noreturn]] void fail(const Override& o, const std::string& what) {
  throw ParamError(fmt::format("--set '{}': {}", o.spec, what));
}

// The value replacing `p`'s, checked as DiskSim's override can take it: a number for a
// number, a word (or a number, as text) for a word.
Value replacement(const Override& o, const Param& p) {
  Value v = o.value;
  switch (p.value.kind) {
    case Value::Kind::Number:
      if (v.kind != Value::Kind::Number)
        fail(o, fmt::format("'{}' ({}) is a number, not {}", p.key, p.where.str(), v.describe()));
      return v;
    case Value::Kind::Word:
      if (v.kind == Value::Kind::Number) v.kind = Value::Kind::Word;  // its text, v.word
      if (v.kind != Value::Kind::Word)
        fail(o, fmt::format("'{}' ({}) is a word, not {}", p.key, p.where.str(), v.describe()));
      return v;
    default:
      fail(o, fmt::format("'{}' ({}) is {}: only numbers and words can be overridden (as in "
                          "DiskSim 4.0)",
                          p.key, p.where.str(), p.value.describe()));
  }
}

// A copy of `b` with the override applied (one level down for `outer:inner`).
std::shared_ptr<Block> overridden(const Block& b, const Override& o) {
  auto copy = std::make_shared<Block>(b);
  const std::string want = normalize_key(o.key);
  for (Param& p : copy->params) {
    if (normalize_key(p.key) != want) continue;
    if (o.inner.empty()) {
      p.value = replacement(o, p);
      return copy;
    }
    if (p.value.kind != Value::Kind::Block)
      fail(o, fmt::format("'{}' ({}) is {}, not a block to look into for '{}'", p.key,
                          p.where.str(), p.value.describe(), o.inner));
    Override in = o;
    in.key = o.inner;
    in.inner.clear();
    p.value.block = overridden(*p.value.block, in);
    return copy;
  }
  const std::string what = b.name.empty() ? b.type : b.type + " " + b.name;
  fail(o, fmt::format("the block {} ({}) has no key '{}'", what, b.where.str(), o.key));
}

}  // namespace

Override parse_override(const std::string& spec) {
  Override o;
  o.spec = spec;
  const auto colon = spec.find(':');
  const auto eq = spec.find('=');
  if (colon == std::string::npos || eq == std::string::npos || eq < colon || colon == 0 ||
      eq == colon + 1)
    throw ParamError(fmt::format("--set '{}': expected COMPONENT:KEY=VALUE (e.g. 'disk0:Enable "
                                 "caching in buffer=0')",
                                 spec));
  o.component = spec.substr(0, colon);
  o.key = spec.substr(colon + 1, eq - colon - 1);
  if (const auto inner = o.key.find(':'); inner != std::string::npos) {
    o.inner = o.key.substr(inner + 1);
    o.key.resize(inner);
    if (normalize_key(o.key).empty() || normalize_key(o.inner).empty())
      throw ParamError(fmt::format("--set '{}': expected KEY or BLOCK KEY:KEY before '='", spec));
  }
  if (normalize_key(o.key).empty())
    throw ParamError(fmt::format("--set '{}': expected a key before '='", spec));
  // The value read as the file's values are: a number, a word, ...
  const std::string text = fmt::format("set X {{ v = {} }}", spec.substr(eq + 1));
  ParamFile f;
  try {
    f = parse_text(text, fmt::format("--set '{}'", spec), "");
  } catch (const ParamError&) {
    throw ParamError(fmt::format("--set '{}': expected a number or a word after '='", spec));
  }
  if (f.blocks.size() != 1 || f.blocks[0]->params.size() != 1)
    throw ParamError(fmt::format("--set '{}': expected one value after '='", spec));
  o.value = f.blocks[0]->params[0].value;
  return o;
}

void apply_overrides(ParamFile& file, const std::vector<Override>& overrides) {
  for (const Override& o : overrides) {
    std::vector<std::string> targets;  // block names, by instance (or by their own name)
    std::vector<std::string> instances;
    for (const Instantiation& inst : file.instances)
      for (const std::string& n : inst.names) {
        instances.push_back(n);
        if (range_match(o.component, n)) targets.push_back(inst.as);
      }
    if (file.instances.empty())
      for (const auto& b : file.blocks)
        if (range_match(o.component, b->name)) targets.push_back(b->name);
    if (targets.empty()) {
      std::vector<std::string> names = instances;
      if (file.instances.empty())
        for (const auto& b : file.blocks) names.push_back(b->name);
      fail(o, fmt::format("no component named '{}' in {} (it has: {})", o.component,
                          file.files.empty() ? std::string("the file") : file.files.front(),
                          names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    std::vector<std::string> done;
    for (const std::string& name : targets) {
      const std::string key = normalize_key(name);
      if (std::find(done.begin(), done.end(), key) != done.end()) continue;
      done.push_back(key);
      auto it = std::find_if(file.blocks.begin(), file.blocks.end(),
                             [&](const auto& b) { return normalize_key(b->name) == key; });
      if (it == file.blocks.end())
        fail(o, fmt::format("'{}' is instantiated as {}, which the file does not define",
                            o.component, name));
      *it = overridden(**it, o);
    }
  }
}

}  // namespace disksched::disksim
