#include "bench/experiments/repro/claims.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched {

namespace {

Verdict verdict(bool agrees) { return agrees ? Verdict::Agree : Verdict::Disagree; }

template <class T>
const T& lookup(const std::map<std::string, T>& m, const std::string& key, const char* what) {
  auto it = m.find(key);
  if (it == m.end()) throw std::logic_error(fmt::format("claims: no {} '{}'", what, key));
  return it->second;
}

const SweepResult& rate_sweep(const ClaimInputs& in) {
  if (!in.rates) throw std::logic_error("claims: a sustained-rate check needs a rate sweep");
  return *in.rates;
}

double sustained(const ClaimInputs& in, const std::string& name, Metric m, double t) {
  return sustained_rate(rate_sweep(in), in.spec_of(name), m, t).rate;
}

Claim check(const ClaimRow& row, const GainCheck& c, const ClaimInputs& in) {
  const Gain g = sustained_gain(in, c.a, c.b, c.metric, c.target_ms);
  const bool ok = std::isfinite(g.value) && std::fabs(g.value - c.paper) <= c.tolerance;
  std::string note = row.note;
  if (!c.also_over.empty())
    note = fmt::format("over {}: {}", c.also_over,
                       sustained_gain(in, c.a, c.also_over, c.metric, c.target_ms).text());
  return {row.id, row.claim, row.theirs, g.text(), row.tolerance, verdict(ok), note};
}

Claim check(const ClaimRow& row, const WorstGainCheck& c, const ClaimInputs& in) {
  double worst = INFINITY;
  std::string at;
  for (double t : c.targets_ms) {
    const Gain g = sustained_gain(in, c.a, c.b, c.metric, t);
    if (g.value < worst) {
      worst = g.value;
      at = fmt::format("{:g} s", t / 1000);
    }
  }
  return {row.id, row.claim, row.theirs, fmt::format("{} (worst, at {})", percent(worst), at),
          row.tolerance, verdict(worst >= c.at_least), row.note};
}

Claim check(const ClaimRow& row, const RankingCheck& c, const ClaimInputs& in) {
  if (c.relations.size() + 1 != c.names.size())
    throw std::logic_error(fmt::format("claims: ranking '{}' needs one relation between each "
                                       "pair of neighbours",
                                       row.id));
  std::vector<double> rates;
  for (const auto& n : c.names) rates.push_back(sustained(in, n, c.metric, c.target_ms));
  std::vector<std::size_t> idx(c.names.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return rates[a] < rates[b]; });
  std::string ours;
  for (std::size_t i = 0; i < idx.size(); ++i)
    ours += (i ? " < " : "") + fmt::format("{} {:.1f}", c.names[idx[i]], rates[idx[i]]);
  bool ok = true;
  for (std::size_t i = 0; i + 1 < c.names.size(); ++i) {
    // "<": the next sustains at least 2% more (a tie does not confirm an order);
    // "<=": the next is not more than 2% lower.
    const double lo = rates[i], hi = rates[i + 1];
    ok = ok && (c.relations[i] == "<=" ? hi >= lo * 0.98 : hi >= lo * 1.02);
  }
  std::string theirs;
  for (std::size_t i = 0; i < c.names.size(); ++i)
    theirs += c.names[i] + (i + 1 < c.names.size() ? " " + c.relations[i] + " " : "");
  // Name the pairs that are within 2% of each other: a tie, not an ordering.
  std::string ties;
  for (std::size_t i = 0; i < c.names.size(); ++i)
    for (std::size_t j = i + 1; j < c.names.size(); ++j)
      if (std::fabs(rates[i] / rates[j] - 1) <= 0.02)
        ties += fmt::format("{}{} ~ {}", ties.empty() ? "" : ", ", c.names[i], c.names[j]);
  return {row.id, row.claim, theirs, ours, row.tolerance, verdict(ok),
          ties.empty() ? row.note : "tied within 2%: " + ties};
}

