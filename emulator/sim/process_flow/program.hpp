// What a process does, one step at a time: compute, touch a file block through the
// buffer cache, create a file, or (for hand-made cases) issue a raw request and later
// wait for it. The simulator asks for the next step whenever the previous one is done.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "predictor/device_model.hpp"
#include "schedulers/request.hpp"

namespace disksched::flow {

struct Step {
  enum class Kind {
    Compute,  // use the CPU for `ms`
    Read,     // read block `block` of file `file` through the cache (FFS read-ahead)
    Write,    // write block `block` of file `file` into the cache (a delayed write)
    Create,   // create file `file`: one time-critical write of its inode block
    Io,       // a raw request (op, offset, length, cls) named `tag`: TC blocks at once,
              // TL and TNC do not
    Need,     // block until raw request `tag` is done (a TL request's limit ends here)
    Exit,
  };
  Kind kind = Kind::Exit;
  Millis ms = 0.0;
  std::uint32_t file = 0;
  std::uint64_t block = 0;
  Op op = Op::Read;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  IoClass cls = IoClass::TimeCritical;
  std::uint64_t tag = 0;

  static Step compute(Millis ms) { Step s; s.kind = Kind::Compute; s.ms = ms; return s; }
  static Step read(std::uint32_t file, std::uint64_t block) {
    Step s; s.kind = Kind::Read; s.file = file; s.block = block; return s;
  }
  static Step write(std::uint32_t file, std::uint64_t block) {
    Step s; s.kind = Kind::Write; s.file = file; s.block = block; return s;
  }
  static Step create(std::uint32_t file) { Step s; s.kind = Kind::Create; s.file = file; return s; }
  static Step io(std::uint64_t tag, IoClass cls, Op op, std::uint64_t offset, std::uint32_t length) {
    Step s; s.kind = Kind::Io; s.tag = tag; s.cls = cls; s.op = op; s.offset = offset; s.length = length;
    return s;
  }
  static Step need(std::uint64_t tag) { Step s; s.kind = Kind::Need; s.tag = tag; return s; }
  static Step exit() { return Step{}; }
};

class Program {
 public:
  virtual ~Program() = default;
  // The next step; Exit ends the process (and is returned again if asked).
  virtual Step next() = 0;
};

// A fixed list of steps, then Exit.
class ScriptProgram final : public Program {
 public:
  explicit ScriptProgram(std::vector<Step> steps) : steps_(std::move(steps)) {}
  Step next() override { return pos_ < steps_.size() ? steps_[pos_++] : Step::exit(); }

 private:
  std::vector<Step> steps_;
  std::size_t pos_ = 0;
};

}  // namespace disksched::flow
