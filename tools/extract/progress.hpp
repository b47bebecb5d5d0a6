// A one-line progress bar on stderr: the current step, how far it is, and the time
// left of the extraction budget (measured on the target's clock).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/progress_line.hpp"
#include "predictor/device_model.hpp"

namespace disksched::extract {

class Progress {
 public:
  // `out` = nullptr disables the bar (tests, --quiet).
  Progress(std::FILE* out, std::vector<std::string> steps);

  // Starts step `name` (one of the steps given to the constructor) at `elapsed_ms` of
  // `budget_ms` (the line printed for it says the time now, not at the last update).
  void step(const std::string& name, Millis elapsed_ms, Millis budget_ms);
  // Fraction of the current step done, elapsed and total budget in ms.
  void update(double fraction, Millis elapsed_ms, Millis budget_ms);
  // A message printed on its own line (the bar is redrawn after it).
  void note(const std::string& line);
  void finish();

 private:
  void draw();

  ProgressLine line_;  // redrawn on a terminal; else a line per step
  std::vector<std::string> steps_;
  std::size_t current_ = 0;
  double fraction_ = 0.0;
  Millis elapsed_ = 0.0, budget_ = 0.0;
  int last_permille_ = -1;
  long last_second_ = -1;
};

}  // namespace disksched::extract
