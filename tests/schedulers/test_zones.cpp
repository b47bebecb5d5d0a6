// Hong's zone schedulers for MEMS (Hong sec. 6, 7.1, 9; Fig. 3, 6). The orderings are
// pinned with the fake MEMS model of helpers.hpp, whose costs the tests control; the
// zone schedulers read only Location fields and positioning_ms, so what they show holds
// for any MEMS model.
#include <algorithm>
#include <map>

#include "schedulers/mems/zone_grid.hpp"
#include "schedulers/mems/zone_scheduler.hpp"
#include "tests/schedulers/helpers.hpp"

using namespace disksched;
using namespace disksched::testing;
using disksched::mems::ZoneCell;
using disksched::mems::ZoneGrid;
using disksched::mems::ZoneKey;

namespace {

HeadState sled(std::int64_t x, double y) {
  HeadState h;
  h.cylinder = x;
  h.y = y;
  h.y_dir = (x & 1) == 0 ? +1 : -1;
  return h;
}

}  // namespace

TEST_CASE("zone traversal is Hong's Fig. 3: a serpentine down and up the columns of cells",
          "[zones][grid]") {
  // Fig. 3 numbers 12 cells, 6 across (x) and 2 down (y):
  //   0 3 4 7 8 11
  //   1 2 5 6 9 10
  const int fig3[2][6] = {{0, 3, 4, 7, 8, 11}, {1, 2, 5, 6, 9, 10}};
  std::vector<std::pair<ZoneKey, int>> cells;
  for (int row = 0; row < 2; ++row)
    for (int col = 0; col < 6; ++col)
      cells.push_back({ZoneGrid::key(ZoneCell{col, row, 0}, 0), fig3[row][col]});
  std::sort(cells.begin(), cells.end());
  for (int i = 0; i < 12; ++i) CHECK(cells[i].second == i);
}

TEST_CASE("even and odd bit columns of a cell are separate zones, even first (Hong Fig. 3)",
          "[zones][grid]") {
  ZoneGrid g(120, 1200);
  ZoneCell even = g.cell(10, 100), odd = g.cell(11, 100);
  CHECK(even.col == odd.col);
  CHECK(even.row == odd.row);
  CHECK(even.parity == 0);
  CHECK(odd.parity == 1);
  CHECK(ZoneGrid::key(even, 0) < ZoneGrid::key(odd, 0));
  CHECK(ZoneGrid::key(odd, 0) < ZoneGrid::key(g.cell(10, 1300), 0));  // next cell down
  // 120 x 1200 bit cells: x 0..119 and y 0..1199 are cell (0, 0).
  CHECK(g.cell(119, 1199.5) == ZoneCell{0, 0, 1});
  CHECK(g.cell(120, 1200) == ZoneCell{1, 1, 0});
}

TEST_CASE("pyramid levels merge 2x2 and 4x4 cells and keep the parity split (Hong sec. 9)",
          "[zones][grid][pyramid]") {
  ZoneGrid g(120, 1200);
  // Cells (0..3, 0..3) of one parity are one zone at level 2, four at level 1.
  std::map<ZoneKey, int> l1, l2;
  for (int col = 0; col < 4; ++col)
    for (int row = 0; row < 4; ++row) {
      ZoneCell c{col, row, 0};
      ++l1[ZoneGrid::key(c, 1)];
      ++l2[ZoneGrid::key(c, 2)];
    }
  CHECK(l1.size() == 4);
  CHECK(l2.size() == 1);
  CHECK(ZoneGrid::key(ZoneCell{0, 0, 0}, 2) != ZoneGrid::key(ZoneCell{0, 0, 1}, 2));
}

TEST_CASE("ZSPTF empties the current zone by SPTF, then the next zone with requests "
          "(Hong sec. 6)",
          "[zones][zsptf]") {
  FakeMems m;
  auto s = make("zsptf", m);
  CHECK(s->spec() == "zsptf:zone=120x1200,pyramid=off,merge4_below=80,merge16_below=20");
  // Cell (0,0): a near and a far request; cell (2,0) and cell (0,1) one each; the head
  // sits in cell (0,0). Order of cells: (0,0), (0,1), [(1,1), (1,0) empty], (2,0).
  s->add(placed(1, 20, 0, 0, 900));   // (0,0), far in y
  s->add(placed(2, 10, 0, 0, 80));    // (0,0), next to the head
  s->add(placed(3, 250, 0, 0, 0));    // (2,0)
  s->add(placed(4, 2, 0, 0, 1300));   // (0,1): the next cell down
  CHECK(pick_all(*s, sled(10, 0)) == Ids{2, 1, 4, 3});
}

TEST_CASE("ZSPTF wraps around from the last zone to the first (C-SCAN, Hong sec. 6)",
          "[zones][zsptf]") {
  FakeMems m;
  auto s = make("zsptf", m);
  s->add(placed(1, 10, 0, 0, 0));     // cell (0,0)
  s->add(placed(2, 2300, 0, 0, 0));   // cell (19,0): behind the head in traversal order
  s->add(placed(3, 2390, 0, 0, 50));  // cell (19,0) too
  // The head is in cell (5,0): the next zones with requests are (19, .), then (0,0).
  CHECK(pick_all(*s, sled(600, 0)) == Ids{2, 3, 1});
}

