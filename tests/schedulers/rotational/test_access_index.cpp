// JW's cell-ordered SATF search (Jacobson & Wilkes 1991, sec. 4.2, Fig. 4-5) must pick
// exactly what an exhaustive scan picks, tie rule included, while costing only a small
// part of the queue.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "schedulers/rotational/access_index.hpp"
#include "schedulers/rotational/asatf.hpp"
#include "tests/schedulers/rotational/fixtures.hpp"

using namespace disksched::rotational;

namespace {

constexpr int kHp97560Heads = 19;
constexpr std::int64_t kMemsBitsY = 2400;  // the built-in mems model's bits per tip track

// A random queue: mostly uniform 8 KB requests (JW sec. 6), some on the very same
// sector as an earlier one (exact ties, decided by arrival then id), some on the same
// track; reads and writes (different command overheads).
std::vector<Request> random_queue(const DeviceModel& m, std::mt19937_64& rng, std::size_t n,
                                  Millis arrival_span) {
  const std::uint64_t lbas = m.capacity_bytes() / m.sector_bytes() - 64;
  std::uniform_int_distribution<std::uint64_t> any_lba(0, lbas - 1);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::vector<Request> q;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t lba = any_lba(rng);
    const double kind = u01(rng);
    if (!q.empty() && kind < 0.1) {
      lba = q[rng() % q.size()].loc.lba;                      // same start sector: a tie
    } else if (!q.empty() && kind < 0.2) {
      lba = std::min(lbas - 1, q[rng() % q.size()].loc.lba + rng() % 40);  // nearby
    }
    // Equal arrivals too, so the id decides some ties.
    const Millis arrival = kind > 0.95 && !q.empty() ? q.back().arrival_ms
                                                      : std::floor(u01(rng) * arrival_span);
    const Op op = u01(rng) < 0.3 ? Op::Write : Op::Read;
    q.push_back(make_request(m, 1000 + i * 7 + rng() % 5, lba, arrival, 16, op));
  }
  // ids must be unique: re-number any collision.
  std::sort(q.begin(), q.end(), [](const Request& a, const Request& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < q.size(); ++i)
    if (q[i].id <= q[i - 1].id) q[i].id = q[i - 1].id + 1;
  std::shuffle(q.begin(), q.end(), rng);
  return q;
}

HeadState random_head(const DeviceModel& m, std::mt19937_64& rng, Millis t_max) {
  std::uniform_real_distribution<double> t(0.0, t_max);
  HeadState h = head_at(static_cast<std::int64_t>(rng() % m.cylinders()),
                        static_cast<std::int32_t>(rng() % kHp97560Heads), t(rng));
  if (m.kind() == "mems") {
    // The sled anywhere in y (often on a whole bit, as after an access), either way.
    h.head = 0;
    h.y = rng() % 4 == 0 ? std::uniform_real_distribution<double>(0.0, kMemsBitsY)(rng)
                         : static_cast<double>(rng() % (kMemsBitsY + 1));
    h.y_dir = rng() % 2 == 0 ? 1 : -1;
  }
  return h;
}

void require_same(const AccessIndex::Choice& fast, const AccessIndex::Choice& scan) {
  REQUIRE(fast.rank.found == scan.rank.found);
  if (!scan.rank.found) return;
  REQUIRE(fast.req != nullptr);
  REQUIRE(fast.req->id == scan.req->id);
  REQUIRE(fast.rank.key == scan.rank.key);
  REQUIRE(fast.positioning_ms == scan.positioning_ms);
}

// Random queues (log-uniform lengths 1..2048, wide and narrow arrival spans) and head
// states on `m`: the fast search must return exactly what best_scan returns, with a
// cylinder window, with an eligibility filter, and after serving a few. Returns the
// part of the queue costed, over all unwindowed, unfiltered searches.
double check_against_scan(const DeviceModel& m, const std::vector<double>& betas, int queues,
                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::size_t queries = 0, costed = 0, held = 0;
  for (int round = 0; round < queues; ++round) {
    // Queue lengths log-uniform in [1, 2048].
    const auto n = static_cast<std::size_t>(
        std::exp(std::uniform_real_distribution<double>(0.0, std::log(2048.0))(rng)));
    const Millis span = round % 2 == 0 ? 2000.0 : 50.0;
    AccessIndex idx(m, true);
    for (const auto& r : random_queue(m, rng, n, span)) idx.insert(r);
    for (int h = 0; h < 3; ++h) {
      AccessIndex::Query q;
      q.head = random_head(m, rng, 1e7);
      q.now = span + std::uniform_real_distribution<double>(0.0, 500.0)(rng);
      for (double beta : betas) {
        q.beta = beta;
        q.cyl_lo = std::numeric_limits<std::int64_t>::min();
        q.cyl_hi = std::numeric_limits<std::int64_t>::max();
        const auto fast = idx.best(q);
        costed += idx.last_stats().costed;
        held += idx.size();
        ++queries;
        require_same(fast, idx.best_scan(q));
        // A cylinder window (GSTF's groups) and an eligibility filter (SATFUF's fit test).
        q.cyl_lo = static_cast<std::int64_t>(rng() % m.cylinders());
        q.cyl_hi = q.cyl_lo + static_cast<std::int64_t>(rng() % 300);
        require_same(idx.best(q), idx.best_scan(q));
        auto odd = [](const Request& r, std::uint64_t, Millis) { return r.id % 3 != 0; };
        q.cyl_lo = std::numeric_limits<std::int64_t>::min();
        q.cyl_hi = std::numeric_limits<std::int64_t>::max();
        require_same(idx.best(q, odd), idx.best_scan(q, odd));
      }
    }
    // Serve a few (greedy from where each one ends) and check again after removals.
    HeadState head = random_head(m, rng, 1e6);
    for (int k = 0; k < 5 && !idx.empty(); ++k) {
      AccessIndex::Query q;
      q.head = head;
      q.now = span;
      q.beta = betas[k % betas.size()];
      const auto fast = idx.best(q);
      require_same(fast, idx.best_scan(q));
      const Request r = *idx.erase(fast.req->id);
      head = m.service(head, r.op, r.offset, r.length).end;
    }
  }
  return double(costed) / double(held);
}

}  // namespace

