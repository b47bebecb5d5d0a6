#include "daemon/filter/dispatch_core.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "daemon/filter/lbn_model.hpp"
#include "predictor/disk_model.hpp"
#include "schedulers/registry.hpp"

namespace disksched {
namespace {

HeadTracker::Options tracker_options(const DispatchCore::Options& o) {
  HeadTracker::Options t;
  t.delta_ms = o.fixed_delta.value_or(o.initial_delta_ms);
  t.refine_period = o.refine_period;
  t.refine_track_phase = o.refine_track_phase;
  return t;
}

}  // namespace

DispatchCore::DispatchCore(std::unique_ptr<DeviceModel> model,
                           std::unique_ptr<Scheduler> scheduler, Options options)
    : model_(std::move(model)), options_(options),
      queue_(std::move(scheduler), *model_),
      tracker_(*model_, tracker_options(options)),
      next_calibration_at_(options.calibrate_first) {
  if (options_.depth == 0) throw std::invalid_argument("depth must be at least 1");
  spec_ = queue_.scheduler().spec();
}

void DispatchCore::arrive(Request r, Millis now, std::vector<Granted>& out) {
  r.arrival_ms = now;
  const std::uint64_t id = r.id;
  const Op op = r.op;
  queue_.push(std::move(r), tracker_.rotation().learnt_tracks());
  active_[id] = Active{op, now, 0.0};
  ++stats_.arrived;
  pump(now, out);
}

void DispatchCore::pump(Millis now, std::vector<Granted>& out) {
  while (in_flight() < options_.depth) {
    const std::size_t choices = queue_.eligible();
    if (choices == 0) return;
    const HeadState head = tracker_.predict(now);
    auto r = queue_.pick(now, head);
    if (!r) return;
    Granted g;
    g.id = r->id;
    g.dispatch_ms = now;
    g.queue_len = choices;
    g.travel = r->travel;
    g.prediction = tracker_.dispatched(r->id, now, r->op, r->offset, r->length,
                                       {r->travel.begin(), r->travel.end()});
    active_.at(r->id).dispatch_ms = now;
    ++stats_.dispatched;
    stats_.sum_queue_len += static_cast<double>(choices);
    out.push_back(g);
  }
}

Prediction DispatchCore::complete(std::uint64_t id, Millis now, bool ok,
                                  std::vector<Granted>& out) {
  auto a = active_.find(id);
  if (a == active_.end())
    throw std::invalid_argument("complete: unknown request " + std::to_string(id));
  const Prediction p = tracker_.completed(id, now, ok);
  // Requests queued on a track whose angle was just learnt rank by the new angle.
  for (const HeadTracker::Track& t : tracker_.turned())
    queue_.relocate_track(t.cylinder, t.head, *tracker_.rotation().tracks);
  queue_.complete(id, now);
  ++stats_.completed;
  if (!ok) ++stats_.failed;
  const Millis response = now - a->second.arrival_ms;
  stats_.sum_response_ms += response;
  stats_.max_response_ms = std::max(stats_.max_response_ms, response);
  stats_.sum_service_ms += now - a->second.dispatch_ms;
  if (ok && model_->rotational() && model_->sector_time_ms() > 0) {
    ++stats_.predictions_checked;
    if (std::abs(p.observed_service_ms() - (now - a->second.dispatch_ms)) <=
        model_->sector_time_ms())
      ++stats_.predictions_within;
  }
  active_.erase(a);
  pump(now, out);
  return p;
}

std::string DispatchCore::switch_scheduler(std::string_view spec) {
  auto s = make_scheduler(spec, *model_);
  spec_ = s->spec();
  queue_.set_scheduler(std::move(s));
  ++stats_.switches;
  return spec_;
}

DiskProfile DispatchCore::current_profile() const {
  const auto* disk = dynamic_cast<const DiskModel*>(model_.get());
  if (disk == nullptr)
    throw std::invalid_argument("the device runs the '" + model_->name() +
                                "' model, not a disk geometry: there is no profile to save");
  return disk->current_profile(tracker_.rotation());
}

bool DispatchCore::calibration_due() const {
  return calibrating() && tracker_.samples_recorded() >= next_calibration_at_;
}

bool DispatchCore::refit_lbn(const std::vector<TrackerSample>& samples) {
  auto* lbn = dynamic_cast<LbnModel*>(model_.get());
  if (lbn == nullptr) return false;
  const auto p = lbn->fit(samples);
  if (!p) return false;
  lbn->set_params(*p);
  tracker_.set_delta_ms(0.0);
  return true;
}


std::vector<TrackerSample> DispatchCore::take_calibration_samples() {
  next_calibration_at_ = tracker_.samples_recorded() + options_.calibrate_every;
  return tracker_.samples();
}

}  // namespace disksched
