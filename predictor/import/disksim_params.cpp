#include "predictor/import/disksim_params.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include <fmt/format.h>

namespace disksched::disksim {
namespace {

// DiskSim stops at 32 open files; a file that sources itself would never end.
constexpr std::size_t kMaxSourceDepth = 32;
// The largest parameter file read (real ones are a few hundred KiB at most).
constexpr std::size_t kMaxFileBytes = std::size_t{64} << 20;
// Lists and blocks inside one another: the deepest real file has five levels.
constexpr int kMaxNesting = 64;

struct Token {
  enum class T { End, LBrace, RBrace, LBrak, RBrak, Comma, Equal, DotDot, Number, Word,
                 Topology, Instantiate, As, Stray };
  T t = T::End;
  std::string text;
  double number = 0;
  bool integer = false;
  Where where;
};

std::string describe(const Token& tok) {
  using T = Token::T;
  switch (tok.t) {
    case T::End: return "the end of the input";
    case T::Number: return fmt::format("the number {}", tok.text);
    case T::Word: return fmt::format("the word '{}'", tok.text);
    case T::Topology: case T::Instantiate: case T::As:
      return fmt::format("the keyword '{}'", tok.text);
    default: return fmt::format("'{}'", tok.text);
  }
}

// Characters that end a word (libparam's lexer): blanks and the punctuation it knows.
bool word_char(char c) {
  return std::strchr(" \t\r\n\f;{},[]:?=", c) == nullptr && c != '\0';
}

bool all_digits(std::string_view s, bool hex) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
      return false;
  return true;
}

// A number as libparam reads one: -?digits, -?0xHEX, or -?digits.digits with an optional
// exponent (the exponent's sign may be left out here). Anything else is a word.
bool as_number(std::string_view s, double& value, bool& integer) {
  std::string_view body = s.substr(!s.empty() && s[0] == '-' ? 1 : 0);
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    if (!all_digits(body.substr(2), true)) return false;
    value = static_cast<double>(std::strtoull(std::string(body.substr(2)).c_str(), nullptr, 16));
    if (s[0] == '-') value = -value;
    integer = true;
    return true;
  }
  const auto dot = body.find('.');
  const auto e = body.find_first_of("eE");
  std::string_view whole = body.substr(0, std::min(dot, e));
  if (!all_digits(whole, false)) return false;
  if (dot != std::string_view::npos) {
    if (e != std::string_view::npos && e < dot) return false;
    if (!all_digits(body.substr(dot + 1, e == std::string_view::npos ? std::string_view::npos : e - dot - 1), false))
      return false;
  }
  if (e != std::string_view::npos) {
    if (dot == std::string_view::npos) return false;  // "1e5" is a word to libparam
    std::string_view exp = body.substr(e + 1);
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.remove_prefix(1);
    if (!all_digits(exp, false)) return false;
  }
  integer = dot == std::string_view::npos;
  value = std::strtod(std::string(s).c_str(), nullptr);
  return true;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// The text of the regular file `path`, or a reason it cannot be had (empty on success).
// A FIFO, a device or /dev/zero would hang or grow without end, so only regular files of
// at most kMaxFileBytes are read.
std::string read_whole(const std::string& path, std::string& text) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "it is a directory, not a parameter file";
  if (!S_ISREG(st.st_mode))
    return "it is not a regular file (a FIFO, a socket or a device): expected a parameter file";
  if (st.st_size > static_cast<off_t>(kMaxFileBytes))
    return fmt::format("it holds {} bytes: expected a parameter file of at most {} MiB",
                       st.st_size, kMaxFileBytes >> 20);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::strerror(errno);
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes)  // it grew since stat()
      return fmt::format("it holds more than {} MiB: expected a parameter file", kMaxFileBytes >> 20);
  }
  return {};
}

// The file's identity, to see a file that sources itself however it is named.
std::pair<dev_t, ino_t> identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {st.st_dev, st.st_ino};
}

// Tokens from a stack of sources: `source FILE` pushes FILE, its end pops it.
class Lexer {
 public:
  Lexer(std::string text, const std::string& name, std::string dir, std::vector<std::string>& files)
      : files_(files) {
    const auto id = dir.empty() ? std::pair<dev_t, ino_t>{0, 0} : identity(name);
    stack_.push_back({std::move(text), name, std::move(dir), 0, 1, id});
    files_.push_back(name);
  }

