#include "bench/experiments/repro/repro.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/csv.hpp"
#include "common/regular_file.hpp"

namespace disksched {

namespace {

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::Agree: return "agrees";
    case Verdict::Disagree: return "DISAGREES";
    case Verdict::Info: return "info";
  }
  return "?";
}

// Wraps `s` at `width` columns into lines.
std::vector<std::string> wrap(const std::string& s, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < s.size()) {
    auto sp = s.find(' ', pos);
    std::string word = s.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    pos = sp == std::string::npos ? s.size() : sp + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

void report_claims(const std::string& title, const std::vector<Claim>& claims,
                   const std::string& out_dir) {
  std::cout << "\n" << title << "\n\n";
  std::cout << fmt::format("{:<4} {:<44} {:<16} {:<22} {:<16} {}\n", "#", "claim", "paper", "ours",
                           "tolerance", "verdict");
  std::cout << std::string(118, '-') << "\n";
  int n = 0, agree = 0, disagree = 0;
  for (const auto& c : claims) {
    ++n;
    const auto claim_lines = wrap(c.claim, 44);
    const auto ours_lines = wrap(c.ours, 22);
    const auto theirs_lines = wrap(c.theirs, 16);
    const auto tol_lines = wrap(c.tolerance, 16);
    const std::size_t rows = std::max({claim_lines.size(), ours_lines.size(), theirs_lines.size(),
                                       tol_lines.size()});
    for (std::size_t i = 0; i < rows; ++i) {
      auto get = [&](const std::vector<std::string>& v) { return i < v.size() ? v[i] : ""; };
      std::cout << fmt::format("{:<4} {:<44} {:<16} {:<22} {:<16} {}\n",
                               i == 0 ? std::to_string(n) : "", get(claim_lines),
                               get(theirs_lines), get(ours_lines), get(tol_lines),
                               i == 0 ? verdict_text(c.verdict) : "");
    }
    if (!c.note.empty())
      for (const auto& l : wrap("note: " + c.note, 110)) std::cout << "     " << l << "\n";
    agree += c.verdict == Verdict::Agree;
    disagree += c.verdict == Verdict::Disagree;
  }
  std::cout << std::string(118, '-') << "\n"
            << fmt::format("{} claims: {} agree, {} disagree, {} for information\n", n, agree,
                           disagree, n - agree - disagree);

  std::filesystem::create_directories(out_dir);
  std::ostringstream csv, md;
  csv << "id,claim,paper,ours,tolerance,verdict,note\n";
  md << "| # | claim | paper | ours | tolerance | verdict |\n|---|---|---|---|---|---|\n";
  n = 0;
  for (const auto& c : claims) {
    ++n;
    csv << csv_quoted(c.id) << ',' << csv_quoted(c.claim) << ',' << csv_quoted(c.theirs) << ','
        << csv_quoted(c.ours) << ',' << csv_quoted(c.tolerance) << ',' << verdict_text(c.verdict)
        << ',' << csv_quoted(c.note) << '\n';
    md << "| " << n << " | " << c.claim << " | " << c.theirs << " | " << c.ours << " | "
       << c.tolerance << " | " << verdict_text(c.verdict) << (c.note.empty() ? "" : " (" + c.note + ")")
       << " |\n";
  }
  replace_file(out_dir + "/claims.csv", csv.str());
  replace_file(out_dir + "/claims.md", md.str());
  std::cout << "wrote " << out_dir << "/claims.md and claims.csv\n";
}

int run_repro(const std::string& paper, const ReproOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  struct Paper {
    const char* name;
    std::vector<Claim> (*run)(const ReproOptions&);
    const char* title;
  };
  static const Paper kPapers[] = {
      {"jw91", repro_jw91, "Jacobson & Wilkes 1991 (HPL-CSP-91-7rev1), HP 97560, our simulator"},
      {"hong03", repro_hong03,
       "Hong et al. 2003 (MASCOTS), CMU G2 MEMS device, synthetic stand-ins for the HP traces"},
      {"dn13", repro_dn13, "Deodhar & Naik 2013 (SSWT), synthetic boot-like bursts on the HP 97560"},
      {"gp93", repro_gp93,
       "Ganger & Patt 1993 (system-level), the process-flow simulator, GP's workload rebuilt on GP's disk"},
      {"dn13-flow", repro_dn13_flow,
       "Deodhar & Naik 2013 (SSWT) in the process-flow model, decision cost charged on the CPU"},
  };
  const Paper* chosen = nullptr;
  std::string valid;
  for (const Paper& x : kPapers) {
    if (paper == x.name) chosen = &x;
    valid += (valid.empty() ? "" : ", ") + std::string(x.name);
  }
  if (chosen == nullptr)
    throw std::invalid_argument(fmt::format("unknown paper '{}'; valid: {}", paper, valid));
  const std::vector<Claim> claims = chosen->run(o);
  const std::string title = chosen->title;
  report_claims(title, claims, o.out_dir);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << fmt::format("repro {} took {:.1f} s\n", paper, secs);
  int disagree = 0;
  for (const auto& c : claims) disagree += c.verdict == Verdict::Disagree;
  return disagree;
}

}  // namespace disksched
