// A paper's claims as rows of data, and the one evaluator that checks a row against
// sweep results and turns it into a Claim (repro.hpp). A row says what the paper
// states, its figure, how close counts, and which kind of check decides.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bench/experiments/repro/repro.hpp"
#include "bench/experiments/sweep/sweep.hpp"

namespace disksched {

// Gain of A over B in the rate sustained at `metric` <= `target_ms` (JW footnote 7),
// agreeing within +-`tolerance` of the paper's `paper` (0.18 = +18%). `also_over`,
// when set, adds A's gain over that algorithm as a note.
struct GainCheck {
  std::string a, b;
  Metric metric = Metric::Mean;
  double target_ms = 0;
  double paper = 0;
  double tolerance = 0;
  std::string also_over;
};

// The least gain of A over B over `targets_ms` is at least `at_least` (-0.05 = -5%).
struct WorstGainCheck {
  std::string a, b;
  Metric metric = Metric::Mean;
  std::vector<double> targets_ms;
  double at_least = 0;
};

// `names` in the paper's increasing order of sustained rate; `relations[i]` ("<" or
// "<=") between names[i] and names[i+1]. "<" needs a 2% gap, "<=" allows 2% less.
// The paper's figure is this order written out; a row's `theirs` is not used.
struct RankingCheck {
  std::vector<std::string> names;
  Metric metric = Metric::Mean;
  double target_ms = 0;
  std::vector<std::string> relations;
};

// The ratio A / B of a per-point metric over the named set of points `at` of the
// named sweep: every ratio > `above` and within [`min`, `max`]. `suffix` follows our
// range ("0.95x..1.10x" + suffix).
struct RatioCheck {
  enum class Of { Mean, SqCv };
  std::string sweep;
  std::string at;
  std::string a, b;
  Of of = Of::Mean;
  std::string suffix;
  double above = -INFINITY;
  double min = -INFINITY, max = INFINITY;
};

// A relative change measured elsewhere (the named value, 0.1 = +10%), agreeing
// when within [min, max]; printed with one decimal.
struct ChangeCheck {
  std::string value;
  double min = -INFINITY, max = INFINITY;
};

// For information only: ours is the named text.
struct InfoCheck {
  std::string text;
};

using Check = std::variant<GainCheck, WorstGainCheck, RankingCheck, RatioCheck, ChangeCheck,
                           InfoCheck>;

struct ClaimRow {
  std::string id;
  std::string claim;      // the paper's statement, short
  std::string theirs;     // the paper's figure
  std::string tolerance;  // how close counts, as printed
  Check check;
  std::string note;       // printed when the check itself has nothing to say
};

// What the rows are checked against. Algorithms are named as the paper names them
// and resolved to sweep series through `algorithms`.
struct ClaimInputs {
  std::vector<std::pair<std::string, std::string>> algorithms;  // paper name -> series spec
  const SweepResult* rates = nullptr;                  // the rate sweep of Gain/Ranking checks
  std::map<std::string, const SweepResult*> sweeps;    // RatioCheck::sweep
  std::map<std::string, std::vector<double>> points;   // RatioCheck::at -> x values
  std::map<std::string, double> values;                // ChangeCheck::value
  std::map<std::string, std::string> texts;            // InfoCheck::text

  const std::string& spec_of(const std::string& name) const;
};

Claim evaluate(const ClaimRow& row, const ClaimInputs& in);
std::vector<Claim> evaluate(const std::vector<ClaimRow>& rows, const ClaimInputs& in);

// "+18%", or "n/a" when not finite.
std::string percent(double x);

// The relative gain of A over B in sustained rate; `bounded` when either rate is only
// a bound (never crossed, or the next rate saturated).
struct Gain {
  double value = NAN;
  bool bounded = false;
  std::string text() const;
};
Gain sustained_gain(const ClaimInputs& in, const std::string& a, const std::string& b, Metric m,
                    double target_ms);

// The range of a ratio over points, as text "lo..hi". A ratio whose numerator
// saturated while its denominator kept up counts as infinite, the other way round as
// zero; on squared CV, a point where either saturated is left out.
struct RatioRange {
  double lo = INFINITY, hi = -INFINITY;
  void add(double v);
  bool empty() const { return lo > hi; }
  std::string text() const;
};
RatioRange ratio_range(const SweepResult& r, const std::vector<double>& xs, const std::string& a,
                       const std::string& b, RatioCheck::Of of);

}  // namespace disksched