  const Token& peek(std::size_t k = 0) {
    while (ahead_.size() <= k) ahead_.push_back(scan());
    return ahead_[k];
  }
  Token next() {
    peek();
    Token t = std::move(ahead_.front());
    ahead_.pop_front();
    return t;
  }

 private:
  struct Source {
    std::string text, name, dir;
    std::size_t pos;
    int line;
    std::pair<dev_t, ino_t> id;  // {0, 0}: not a file on disk
  };

  // Skips blanks and comments; pops finished sources. False at the very end.
  bool skip() {
    for (;;) {
      Source& s = stack_.back();
      while (s.pos < s.text.size()) {
        const char c = s.text[s.pos];
        if (c == '\n') {
          ++s.line, ++s.pos;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
          ++s.pos;
        } else if (c == '#') {
          while (s.pos < s.text.size() && s.text[s.pos] != '\n') ++s.pos;
        } else {
          return true;
        }
      }
      if (stack_.size() == 1) return false;
      stack_.pop_back();
    }
  }

  std::string word() {
    Source& s = stack_.back();
    const std::size_t start = s.pos;
    while (s.pos < s.text.size() && word_char(s.text[s.pos])) ++s.pos;
    return s.text.substr(start, s.pos - start);
  }

  void include(const Where& at) {
    const bool more = skip();
    Source& s = stack_.back();
    if (!more || !word_char(s.text[s.pos]))
      throw ParamError(fmt::format("{}: expected a file name after 'source'", at.str()));
    const std::string file = word();
    if (stack_.front().dir.empty())
      throw ParamError(fmt::format("{}: 'source {}': this input cannot include files", at.str(), file));
    if (stack_.size() >= kMaxSourceDepth)
      throw ParamError(fmt::format("{}: 'source {}': files sourced {} deep (does a file source "
                                   "itself?); expected at most {}",
                                   at.str(), file, stack_.size(), kMaxSourceDepth - 1));
    const std::string path = file[0] == '/' ? file : stack_.back().dir + "/" + file;
    std::string text;
    if (const std::string why = read_whole(path, text); !why.empty())
      throw ParamError(fmt::format("{}: 'source {}': cannot read {}: {}", at.str(), file, path, why));
    const auto id = identity(path);
    for (const Source& open : stack_)
      if (open.id == id)
        throw ParamError(fmt::format("{}: 'source {}': {} is already being read (it sources "
                                     "itself, through {}): expected files that do not source "
                                     "one another in a cycle",
                                     at.str(), file, path, open.name));
    files_.push_back(path);
    stack_.push_back({std::move(text), path, dir_of(path), 0, 1, id});
  }

  Token scan() {
    using T = Token::T;
    for (;;) {
      Token tok;
      if (!skip()) {
        tok.where = {stack_.back().name, stack_.back().line};
        return tok;
      }
      Source& s = stack_.back();
      tok.where = {s.name, s.line};
      const char c = s.text[s.pos];
      const char* punct = "{}[],=";
      if (const char* p = std::strchr(punct, c); p != nullptr && c != '\0') {
        static constexpr T kinds[] = {T::LBrace, T::RBrace, T::LBrak, T::RBrak, T::Comma, T::Equal};
        tok.t = kinds[p - punct];
        tok.text = std::string(1, c);
        ++s.pos;
        return tok;
      }
      if (!word_char(c)) {  // ; : ? and control characters: libparam has no use for them here
        tok.t = T::Stray;
        tok.text = std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c)
                                                               : fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        ++s.pos;
        return tok;
      }
      tok.text = word();
      if (tok.text == "source") {
        include(tok.where);
        continue;
      }
      if (tok.text == "..") tok.t = T::DotDot;
      else if (tok.text == "topology") tok.t = T::Topology;
      else if (tok.text == "instantiate") tok.t = T::Instantiate;
      else if (tok.text == "as") tok.t = T::As;
      else if (as_number(tok.text, tok.number, tok.integer)) tok.t = T::Number;
      else tok.t = T::Word;
      return tok;
    }
  }

  std::vector<Source> stack_;
  std::deque<Token> ahead_;
  std::vector<std::string>& files_;
};

class Parser {
 public:
  Parser(Lexer& lex) : lex_(lex) {}