TEST_CASE("cell search equals an exhaustive scan on random HP 97560 queues (JW sec. 4.2, Fig. 4-5)",
          "[rotational][satf][asatf]") {
  auto model = load_model("hp97560");
  const DeviceModel& m = *model;
  REQUIRE(m.kind() == "disk");
  REQUIRE(AccessIndex(m, true).cell_search());
  // Aging weights: SATF, ASATF(30) and ASATF(300) in JW's form, ASPTF(5) in Hong's.
  const std::vector<double> betas = {0.0, asatf_beta(30, AgingForm::JacobsonWilkes, m),
                                     asatf_beta(300, AgingForm::JacobsonWilkes, m),
                                     asatf_beta(5, AgingForm::Hong, m)};
  const double part = check_against_scan(m, betas, 2000, 0x5A7F1991);
  INFO("part of the queue costed per search: " << part);
  CHECK(part < 0.25);
}

TEST_CASE("cell search equals an exhaustive scan with skews, head switches and controller overhead",
          "[rotational][satf][asatf]") {
  // hp97560-full: Ruemmler & Wilkes' track and cylinder skews, head switch and command
  // overheads, so the bounds are not exact and a head switch can outlast a short seek.
  auto model = load_model("hp97560-full");
  const DeviceModel& m = *model;
  REQUIRE(AccessIndex(m, true).cell_search());
  const std::vector<double> betas = {0.0, asatf_beta(30, AgingForm::JacobsonWilkes, m),
                                     asatf_beta(5, AgingForm::Hong, m)};
  const double part = check_against_scan(m, betas, 400, 0x48503937);
  INFO("part of the queue costed per search: " << part);
  CHECK(part < 0.25);
}

