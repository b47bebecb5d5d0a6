// Request id -> slot, for the access index's hot path (every add, pick and remove).
// Open addressing with linear probing and backward-shift deletion: no tombstones, no
// allocation per entry, about a cache line per lookup. std::unordered_map allocates a
// node per insert and cost a third of a short-queue pick.
#pragma once

#include <cstdint>
#include <vector>

namespace disksched::rotational {

class IdMap {
 public:
  static constexpr std::int32_t kAbsent = -1;

  IdMap() { rehash(16); }


  std::size_t size() const { return size_; }

  std::int32_t find(std::uint64_t id) const {
    for (std::size_t i = home(id);; i = (i + 1) & mask_) {
      if (slots_[i] == kAbsent) return kAbsent;
      if (keys_[i] == id) return slots_[i];
    }
  }

  // Inserts id -> slot; false (and no change) when id is present.
  bool insert(std::uint64_t id, std::int32_t slot) {
    if ((size_ + 1) * 2 > keys_.size()) rehash(keys_.size() * 2);
    std::size_t i = home(id);
    for (; slots_[i] != kAbsent; i = (i + 1) & mask_)
      if (keys_[i] == id) return false;
    keys_[i] = id;
    slots_[i] = slot;
    ++size_;
    return true;
  }

  // Removes id; returns its slot, or kAbsent.
  std::int32_t erase(std::uint64_t id) {
    std::size_t i = home(id);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i] == kAbsent) return kAbsent;
      if (keys_[i] == id) break;
    }
    const std::int32_t out = slots_[i];
    // Backward shift: pull later entries of the probe run into the hole when their
    // home position does not lie cyclically in (hole, j].
    for (std::size_t j = (i + 1) & mask_; slots_[j] != kAbsent; j = (j + 1) & mask_) {
      const std::size_t h = home(keys_[j]);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      keys_[i] = keys_[j];
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = kAbsent;
    --size_;
    return out;
  }

  void clear() {
    keys_.clear();
    slots_.clear();
    rehash(16);
  }

 private:
  std::size_t home(std::uint64_t id) const {
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void rehash(std::size_t capacity) {
    std::vector<std::uint64_t> keys(capacity);
    std::vector<std::int32_t> slots(capacity, kAbsent);
    keys.swap(keys_);
    slots.swap(slots_);
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c /= 2) --shift_;
    size_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (slots[i] != kAbsent) insert(keys[i], slots[i]);
  }

  std::vector<std::uint64_t> keys_;
  std::vector<std::int32_t> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace disksched::rotational
