// The file system's buffer cache (GP sec. 5.2): fixed slots of one block each, found by
// (file, block). A slot is free, clean, being read, dirty (a delayed write), or being
// written. Only free and clean slots can be reused, least recently used first; a
// freshly written-back slot is the first to go (its data was touched long ago). The
// flush daemon walks the slots in order, a share of them per wake-up, as GP's does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

namespace disksched::flow {

struct BlockKey {
  std::uint32_t file = 0;
  std::uint64_t block = 0;
  bool operator==(const BlockKey& o) const { return file == o.file && block == o.block; }
};

class BufferCache {
 public:
  enum class State { Free, Clean, Reading, Dirty, Writing };
  struct Slot {
    BlockKey key;
    State state = State::Free;
    bool read_ahead = false;   // brought in by read-ahead and not yet used
    std::uint64_t request = 0; // the request in flight (Reading, Writing)
  };

  explicit BufferCache(std::size_t slots);

  std::size_t size() const { return slots_.size(); }
  const Slot& slot(std::size_t i) const { return slots_.at(i); }

  // The slot holding `key`, if any.
  std::optional<std::size_t> find(const BlockKey& key) const;
  // A slot for `key`, taken from the least recently used free or clean one (whose
  // block is forgotten); nullopt when every slot is dirty or in flight.
  std::optional<std::size_t> claim(const BlockKey& key);
  // Marks a use of slot i (most recently used).
  void touch(std::size_t i);

  void set_reading(std::size_t i, std::uint64_t request, bool read_ahead);
  void set_clean(std::size_t i);  // a read or a write-back completed
  void set_dirty(std::size_t i);
  void set_writing(std::size_t i, std::uint64_t request);
  void used(std::size_t i) { slots_.at(i).read_ahead = false; }

  std::size_t dirty() const { return dirty_; }

 private:
  struct KeyHash {
    std::size_t operator()(const BlockKey& k) const {
      return std::hash<std::uint64_t>()(k.block * 1000003u + k.file);
    }
  };
  void make_reusable(std::size_t i, bool first);
  void make_busy(std::size_t i);

  std::vector<Slot> slots_;
  std::unordered_map<BlockKey, std::size_t, KeyHash> index_;
  std::list<std::size_t> reusable_;  // free and clean slots, least recently used first
  std::vector<std::list<std::size_t>::iterator> pos_;
  std::vector<bool> in_list_;
  std::size_t dirty_ = 0;
};

}  // namespace disksched::flow