TEST_CASE("cell search equals an exhaustive scan on a drive of today (474,517 cylinders)",
          "[rotational][satf][asatf]") {
  // sata7200-8tb: past 8192 cylinders the index keeps one seek bound per 2^k distances
  // (the shortest one's); the search must stay exact, and still cost few requests.
  auto model = load_model("sata7200-8tb");
  const DeviceModel& m = *model;
  REQUIRE(m.cylinders() > 400000);
  REQUIRE(AccessIndex(m, true).cell_search());
  const std::vector<double> betas = {0.0, asatf_beta(30, AgingForm::JacobsonWilkes, m)};
  const double part = check_against_scan(m, betas, 300, 0x8000);
  INFO("part of the queue costed per search: " << part);
  CHECK(part < 0.25);
}

TEST_CASE("the x-column search equals an exhaustive scan on random MEMS queues (Hong eqs. 1-7)",
          "[rotational][satf][asatf][mems]") {
  auto model = load_model("mems");
  const DeviceModel& m = *model;
  REQUIRE(m.kind() == "mems");
  REQUIRE(AccessIndex(m, true).cell_search());
  // SPTF, ASPTF(5) (Hong's w), ASPTF(50) and a weight at which age dominates.
  const std::vector<double> betas = {0.0, asatf_beta(5, AgingForm::Hong, m),
                                     asatf_beta(50, AgingForm::Hong, m),
                                     asatf_beta(1000, AgingForm::Hong, m)};
  const double part = check_against_scan(m, betas, 1000, 0x4D454D53);
  INFO("part of the queue costed per search: " << part);
  CHECK(part < 0.25);
}

TEST_CASE("MEMS: every x move costs at least the index's seek bound for its distance",
          "[rotational][mems]") {
  // The bound the x-column search relies on (access_index.hpp): from any column to any
  // other, positioning >= overhead + seek_ms(d') for the smallest d' >= d, i.e. an x
  // move is never faster than the centred one of the same distance. Every pair of
  // columns, the sled at a random y and direction.
  auto model = load_model("mems");
  const DeviceModel& m = *model;
  const std::int64_t C = m.cylinders();
  std::vector<Millis> lb(static_cast<std::size_t>(C));
  Millis running = std::numeric_limits<Millis>::infinity();
  for (std::int64_t d = C - 1; d >= 0; --d) lb[d] = running = std::min(running, m.seek_ms(d));
  std::mt19937_64 rng(5);
  Millis worst = std::numeric_limits<Millis>::infinity();
  for (std::int64_t x0 = 0; x0 < C; ++x0) {
    HeadState from = m.initial_state();
    from.cylinder = x0;
    from.y = static_cast<double>(rng() % (kMemsBitsY + 1));
    from.y_dir = rng() % 2 == 0 ? 1 : -1;
    for (std::int64_t x1 = 0; x1 < C; ++x1) {
      Location to;
      to.cylinder = x1;
      to.y = from.y;  // no y move: the x seek alone decides
      to.y_dir = from.y_dir;
      const Millis margin = m.positioning_ms(from, to) - lb[x1 > x0 ? x1 - x0 : x0 - x1];
      worst = std::min(worst, margin);
    }
  }
  INFO("smallest positioning - bound: " << worst << " ms");
  CHECK(worst >= -AccessIndex::kSlackMs / 100);
}

TEST_CASE("cell search costs few requests at long queues (JW sec. 4.2: sub-linear SATF)",
          "[rotational][satf]") {
  // 1024 uniform requests on the HP 97560: the search ends after a few cells, so it
  // must cost a small, bounded part of the queue, not all of it.
  auto model = load_model("hp97560");
  std::mt19937_64 rng(42);
  AccessIndex idx(*model, true);
  for (const auto& r : random_queue(*model, rng, 1024, 1000.0)) idx.insert(r);
  std::size_t costed = 0, cells = 0;
  constexpr int kPicks = 500;
  for (int i = 0; i < kPicks; ++i) {
    AccessIndex::Query q;
    q.head = random_head(*model, rng, 1e6);
    q.now = 1000.0;
    q.beta = i % 2 == 0 ? 0.0 : asatf_beta(30, AgingForm::JacobsonWilkes, *model);
    REQUIRE(idx.best(q).req != nullptr);
    costed += idx.last_stats().costed;
    cells += idx.last_stats().cells;
  }
  INFO("mean costed " << double(costed) / kPicks << ", mean cells " << double(cells) / kPicks);
  CHECK(costed < 16 * kPicks);   // fewer than 16 of 1024 requests costed per pick
  CHECK(cells < 64 * kPicks);
}

