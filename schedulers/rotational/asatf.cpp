// ASATF(w) (JW sec. 5.3; Hong eq. 7 as form=hong). See asatf.hpp for the key.
#include "schedulers/rotational/asatf.hpp"

#include <memory>

#include <fmt/format.h>

#include "schedulers/rotational/algorithms.hpp"
#include "schedulers/rotational/indexed_scheduler.hpp"
#include "schedulers/rotational/param_decl.hpp"

namespace disksched::rotational {

double asatf_beta(double w, AgingForm form, const DeviceModel& model) {
  if (form == AgingForm::Hong) return w / 1000.0;
  const Millis tau = model.sector_time_ms();
  if (!(tau > 0.0))
    throw SpecError(fmt::format(
        "asatf: form=jw weighs age in sectors, but model '{}' has no sector time; "
        "use form=hong (w in ms per second of waiting)",
        model.name()));
  return w * tau / 1000.0;
}

namespace {

class Asatf final : public IndexedScheduler {
 public:
  Asatf(const DeviceModel& model, std::string spec, double beta, bool scan)
      : IndexedScheduler(model, std::move(spec), true), beta_(beta), scan_(scan) {}

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    AccessIndex::Query q;
    q.head = head;
    q.now = now;
    q.beta = beta_;
    return take((scan_ ? index_.best_scan(q) : index_.best(q)).req);
  }

 private:
  double beta_;
  bool scan_;
};

AgingForm form_of(const Params& p) {
  return p.choice("form") == "hong" ? AgingForm::Hong : AgingForm::JacobsonWilkes;
}

}  // namespace

AlgorithmInfo asatf_algorithm() {
  return {
      .name = "asatf",
      .aliases = {"asptf"},
      .description = "aged SATF: access time traded against waiting time, between SATF (w=0) and FCFS",
      .source = "JW sec. 5.3; Hong eq. 7 (form=hong)",
      .needs_rotation = true,
      .params = {
          number_param("w", "sectors/s",
                    "aging weight: form=jw, sectors of access time per second of age (JW: 30); "
                    "form=hong, ms of positioning per second of waiting (Hong: 5)",
                    30, 0, 1e6),
          choice_param("form", "jw: merit w*T_age - T_A/tau (JW sec. 5.3); hong: t_pos - (w/1000)*t_wait "
                    "(Hong eq. 7)", {"jw", "hong"}, "jw"),
          search_param(),
      },
      .check = [](const Params& p, const DeviceModel& m) {
        asatf_beta(p.number("w"), form_of(p), m);  // throws when the form does not fit `m`
      },
      .factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
        return std::make_unique<Asatf>(m, format_spec(asatf_algorithm(), p),
                                       asatf_beta(p.number("w"), form_of(p), m),
                                       p.choice("search") == "scan");
      },
  };
}

}  // namespace disksched::rotational
