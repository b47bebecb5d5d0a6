// OAT for small batches and its look-ahead variants (Jacobson & Wilkes 1991, sec. 4.1).
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "schedulers/rotational/oat.hpp"
#include "schedulers/rotational/ranking.hpp"
#include "tests/schedulers/rotational/fixtures.hpp"

using namespace disksched::rotational;

namespace {

// Every order of the batch, lexicographically by (arrival, id): the shortest, the
// first of equals.
Schedule brute_force(const DeviceModel& m, const HeadState& head, const std::vector<Request>& batch) {
  std::vector<std::size_t> order(batch.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return older(batch[a], batch[b]); });
  auto pos = [&](std::size_t i) {  // rank of batch[i] in (arrival, id) order
    std::size_t k = 0;
    for (std::size_t j = 0; j < batch.size(); ++j) k += older(batch[j], batch[i]) ? 1 : 0;
    return k;
  };
  std::vector<std::size_t> ranks(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) ranks[pos(i)] = i;
  std::vector<std::size_t> perm(batch.size());
  std::iota(perm.begin(), perm.end(), 0);
  Schedule best;
  best.length_ms = std::numeric_limits<double>::infinity();
  do {
    std::vector<std::size_t> o;
    for (std::size_t k : perm) o.push_back(ranks[k]);
    const Millis len = schedule_length(m, head, batch, o);
    if (len < best.length_ms) best = Schedule{o, len};  // lexicographic order: first wins ties
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

std::vector<Request> random_batch(const DeviceModel& m, std::mt19937_64& rng, std::size_t n) {
  std::vector<Request> b;
  for (std::size_t i = 0; i < n; ++i)
    b.push_back(make_request(m, 100 + i, rng() % 2600000, static_cast<Millis>(rng() % 4), 16));
  return b;
}

}  // namespace

TEST_CASE("OAT equals brute force over every order (JW sec. 4.1)", "[rotational][oat]") {
  auto model = load_model("hp97560");
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + trial % 7;  // 1..7
    const auto batch = random_batch(*model, rng, n);
    HeadState head = model->initial_state();
    head.cylinder = static_cast<std::int64_t>(rng() % 1964);
    head.time_ms = static_cast<Millis>(rng() % 100000) / 7.0;
    const Schedule oat = optimal_order(*model, head, batch);
    const Schedule bf = brute_force(*model, head, batch);
    REQUIRE(oat.length_ms == bf.length_ms);
    REQUIRE(oat.order == bf.order);
  }
  // Two batches of the largest size.
  for (int trial = 0; trial < 2; ++trial) {
    const auto batch = random_batch(*model, rng, kMaxOatBatch);
    const HeadState head = model->initial_state();
    CHECK(optimal_order(*model, head, batch).length_ms == brute_force(*model, head, batch).length_ms);
  }
}

TEST_CASE("ties between equally short orders go to the earliest arrival, then lowest id",
          "[rotational][oat]") {
  FakeDisk disk;
  // Two requests on the very same sector: both orders take the same time.
  std::vector<Request> batch = {make_request(disk, 7, disk.lba(3, 0, 4), 5.0),
                                make_request(disk, 2, disk.lba(3, 0, 4), 5.0),
                                make_request(disk, 9, disk.lba(3, 0, 4), 1.0)};
  const auto s = optimal_order(disk, head_at(0, 0, 0.0), batch);
  CHECK(s.order == std::vector<std::size_t>{2, 1, 0});  // ids 9, 2, 7
}