TEST_CASE("cell search stays exact when the rotation is re-anchored with a refined period",
          "[rotational][satf][asatf]") {
  // The daemon's head tracker refines the period while the scheduler holds its queue and
  // passes it with the head (HeadState::spin); bounds kept in rotations of the old period
  // would prune the wrong requests. Period changes of up to 0.5%, then searches.
  auto model = load_model("hp97560");
  const DeviceModel& m = *model;
  const Millis T0 = m.rotation_ms();
  std::mt19937_64 rng(0xA11C);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double beta = asatf_beta(30, AgingForm::JacobsonWilkes, m);
  for (int round = 0; round < 40; ++round) {
    AccessIndex idx(m, true);
    const std::size_t n = round % 2 == 0 ? 16 : 600;  // short-queue pass and grid
    for (const auto& r : random_queue(m, rng, n, 2000.0)) idx.insert(r);
    for (int step = 0; step < 20; ++step) {
      const Spin spin =
          Spin::anchored(1000.0 * step, u01(rng), T0 * (1.0 + 0.01 * (u01(rng) - 0.5)));
      AccessIndex::Query q;
      q.head = random_head(m, rng, 1e6);
      q.head.spin = spin;
      q.now = 2000.0 + 500.0 * u01(rng);
      q.beta = step % 2 == 0 ? 0.0 : beta;
      require_same(idx.best(q), idx.best_scan(q));
    }
  }
}

TEST_CASE("cell search stays exact when held requests are relocated to learnt track angles",
          "[rotational][satf][asatf]") {
  // The head tracker learns that a track's sector 0 is elsewhere; the queue finds the
  // Location of each request on it again and relocates it in the index. Its cell, angle
  // bound and arrival order must follow, or the search prunes by the old angle.
  auto model = load_model("hp97560");
  const DeviceModel& m = *model;
  std::mt19937_64 rng(0x7EAC);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double beta = asatf_beta(30, AgingForm::JacobsonWilkes, m);
  for (int round = 0; round < 20; ++round) {
    AccessIndex idx(m, true);
    const std::size_t n = round % 2 == 0 ? 16 : 600;
    std::vector<Request> held = random_queue(m, rng, n, 2000.0);
    for (const auto& r : held) idx.insert(r);
    const std::uint64_t seq_before = idx.seq_of(held.front().id);
    TrackAngles learnt;
    for (int step = 0; step < 10; ++step) {
      // Turn the tracks of a few held requests and relocate everything on them.
      for (int k = 0; k < 4; ++k) {
        const Request& r = held[static_cast<std::size_t>(u01(rng) * n) % n];
        m.turn_track(learnt, r.loc.cylinder, r.loc.head, u01(rng));
      }
      for (Request& r : held) {
        const std::uint32_t sb = m.sector_bytes();
        r.loc = m.locate(r.offset / sb, r.length / sb, r.op, learnt);
        REQUIRE(idx.relocate(r));
        REQUIRE(idx.find(r.id)->loc.angle == r.loc.angle);
      }
      AccessIndex::Query q;
      q.head = random_head(m, rng, 1e6);
      q.now = 2000.0 + 500.0 * u01(rng);
      q.beta = step % 2 == 0 ? 0.0 : beta;
      require_same(idx.best(q), idx.best_scan(q));
    }
    CHECK(idx.seq_of(held.front().id) == seq_before);  // relocating keeps its place
    CHECK(idx.size() == n);
    Request absent;
    absent.id = 1u << 30;
    CHECK_FALSE(idx.relocate(absent));
  }
}