Claim check(const ClaimRow& row, const RatioCheck& c, const ClaimInputs& in) {
  const RatioRange x = ratio_range(*lookup(in.sweeps, c.sweep, "sweep"),
                                   lookup(in.points, c.at, "point set"), in.spec_of(c.a),
                                   in.spec_of(c.b), c.of);
  const bool ok = !x.empty() && x.lo > c.above && x.lo >= c.min && x.hi <= c.max;
  return {row.id, row.claim, row.theirs, x.text() + c.suffix, row.tolerance, verdict(ok),
          row.note};
}

Claim check(const ClaimRow& row, const ChangeCheck& c, const ClaimInputs& in) {
  const double v = lookup(in.values, c.value, "value");
  return {row.id,        row.claim,
          row.theirs,    fmt::format("{:+.1f}%", 100 * v),
          row.tolerance, verdict(v >= c.min && v <= c.max),
          row.note};
}

Claim check(const ClaimRow& row, const InfoCheck& c, const ClaimInputs& in) {
  return {row.id,        row.claim,    row.theirs, lookup(in.texts, c.text, "text"),
          row.tolerance, Verdict::Info, row.note};
}

}  // namespace

const std::string& ClaimInputs::spec_of(const std::string& name) const {
  for (const auto& [n, s] : algorithms)
    if (n == name) return s;
  throw std::logic_error("claims: no algorithm " + name);
}

Claim evaluate(const ClaimRow& row, const ClaimInputs& in) {
  return std::visit([&](const auto& c) { return check(row, c, in); }, row.check);
}

std::vector<Claim> evaluate(const std::vector<ClaimRow>& rows, const ClaimInputs& in) {
  std::vector<Claim> out;
  for (const auto& r : rows) out.push_back(evaluate(r, in));
  return out;
}

std::string percent(double x) {
  return std::isfinite(x) ? fmt::format("{:+.0f}%", 100.0 * x) : "n/a";
}

std::string Gain::text() const { return percent(value) + (bounded ? " (bound)" : ""); }

Gain sustained_gain(const ClaimInputs& in, const std::string& a, const std::string& b, Metric m,
                    double target_ms) {
  const Sustained sa = sustained_rate(rate_sweep(in), in.spec_of(a), m, target_ms);
  const Sustained sb = sustained_rate(rate_sweep(in), in.spec_of(b), m, target_ms);
  return {sa.rate / sb.rate - 1.0, sa.bound != '=' || sb.bound != '='};
}

void RatioRange::add(double v) {
  if (std::isnan(v)) return;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

std::string RatioRange::text() const {
  auto x = [](double v) {
    if (std::isinf(v)) return std::string("inf (first saturated)");
    if (v == 0.0) return std::string("0 (second saturated)");
    return fmt::format("{:.2f}x", v);
  };
  return empty() ? "n/a" : x(lo) + ".." + x(hi);
}

RatioRange ratio_range(const SweepResult& r, const std::vector<double>& xs, const std::string& a,
                       const std::string& b, RatioCheck::Of of) {
  // NaN where the point is missing or saturated.
  auto metric = [&](const std::string& spec, double x) {
    const SweepPoint* p = r.at(spec, x);
    if (!p || p->saturated()) return static_cast<double>(NAN);
    return of == RatioCheck::Of::SqCv ? p->result.stats.sq_cv.mean : p->result.stats.mean_ms.mean;
  };
  RatioRange out;
  for (double x : xs) {
    const double va = metric(a, x), vb = metric(b, x);
    if (std::isnan(va) && std::isnan(vb)) continue;
    if (of == RatioCheck::Of::SqCv && (std::isnan(va) || std::isnan(vb))) continue;
    out.add(std::isnan(va) ? INFINITY : std::isnan(vb) ? 0.0 : va / vb);
  }
  return out;
}

}  // namespace disksched