TEST_CASE("greedy is never better than OAT on random batches (JW sec. 4.1)", "[rotational][oat]") {
  auto model = load_model("hp97560");
  std::mt19937_64 rng(1991);
  double sum_ratio = 0;
  int n_ratio = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 4 + trial % 3;  // JW's clumps of 4 to 6
    const auto batch = random_batch(*model, rng, n);
    HeadState head = model->initial_state();
    head.cylinder = static_cast<std::int64_t>(rng() % 1964);
    const Schedule g = greedy_order(*model, head, batch);
    const Schedule o = optimal_order(*model, head, batch);
    REQUIRE(g.length_ms >= o.length_ms);
    REQUIRE(g.length_ms == schedule_length(*model, head, batch, g.order));
    sum_ratio += g.length_ms / o.length_ms;
    ++n_ratio;
  }
  // JW: greedy schedules 5-8% longer; the reproduction with its method lives in the
  // simulator's repro. Here: only that the average is above 1.
  INFO("mean greedy / optimal " << sum_ratio / n_ratio);
  CHECK(sum_ratio / n_ratio > 1.0);
}

TEST_CASE("optimal_order refuses more than it searches exhaustively", "[rotational][oat]") {
  FakeDisk disk;
  std::vector<Request> batch;
  for (std::uint64_t i = 0; i <= kMaxOatBatch; ++i) batch.push_back(make_request(disk, i, i, 0.0));
  CHECK_THROWS_AS(optimal_order(disk, head_at(0, 0, 0.0), batch), std::invalid_argument);
  CHECK(optimal_order(disk, head_at(0, 0, 0.0), {}).order.empty());
}

TEST_CASE("the oat scheduler: short-sighted, sliding and greedy windows (JW sec. 4.1)",
          "[rotational][oat]") {
  FakeDisk disk;
  const HeadState head = head_at(0, 0, 0.0);
  // Oldest first: o1..o3, then a young request y right under the head.
  const std::vector<Request> reqs = {
      make_request(disk, 1, disk.lba(80, 0, 3), 0.0), make_request(disk, 2, disk.lba(40, 1, 7), 1.0),
      make_request(disk, 3, disk.lba(60, 0, 1), 2.0), make_request(disk, 4, disk.lba(0, 0, 1), 3.0)};
  auto serve = [&](const std::string& spec) {
    auto s = make_scheduler(spec, disk);
    for (const auto& r : reqs) s->add(r);
    std::vector<std::uint64_t> ids;
    HeadState h = head;
    while (auto r = s->pick(h.time_ms, h)) {
      ids.push_back(r->id);
      h = disk.service(h, r->op, r->offset, r->length).end;
    }
    return ids;
  };
  // A window of 3 never sees y before one of the three oldest has gone.
  const std::vector<Request> first3(reqs.begin(), reqs.begin() + 3);
  const auto opt3 = optimal_order(disk, head, first3).order;
  std::vector<std::uint64_t> expect;
  for (std::size_t i : opt3) expect.push_back(first3[i].id);
  expect.push_back(4);
  CHECK(serve("oat:batch=3,mode=short-sighted") == expect);
  // Sliding and greedy windows: at every pick the 3 oldest left, the first of their
  // optimal (sliding) or greedy order from the current head goes.
  auto windowed = [&](bool optimal) {
    std::vector<Request> left = reqs;
    std::vector<std::uint64_t> ids;
    HeadState h = head;
    while (!left.empty()) {
      const std::vector<Request> w(left.begin(), left.begin() + std::min<std::size_t>(3, left.size()));
      const Schedule sch = optimal ? optimal_order(disk, h, w) : greedy_order(disk, h, w);
      const Request r = w[sch.order.front()];
      ids.push_back(r.id);
      h = disk.service(h, r.op, r.offset, r.length).end;
      left.erase(std::find_if(left.begin(), left.end(), [&](const Request& x) { return x.id == r.id; }));
    }
    return ids;
  };
  CHECK(serve("oat:batch=3,mode=sliding") == windowed(true));
  CHECK(serve("oat:batch=3,mode=greedy") == windowed(false));
  CHECK(serve("oat:batch=3,mode=greedy").front() != 4);
  // With a window of 4 everything is seen: y (1 ms away) goes first greedily.
  CHECK(serve("oat:batch=4,mode=greedy").front() == 4);
  CHECK(serve("oat:batch=1").size() == 4);
}