TEST_CASE("the short pass stays exact as time moves far from where its age terms were taken",
          "[rotational][asatf]") {
  // The short pass keeps each request's age term against a reference time, renewed
  // when `now` has moved far from it (or beta changed). A rolling queue under clocks of
  // any size (a daemon's), with jumps in time, and one starved request whose bonus
  // exceeds what a lead holds: the choice must stay the exhaustive scan's.
  auto model = load_model("hp97560");
  const DeviceModel& m = *model;
  const std::uint64_t lbas = m.capacity_bytes() / m.sector_bytes() - 64;
  std::mt19937_64 rng(0x1EAD);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  for (const double w : {30.0, 1e6}) {
    const double beta = asatf_beta(w, AgingForm::JacobsonWilkes, m);
    for (const Millis origin : {0.0, 1.7e12}) {
      AccessIndex idx(m, true);
      std::uint64_t next_id = 1;
      auto add = [&](Millis arrival) {
        idx.insert(make_request(m, next_id++, rng() % lbas, arrival, 16,
                                u01(rng) < 0.3 ? Op::Write : Op::Read));
      };
      add(origin - 1e12);  // starved
      Millis now = origin;
      HeadState head = random_head(m, rng, 1e3);
      for (int step = 0; step < 400; ++step) {
        const std::size_t want = 1 + rng() % 40;
        while (idx.size() < want) add(now - 50.0 * u01(rng));
        now += step % 50 == 49 ? 1e7 * u01(rng) : 20.0 * u01(rng);
        AccessIndex::Query q;
        q.head = head;
        q.now = now;
        q.beta = step % 100 == 99 ? 0.0 : beta;
        const auto fast = idx.best(q);
        require_same(fast, idx.best_scan(q));
        const Request r = *idx.erase(fast.req->id);
        head = m.service(head, r.op, r.offset, r.length).end;
      }
    }
  }
}

TEST_CASE("the x-column search costs few requests at long MEMS queues (Hong sec. 7)",
          "[rotational][satf][mems]") {
  // 1024 uniform requests on the MEMS sled: every x move pays the settle time, so the
  // search ends within a few bands of the sled's column, costing a small part.
  auto model = load_model("mems");
  std::mt19937_64 rng(43);
  AccessIndex idx(*model, true);
  for (const auto& r : random_queue(*model, rng, 1024, 1000.0)) idx.insert(r);
  std::size_t costed = 0;
  constexpr int kPicks = 500;
  for (int i = 0; i < kPicks; ++i) {
    AccessIndex::Query q;
    q.head = random_head(*model, rng, 1e6);
    q.now = 1000.0;
    q.beta = i % 2 == 0 ? 0.0 : asatf_beta(5, AgingForm::Hong, *model);
    REQUIRE(idx.best(q).req != nullptr);
    costed += idx.last_stats().costed;
  }
  INFO("mean costed " << double(costed) / kPicks);
  CHECK(costed < 64 * kPicks);  // fewer than 64 of 1024 requests costed per pick
}

TEST_CASE("a rounding error behind the head counts as reachable, as in the model",
          "[rotational][satf]") {
  // The request's sector comes under the head exactly when the seek ends; the model
  // waits 0, so the bounds must not push the request a rotation away.
  FakeDisk disk;
  AccessIndex idx(disk, false);
  // From cylinder 0 at t = 0: seek to cylinder 10 takes 2 + 1 = 3 ms = 0.3 rotation,
  // and sector 3 of that track starts at angle 0.3.
  idx.insert(make_request(disk, 1, disk.lba(10, 0, 3), 0.0));
  idx.insert(make_request(disk, 2, disk.lba(0, 0, 9), 0.0));  // 9 ms on the same track
  AccessIndex::Query q;
  q.head = head_at(0, 0, 0.0);
  const auto c = idx.best(q);
  REQUIRE(c.req != nullptr);
  CHECK(c.req->id == 1);
  CHECK(c.positioning_ms == Approx(3.0));
}

