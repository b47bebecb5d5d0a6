#include "common/progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace disksched {

ProgressLine::ProgressLine(std::FILE* out) : out_(out), tty_(out && isatty(fileno(out))) {}

void ProgressLine::draw(std::string_view head, double fraction, std::string_view tail, int width) {
  if (!out_ || !tty_) return;
  fraction = std::clamp(fraction, 0.0, 1.0);
  std::string bar(static_cast<std::size_t>(std::lround(fraction * width)), '#');
  bar.resize(static_cast<std::size_t>(width), '.');
  std::fputs(fmt::format("\r\033[K{} [{}] {:3.0f}%  {}", head, bar, fraction * 100, tail).c_str(),
             out_);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::print(std::string_view line) {
  if (!out_) return;
  if (drawn_) std::fputs("\r\033[K", out_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fputc('\n', out_);
  std::fflush(out_);
  drawn_ = false;
}

void ProgressLine::finish() {
  if (out_ && drawn_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
  drawn_ = false;
}

}  // namespace disksched