  void file(ParamFile& out) {
    using T = Token::T;
    for (;;) {
      const Token& t = lex_.peek();
      if (t.t == T::End) return;
      if (t.t == T::Topology) {
        lex_.next();
        out.topologies.push_back(topology(0));
      } else if (t.t == T::Instantiate) {
        out.instances.push_back(instantiate());
      } else if (t.t == T::Word) {
        auto b = std::make_shared<Block>(named_block(0));
        if (const Block* first = out.find_block(b->name))
          // DiskSim 4.0 keeps the first and warns ("ignoring redefinition"); a file that
          // means the second would be misread, so it is refused here.
          throw ParamError(fmt::format("{}: block {} is defined a second time (first at {}): "
                                       "expected each name defined once (DiskSim 4.0 would "
                                       "ignore this definition and keep the first)",
                                       b->where.str(), b->name, first->where.str()));
        out.blocks.push_back(std::move(b));
      } else {
        fail(t, "a block definition 'type Name { ... }', 'source FILE', 'instantiate [ ... ] as "
                "Name' or 'topology ...'");
      }
    }
  }

 private:
  using T = Token::T;

  [[noreturn]] static void fail(const Token& t, const std::string& expected) {
    throw ParamError(fmt::format("{}: expected {}, found {}", t.where.str(), expected, describe(t)));
  }
  Token expect(T kind, const std::string& expected) {
    if (lex_.peek().t != kind) fail(lex_.peek(), expected);
    return lex_.next();
  }
  void deeper(int depth, const Token& at) {
    if (depth > kMaxNesting)
      throw ParamError(fmt::format("{}: nested deeper than {} levels: expected blocks and lists "
                                   "a few levels deep",
                                   at.where.str(), kMaxNesting));
  }

  Instantiation instantiate() {
    Instantiation inst;
    inst.where = lex_.next().where;
    const Value names = list(0);
    for (const Value& v : names.items) {
      if (v.kind == Value::Kind::Word) {
        inst.names.push_back(v.word);
      } else if (v.kind == Value::Kind::Range) {
        inst.names.push_back(v.word);
        inst.names.push_back(v.word_to);
      } else {
        throw ParamError(fmt::format("{}: expected instance names in 'instantiate [ ... ]', found {}",
                                     v.where.str(), v.describe()));
      }
    }
    expect(T::As, "'as' after 'instantiate [ ... ]'");
    inst.as = expect(T::Word, "the name of a block definition after 'as'").text;
    return inst;
  }

  // type name [ type name [ ... ], ... ]
  Topology topology(int depth) {
    deeper(depth, lex_.peek());
    Topology top;
    top.where = lex_.peek().where;
    top.type = expect(T::Word, "a component type in the topology (e.g. disksim_bus)").text;
    top.name = expect(T::Word, "a component name after its type in the topology").text;
    expect(T::LBrak, "'[' with the components below " + top.name);
    while (lex_.peek().t != T::RBrak) {
      top.children.push_back(topology(depth + 1));
      if (lex_.peek().t == T::Comma) lex_.next();
      else if (lex_.peek().t != T::RBrak) fail(lex_.peek(), "',' or ']' in the topology");
    }
    lex_.next();
    return top;
  }

  // type Name { params }
  Block named_block(int depth) {
    Block b;
    b.where = lex_.peek().where;
    b.type = expect(T::Word, "a block type").text;
    b.name = expect(T::Word, fmt::format("a name after the block type '{}'", b.type)).text;
    expect(T::LBrace, fmt::format("'{{' to open block {} {}", b.type, b.name));
    params(b, depth + 1);
    return b;
  }

  // Key = value, ... } (the closing brace is consumed).
  void params(Block& b, int depth) {
    deeper(depth, lex_.peek());
    for (;;) {
      const Token& t = lex_.peek();
      if (t.t == T::RBrace) {
        lex_.next();
        return;
      }
      if (t.t == T::LBrak) {  // [ a, b ] = value: the same value for several keys
        const Where at = t.where;
        const Value keys = list(depth);
        expect(T::Equal, "'=' after a list of keys");
        const Value v = value(depth);
        for (const Value& k : keys.items) {
          if (k.kind != Value::Kind::Word)
            throw ParamError(fmt::format("{}: expected keys in '[ ... ] = value', found {}",
                                         k.where.str(), k.describe()));
          b.params.push_back({k.word, v, at});
        }
      } else {
        Param p;
        p.where = t.where;
        if (t.t != T::Word)
          fail(t, fmt::format("a key ('Name of key = value') or '}}' to close block {}",
                              b.name.empty() ? b.type : b.name));
        while (lex_.peek().t == T::Word) {
          if (!p.key.empty()) p.key += ' ';
          p.key += lex_.next().text;
        }
        expect(T::Equal, fmt::format("'=' after the key '{}'", p.key));
        p.value = value(depth);
        b.params.push_back(std::move(p));
      }
      const Token& sep = lex_.peek();
      if (sep.t == T::Comma) lex_.next();
      else if (sep.t != T::RBrace)
        fail(sep, fmt::format("',' or '}}' after the value of '{}'",
                              b.params.empty() ? std::string() : b.params.back().key));
    }
  }