TEST_CASE("ties go to the earliest arrival, then the lowest id", "[rotational][satf]") {
  FakeDisk disk;
  AccessIndex idx(disk, false);
  const std::uint64_t same = disk.lba(40, 1, 5);
  idx.insert(make_request(disk, 9, same, 20.0));
  idx.insert(make_request(disk, 7, same, 10.0));
  idx.insert(make_request(disk, 3, same, 10.0));
  idx.insert(make_request(disk, 5, same, 30.0));
  AccessIndex::Query q;
  q.head = head_at(3, 0, 1.25);
  std::vector<std::uint64_t> order;
  while (!idx.empty()) order.push_back(idx.erase(idx.best(q).req->id)->id);
  CHECK(order == std::vector<std::uint64_t>{3, 7, 9, 5});
}

TEST_CASE("the index keeps its request set through inserts, erases and drain",
          "[rotational]") {
  auto model = load_model("hp97560");
  std::mt19937_64 rng(7);
  AccessIndex idx(*model, true);
  std::map<std::uint64_t, Millis> held;
  std::uint64_t next = 1;
  for (int step = 0; step < 20000; ++step) {
    const auto what = rng() % 3;
    if (what < 2 || held.empty()) {
      const Millis arrival = static_cast<Millis>(rng() % 10000);
      idx.insert(make_request(*model, next, rng() % 2000000, arrival));
      held[next++] = arrival;
    } else {
      auto it = std::next(held.begin(), static_cast<long>(rng() % held.size()));
      REQUIRE(idx.erase(it->first).has_value());
      REQUIRE_FALSE(idx.erase(it->first).has_value());
      held.erase(it);
    }
    REQUIRE(idx.size() == held.size());
    if (step % 997 == 0) {
      Millis oldest = std::numeric_limits<Millis>::infinity();
      for (const auto& [id, a] : held) oldest = std::min(oldest, a);
      REQUIRE(idx.oldest_arrival() == oldest);
    }
  }
  CHECK_THROWS_AS(idx.insert(make_request(*model, held.begin()->first, 0, 0.0)),
                  std::invalid_argument);
  auto all = idx.drain();
  CHECK(all.size() == held.size());
  CHECK(idx.empty());
  for (const auto& r : all) CHECK(held.count(r.id) == 1);
}

TEST_CASE("ids are found, taken and refused twice whether the queue is short or long",
          "[rotational]") {
  // A short queue finds ids without the id map, a long one (above kLinearMax) with it;
  // ids 64 apart share the short form's filter, so they are held side by side here.
  auto model = load_model("hp97560");
  AccessIndex idx(*model, false);
  std::vector<std::uint64_t> ids;
  for (std::uint64_t k = 0; k < 2 * AccessIndex::kLinearMax; ++k) ids.push_back(5 + 64 * (k % 3) + 192 * (k / 3));
  auto check_all = [&](std::size_t held) {
    for (std::size_t k = 0; k < ids.size(); ++k) {
      INFO("id " << ids[k] << " held " << held);
      CHECK(idx.contains(ids[k]) == (k < held));
      CHECK((idx.find(ids[k]) != nullptr) == (k < held));
      if (k < held) {
        CHECK(idx.find(ids[k])->id == ids[k]);
        CHECK_THROWS_AS(idx.insert(make_request(*model, ids[k], 0, 0.0)), std::invalid_argument);
      }
    }
    CHECK(idx.size() == held);
  };
  for (std::size_t k = 0; k < ids.size(); ++k) {
    idx.insert(make_request(*model, ids[k], 1000 * k, static_cast<Millis>(k)));
    if (k % 16 == 0 || k == AccessIndex::kLinearMax) check_all(k + 1);
  }
  check_all(ids.size());
  // Back down through the threshold, taking each request by the pointer find() gives.
  for (std::size_t held = ids.size(); held > 0; --held) {
    const auto r = idx.take(idx.find(ids[held - 1]));
    REQUIRE(r.has_value());
    CHECK(r->id == ids[held - 1]);
    CHECK(r->offset == 1000 * (held - 1) * model->sector_bytes());
    if (held % 16 == 0 || held == AccessIndex::kGridOff) check_all(held - 1);
  }
  CHECK(idx.empty());
}

