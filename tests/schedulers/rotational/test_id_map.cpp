// The access index's id -> slot table against std::map under random inserts and
// erases (backward-shift deletion must keep every probe run intact).
#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "schedulers/rotational/id_map.hpp"

using disksched::rotational::IdMap;

TEST_CASE("IdMap agrees with std::map under random inserts and erases", "[rotational]") {
  std::mt19937_64 rng(8);
  for (std::uint64_t key_space : {40ull, 5000ull, ~0ull}) {
    IdMap m;
    std::map<std::uint64_t, std::int32_t> ref;
    for (int op = 0; op < 60000; ++op) {
      // Sequential-ish ids (as the daemon hands out) and arbitrary ones.
      const std::uint64_t id = op % 2 == 0 ? rng() % key_space : (op / 2) % key_space;
      const auto slot = static_cast<std::int32_t>(rng() % 1000000);
      if (rng() % 3 != 0) {
        const bool fresh = ref.count(id) == 0;
        REQUIRE(m.insert(id, slot) == fresh);
        if (fresh) ref[id] = slot;
      } else {
        auto it = ref.find(id);
        REQUIRE(m.erase(id) == (it == ref.end() ? IdMap::kAbsent : it->second));
        if (it != ref.end()) ref.erase(it);
      }
      REQUIRE(m.size() == ref.size());
      if (op % 8192 == 0)
        for (const auto& [k, v] : ref) REQUIRE(m.find(k) == v);
    }
    for (const auto& [k, v] : ref) REQUIRE(m.find(k) == v);
    m.clear();
    CHECK(m.size() == 0);
    CHECK(m.find(ref.empty() ? 1 : ref.begin()->first) == IdMap::kAbsent);
  }
}