  Value list(int depth) {
    deeper(depth, lex_.peek());
    Value v;
    v.kind = Value::Kind::List;
    v.where = expect(T::LBrak, "'['").where;
    for (;;) {
      const Token& t = lex_.peek();
      if (t.t == T::RBrak) break;
      if (t.t == T::Comma) {  // an empty item: libparam skips it
        lex_.next();
        continue;
      }
      if (t.t == T::Word && lex_.peek(1).t == T::DotDot) {
        Value r;
        r.kind = Value::Kind::Range;
        r.where = t.where;
        r.word = lex_.next().text;
        lex_.next();
        r.word_to = expect(T::Word, fmt::format("the last name of the range '{} ..'", r.word)).text;
        v.items.push_back(std::move(r));
      } else {
        v.items.push_back(value(depth + 1));
      }
      if (lex_.peek().t == T::Comma) lex_.next();
      else if (lex_.peek().t != T::RBrak) fail(lex_.peek(), "',' or ']' in a list");
    }
    lex_.next();
    return v;
  }

  Value value(int depth) {
    deeper(depth, lex_.peek());
    const Token& t = lex_.peek();
    Value v;
    v.where = t.where;
    switch (t.t) {
      case T::Number: {
        Token n = lex_.next();
        v.kind = Value::Kind::Number;
        v.number = n.number;
        v.integer = n.integer;
        v.word = n.text;
        return v;
      }
      case T::LBrak: return list(depth);
      case T::Word: {
        const T second = lex_.peek(1).t;
        if (second == T::LBrace) {  // type { ... }
          auto b = std::make_shared<Block>();
          b->where = t.where;
          b->type = lex_.next().text;
          lex_.next();
          params(*b, depth + 1);
          v.kind = Value::Kind::Block;
          v.block = std::move(b);
          return v;
        }
        if (second == T::Word && lex_.peek(2).t == T::LBrace) {  // type Name { ... }
          v.kind = Value::Kind::Block;
          v.block = std::make_shared<Block>(named_block(depth));
          return v;
        }
        if (second == T::Word && lex_.peek(2).t == T::LBrak) {  // type name [ ... ]
          v.kind = Value::Kind::Topology;
          v.topology = std::make_shared<Topology>(topology(depth + 1));
          return v;
        }
        v.kind = Value::Kind::Word;
        v.word = lex_.next().text;
        return v;
      }
      default:
        fail(t, "a value (a number, a word, '[ list ]', 'type { block }' or 'source FILE')");
    }
  }

  Lexer& lex_;
};

ParamFile parse(std::string text, const std::string& name, const std::string& dir) {
  ParamFile out;
  Lexer lex(std::move(text), name, dir, out.files);
  Parser(lex).file(out);
  return out;
}

}  // namespace

std::string Value::describe() const {
  switch (kind) {
    case Kind::Number: return fmt::format("the number {}", word);
    case Kind::Word: return fmt::format("the word '{}'", word);
    case Kind::List: return fmt::format("a list of {}", items.size());
    case Kind::Range: return fmt::format("the range '{} .. {}'", word, word_to);
    case Kind::Block: return fmt::format("a {} block", block->type);
    case Kind::Topology: return "a topology";
  }
  return "a value";
}

std::string normalize_key(std::string_view key) {
  std::string out;
  bool blank = false;
  for (char c : key) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const Param* Block::find(std::string_view key) const {
  const std::string want = normalize_key(key);
  for (const Param& p : params)
    if (normalize_key(p.key) == want) return &p;
  return nullptr;
}

const Block* ParamFile::find_block(std::string_view name) const {
  const std::string want = normalize_key(name);
  for (const auto& b : blocks)
    if (normalize_key(b->name) == want) return b.get();
  return nullptr;
}

ParamFile parse_file(const std::string& path) {
  std::string text;
  if (const std::string why = read_whole(path, text); !why.empty())
    throw ParamError(fmt::format("{}: cannot read the file: {}", path, why));
  return parse(std::move(text), path, dir_of(path));
}

ParamFile parse_text(std::string_view text, const std::string& name, const std::string& dir) {
  return parse(std::string(text), name, dir);
}

}  // namespace disksched::disksim
