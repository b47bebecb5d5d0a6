// `disksched repro PAPER`: rerun the experiments behind every claim of a seed paper
// that shared/reference/models-and-claims.md lists, and print, claim by claim, the
// paper's figure, ours, the tolerance and whether ours agrees.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace disksched {

struct ReproOptions {
  std::string out_dir;
  std::size_t reps = 20;      // JW: 20 replications
  std::uint64_t seed = 1;
  std::size_t threads = 0;    // 0: every core
  bool quick = false;         // fewer replications and rates: a smoke test
  bool no_plot = false;
  bool strict = false;
  bool quiet = false;
};

enum class Verdict { Agree, Disagree, Info };

struct Claim {
  std::string id;         // e.g. "7-mean-0.1"
  std::string claim;      // what the paper says, short
  std::string theirs;     // the paper's figure
  std::string ours;       // our figure
  std::string tolerance;  // how close counts as agreeing
  Verdict verdict = Verdict::Info;
  std::string note;       // why, when it disagrees or needs context
};

// Prints the table to stdout and writes DIR/claims.md and DIR/claims.csv.
void report_claims(const std::string& title, const std::vector<Claim>& claims,
                   const std::string& out_dir);

// The experiments of each paper; each returns its claims.
std::vector<Claim> repro_jw91(const ReproOptions& o);
std::vector<Claim> repro_hong03(const ReproOptions& o);
std::vector<Claim> repro_dn13(const ReproOptions& o);
std::vector<Claim> repro_gp93(const ReproOptions& o);
std::vector<Claim> repro_dn13_flow(const ReproOptions& o);

// Runs `paper` ("jw91", "hong03", "dn13", "gp93", "dn13-flow"), reports, returns the number of claims
// that disagree.
int run_repro(const std::string& paper, const ReproOptions& o);

}  // namespace disksched