TEST_CASE("the registered SATF and ASATF pick the same sequences as their exhaustive form",
          "[rotational][satf][asatf]") {
  struct Case {
    const char* model;
    const char* spec;
    std::uint64_t lbas;
  };
  // The MEMS sled has no sector time, so only Hong's form of the age weight.
  for (const Case& c : {Case{"hp97560", "satf", 2600000}, Case{"hp97560", "asatf:w=30", 2600000},
                        Case{"hp97560", "asatf:w=5,form=hong", 2600000},
                        Case{"hp97560", "asptf:w=200", 2600000}, Case{"mems", "satf", 6200000},
                        Case{"mems", "asatf:w=5,form=hong", 6200000},
                        Case{"mems", "asptf:w=200,form=hong", 6200000}}) {
    INFO(c.model << " " << c.spec);
    auto model = load_model(c.model);
    const std::string spec = c.spec;
    auto fast = make_scheduler(spec, *model);
    auto scan = make_scheduler(spec + (spec.find(':') == std::string::npos ? ":" : ",") + "search=scan", *model);
    std::mt19937_64 rng(99);
    HeadState head = model->initial_state();
    std::uint64_t id = 0;
    Millis now = 0.0;
    for (int step = 0; step < 3000; ++step) {
      // Arrivals faster than service for a while, so the queue grows to hundreds.
      const int arrivals = step < 1500 ? 2 : static_cast<int>(rng() % 2);
      for (int a = 0; a < arrivals; ++a) {
        const auto r = make_request(*model, ++id, rng() % c.lbas, now, 16);
        fast->add(r);
        scan->add(r);
      }
      const auto a = fast->pick(now, head);
      const auto b = scan->pick(now, head);
      REQUIRE(a.has_value() == b.has_value());
      if (!a) continue;
      REQUIRE(a->id == b->id);
      head = model->service(head, a->op, a->offset, a->length).end;
      now = head.time_ms;
    }
    CHECK(fast->size() == scan->size());
  }
}

TEST_CASE("cell search stays exact while the queue grows and shrinks across the grid threshold",
          "[rotational][satf][asatf]") {
  // Short queues are searched without the grid, which is built above kLinearMax
  // requests and dropped below kGridOff: every transition must keep the index exact.
  for (const char* name : {"hp97560", "mems"}) {
    INFO(name);
    auto model = load_model(name);
    const DeviceModel& m = *model;
    std::mt19937_64 rng(123);
    AccessIndex idx(m, true);
    std::vector<std::uint64_t> ids;
    std::uint64_t next = 1;
    const std::uint64_t lbas = m.capacity_bytes() / m.sector_bytes() - 16;
    const double beta = m.sector_time_ms() > 0.0 ? asatf_beta(30, AgingForm::JacobsonWilkes, m)
                                                 : asatf_beta(5, AgingForm::Hong, m);
    Millis now = 0;
    for (int step = 0; step < 6000; ++step) {
      now += 3.0;
      // Drift up for a while, then down, so the size sweeps 0..~70 repeatedly.
      const bool grow = (step / 150) % 2 == 0;
      if (ids.empty() || (rng() % 10 < (grow ? 7u : 3u))) {
        const Millis arrival = now - static_cast<Millis>(rng() % 3000);
        idx.insert(make_request(m, next, rng() % lbas, arrival, 16));
        ids.push_back(next++);
      } else {
        const std::size_t k = rng() % ids.size();
        REQUIRE(idx.erase(ids[k]).has_value());
        ids[k] = ids.back();
        ids.pop_back();
      }
      AccessIndex::Query q;
      q.head = random_head(m, rng, 1e6);
      q.now = now;
      q.beta = step % 2 == 0 ? 0.0 : beta;
      require_same(idx.best(q), idx.best_scan(q));
      REQUIRE(idx.size() == ids.size());
    }
  }
}
