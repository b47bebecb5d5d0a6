#include "tools/extract/progress.hpp"

#include <algorithm>
#include <cmath>
#include <unistd.h>

#include <fmt/format.h>

namespace disksched::extract {
namespace {

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

Progress::Progress(std::FILE* out, std::vector<std::string> steps)
    : out_(out), tty_(out && isatty(fileno(out))), steps_(std::move(steps)) {}

void Progress::step(const std::string& name) {
  auto it = std::find(steps_.begin(), steps_.end(), name);
  current_ = it == steps_.end() ? current_ : static_cast<std::size_t>(it - steps_.begin());
  fraction_ = 0.0;
  last_permille_ = -1;
  if (out_ && !tty_) {
    std::fputs(fmt::format("extract: [{}/{}] {} (elapsed {}, budget left {})\n", current_ + 1,
                           steps_.size(), steps_[current_], clock_text(elapsed_ / 1000.0),
                           clock_text(std::max(0.0, budget_ - elapsed_) / 1000.0))
                   .c_str(),
               out_);
    std::fflush(out_);
    return;
  }
  draw();
}

void Progress::update(double fraction, Millis elapsed_ms, Millis budget_ms) {
  fraction_ = std::clamp(fraction, 0.0, 1.0);
  elapsed_ = elapsed_ms;
  budget_ = budget_ms;
  const int permille = static_cast<int>(fraction_ * 1000);
  const long second = static_cast<long>(elapsed_ms / 1000.0);
  if (permille / 10 == last_permille_ / 10 && second == last_second_) return;
  last_permille_ = permille;
  last_second_ = second;
  draw();
}

void Progress::note(const std::string& line) {
  if (!out_) return;
  if (tty_ && drawn_) std::fputs("\r\033[K", out_);
  std::fputs(line.c_str(), out_);
  std::fputc('\n', out_);
  drawn_ = false;
  draw();
}

void Progress::draw() {
  if (!out_ || !tty_ || steps_.empty()) return;
  constexpr int kWidth = 24;
  const int full = static_cast<int>(std::lround(fraction_ * kWidth));
  std::string bar(static_cast<std::size_t>(full), '#');
  bar.resize(kWidth, '.');
  const double left = std::max(0.0, (budget_ - elapsed_) / 1000.0);
  std::fputs(fmt::format("\r\033[K[{}/{}] {:<10} [{}] {:3.0f}%  elapsed {}  left <= {}",
                         current_ + 1, steps_.size(), steps_[current_], bar, fraction_ * 100,
                         clock_text(elapsed_ / 1000.0), clock_text(left))
                 .c_str(),
             out_);
  std::fflush(out_);
  drawn_ = true;
}

void Progress::finish() {
  if (out_ && drawn_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
  drawn_ = false;
}

}  // namespace disksched::extract
