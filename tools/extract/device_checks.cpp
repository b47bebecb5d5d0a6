#include "tools/extract/device_checks.hpp"

#include <fcntl.h>
#include <linux/hdreg.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace disksched::extract {
namespace fsys = std::filesystem;

namespace {

std::string read_text(const fsys::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::vector<std::string> mounts_of(const std::string& mountinfo, const std::set<std::string>& devices) {
  std::vector<std::string> out;
  std::istringstream in(mountinfo);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, dev, root, point;
    if (!(f >> id >> parent >> dev >> root >> point)) continue;
    if (devices.count(dev)) out.push_back(point);
  }
  return out;
}

std::vector<std::string> device_users(const std::string& path) {
  std::vector<std::string> reasons;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return reasons;
  const std::string id = fmt::format("{}:{}", major(st.st_rdev), minor(st.st_rdev));
  const fsys::path sys = fsys::path("/sys/dev/block") / id;
  // The device and its partitions, by "major:minor" and by kernel name.
  std::set<std::string> ids{id};
  std::vector<std::pair<std::string, fsys::path>> nodes;
  std::error_code ec;
  const fsys::path real = fsys::canonical(sys, ec);
  if (!ec) {
    nodes.emplace_back(real.filename().string(), real);
    for (const auto& e : fsys::directory_iterator(real, ec))
      if (fsys::exists(e.path() / "partition")) {
        ids.insert(read_text(e.path() / "dev"));
        nodes.emplace_back(e.path().filename().string(), e.path());
      }
  }
  for (const auto& m : mounts_of(read_text("/proc/self/mountinfo"), ids))
    reasons.push_back(fmt::format("mounted on {}", m));
  for (const auto& [name, node] : nodes) {
    for (const auto& h : fsys::directory_iterator(node / "holders", ec))
      reasons.push_back(fmt::format("{} is held by {}", name, h.path().filename().string()));
  }
  std::istringstream swaps(read_text("/proc/swaps"));
  std::string line;
  std::getline(swaps, line);  // header
  while (std::getline(swaps, line)) {
    std::istringstream f(line);
    std::string file;
    f >> file;
    for (const auto& [name, node] : nodes)
      if (file == "/dev/" + name) reasons.push_back(fmt::format("{} is an active swap area", file));
  }
  return reasons;
}

std::optional<std::vector<std::uint8_t>> ata_identify(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::vector<std::uint8_t> id(512);
  const int rc = ioctl(fd, HDIO_GET_IDENTITY, id.data());
  ::close(fd);
  if (rc != 0) return std::nullopt;
  return id;
}

}  // namespace disksched::extract
