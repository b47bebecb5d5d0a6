#include "tools/extract/progress.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace disksched::extract {
namespace {

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

Progress::Progress(std::FILE* out, std::vector<std::string> steps)
    : line_(out), steps_(std::move(steps)) {}

void Progress::step(const std::string& name, Millis elapsed_ms, Millis budget_ms) {
  elapsed_ = elapsed_ms;
  budget_ = budget_ms;
  last_second_ = static_cast<long>(elapsed_ms / 1000.0);
  auto it = std::find(steps_.begin(), steps_.end(), name);
  current_ = it == steps_.end() ? current_ : static_cast<std::size_t>(it - steps_.begin());
  fraction_ = 0.0;
  last_permille_ = -1;
  if (line_.enabled() && !line_.tty()) {
    line_.print(fmt::format("extract: [{}/{}] {} (elapsed {}, budget left {})", current_ + 1,
                            steps_.size(), steps_[current_], clock_text(elapsed_ / 1000.0),
                            clock_text(std::max(0.0, budget_ - elapsed_) / 1000.0)));
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
  line_.print(line);
  draw();
}

void Progress::draw() {
  if (steps_.empty()) return;
  const double left = std::max(0.0, (budget_ - elapsed_) / 1000.0);
  line_.draw(fmt::format("[{}/{}] {:<10}", current_ + 1, steps_.size(), steps_[current_]),
             fraction_,
             fmt::format("elapsed {}  left <= {}", clock_text(elapsed_ / 1000.0), clock_text(left)));
}

void Progress::finish() { line_.finish(); }

}  // namespace disksched::extract