TEST_CASE("ZSPTF stays in a zone that keeps receiving requests; ZTSPTF moves on "
          "(Hong sec. 6, 7.3)",
          "[zones][zsptf][ztsptf]") {
  FakeMems m;
  for (auto [spec, want] : std::vector<std::pair<std::string, Ids>>{
           {"zsptf", Ids{1, 3, 2}}, {"ztsptf", Ids{1, 2, 3}}}) {
    INFO(spec);
    auto s = make(spec, m);
    s->add(placed(1, 10, 0, 0, 80));     // current zone (0,0)
    s->add(placed(2, 300, 0, 0, 0));     // zone (2,0)
    auto first = s->pick(0, sled(10, 0));
    REQUIRE(first->id == 1);
    s->add(placed(3, 12, 5, 0, 160));    // arrives in (0,0) after the zone was begun
    auto rest = pick_all(*s, head_at(*first), 5);
    Ids order{first->id};
    order.insert(order.end(), rest.begin(), rest.end());
    CHECK(order == want);
  }
}

TEST_CASE("ZTSPTF serves every request queued when it began the zone (Hong sec. 7.3)",
          "[zones][ztsptf]") {
  FakeMems m;
  auto s = make("ztsptf", m);
  for (std::uint64_t i = 0; i < 5; ++i) s->add(placed(i, 10 + 2 * static_cast<std::int64_t>(i), 0, 0, 80.0 * i));
  s->add(placed(9, 500, 0, 0, 0));
  auto order = pick_all(*s, sled(10, 0), 1);
  CHECK(order.size() == 6);
  CHECK(order.back() == 9);
}

TEST_CASE("ZFCFS serves a zone in arrival order (Hong sec. 7.1)", "[zones][zfcfs]") {
  FakeMems m;
  auto s = make("zfcfs", m);
  s->add(placed(1, 20, 3, 0, 900));
  s->add(placed(2, 10, 1, 0, 80));
  s->add(placed(3, 12, 2, 0, 0));
  s->add(placed(4, 300, 0, 0, 0));   // earliest, but in a later zone
  CHECK(pick_all(*s, sled(10, 0)) == Ids{2, 3, 1, 4});
}

TEST_CASE("ZSPTF with pyramiding schedules neighbouring zones together when the queue is "
          "short (Hong sec. 9)",
          "[zones][pyramid]") {
  FakeMems m;
  // 20 x 1200 zones so that two requests in neighbouring zones are close in x. From the
  // head (10, 0): request 1 in the head's zone but far in y, request 2 in the next zone
  // of the same parity but cheaper to reach.
  Request far_in_zone = placed(1, 12, 0, 0, 1150);
  Request next_zone = placed(2, 30, 0, 0, 0);
  HeadState head = sled(10, 0);
  REQUIRE(m.positioning_ms(head, next_zone.loc) < m.positioning_ms(head, far_in_zone.loc));
  for (auto [spec, want] : std::vector<std::pair<std::string, Ids>>{
           {"zsptf:zone=20x1200", Ids{1, 2}},
           {"zsptf:zone=20x1200,pyramid=on", Ids{2, 1}},
           {"pzsptf:zone=20x1200", Ids{2, 1}},
           // With thresholds of 0 the queue is never "short": plain zones.
           {"zsptf:zone=20x1200,pyramid=on,merge4_below=0,merge16_below=0", Ids{1, 2}}}) {
    INFO(spec);
    auto s = make(spec, m);
    s->add(far_in_zone);
    s->add(next_zone);
    CHECK(pick_all(*s, head) == want);
  }
}

TEST_CASE("pyramid level follows the queue length thresholds (Hong sec. 9)", "[zones][pyramid]") {
  FakeMems m;
  mems::ZoneConfig c;
  c.pyramid = true;
  c.merge4_below = 80;
  c.merge16_below = 20;
  mems::ZoneScheduler s("zsptf", mems::InZone::Sptf, c, m);
  CHECK(s.level_for(500) == 0);
  CHECK(s.level_for(80) == 0);
  CHECK(s.level_for(79) == 1);
  CHECK(s.level_for(20) == 1);
  CHECK(s.level_for(19) == 2);
  CHECK(s.level_for(1) == 2);
  c.pyramid = false;
  mems::ZoneScheduler plain("zsptf", mems::InZone::Sptf, c, m);
  CHECK(plain.level_for(1) == 0);
  CHECK_THROWS_AS(make("zsptf:pyramid=on,merge4_below=10,merge16_below=20", m), SpecError);
}

TEST_CASE("zone schedulers need a MEMS model", "[zones]") {
  auto disk = hp97560();
  for (const char* name : {"zsptf", "ztsptf", "zfcfs"}) {
    try {
      make(name, *disk);
      FAIL("accepted a disk");
    } catch (const SpecError& e) {
      CHECK_THAT(e.what(), Catch::Contains("MEMS") && Catch::Contains(name));
    }
  }
}

TEST_CASE("zone schedulers on the MEMS model serve every request (Hong sec. 6)", "[zones]") {
  auto m = mems_model_or_fake();
  const std::uint64_t sectors = m->capacity_bytes() / m->sector_bytes();
  for (const char* spec : {"zsptf", "ztsptf", "zfcfs", "pzsptf", "zsptf:zone=60x600"}) {
    INFO(spec);
    auto s = make(spec, *m);
    for (std::uint64_t i = 0; i < 200; ++i)
      s->add(lba_request(*m, i, (i * 7919 * 131) % (sectors - 16), static_cast<double>(i)));
    auto order = serve_all(*s, *m, m->initial_state());
    std::sort(order.begin(), order.end());
    Ids want(200);
    for (std::uint64_t i = 0; i < 200; ++i) want[i] = i;
    CHECK(order == want);
  }
}
