// Fuzz target: geometry profiles (JSON), loaded the way the filter, diskemu and the CLI
// load them (load_model on a .json path: parse, validate, build the disk model), then
// asked one access time so a model that loads is also usable.
// Documented failure: ModelError. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "predictor/device_model.hpp"

namespace {

// One scratch file per process: load_model takes a path ending in ".json".
std::string make_scratch() {
  std::string p = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                  "/disksched-fuzz-profile-XXXXXX.json";
  const int fd = mkstemps(p.data(), 5);
  if (fd < 0) std::abort();
  close(fd);
  return p;
}

const std::string& scratch_path() {
  static const std::string path = make_scratch();
  // Registered after `path` is built, so it runs before `path` is destroyed (exit
  // handlers run in reverse order); registered inside the initializer it ran after,
  // on a destroyed string, and every run left its file behind.
  static const bool removed_at_exit = std::atexit([] { unlink(path.c_str()); }) == 0;
  (void)removed_at_exit;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  try {
    const auto model = disksched::load_model(path);
    // The first and the last sector: the ends of the zone table and the defect list.
    const std::uint64_t sector = model->sector_bytes();
    const auto start = model->initial_state();
    (void)model->service(start, disksched::Op::Read, 0, static_cast<std::uint32_t>(sector));
    (void)model->service(start, disksched::Op::Write, model->capacity_bytes() - sector,
                         static_cast<std::uint32_t>(sector));
  } catch (const disksched::ModelError&) {
  }
  return 0;
}
