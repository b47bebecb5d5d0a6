// The progress bar of long commands (sweeps, repro, extraction): one line on stderr,
// redrawn in place on a terminal; elsewhere only the lines the caller prints.
#pragma once

#include <cstdio>
#include <string_view>

namespace disksched {

class ProgressLine {
 public:
  // `out` = nullptr: silent (tests, --quiet).
  explicit ProgressLine(std::FILE* out);

  bool enabled() const { return out_ != nullptr; }
  // Whether `out` is a terminal, where the bar is drawn; else draw() does nothing.
  bool tty() const { return tty_; }
  // Redraws "HEAD [#####.....] PCT% TAIL" (fraction in [0, 1]).
  void draw(std::string_view head, double fraction, std::string_view tail, int width = 24);
  // Prints `line` on a line of its own (clearing a drawn bar first).
  void print(std::string_view line);
  // Ends a drawn bar's line.
  void finish();

 private:
  std::FILE* out_;
  bool tty_;
  bool drawn_ = false;
};

}  // namespace disksched
