#include "emulator/sim/process_flow/buffer_cache.hpp"

#include <stdexcept>

namespace disksched::flow {

BufferCache::BufferCache(std::size_t slots) : slots_(slots), pos_(slots), in_list_(slots, false) {
  if (slots == 0) throw std::invalid_argument("buffer cache: needs at least one slot");
  for (std::size_t i = 0; i < slots; ++i) make_reusable(i, false);
}

std::optional<std::size_t> BufferCache::find(const BlockKey& key) const {
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::size_t> BufferCache::claim(const BlockKey& key) {
  if (reusable_.empty()) return std::nullopt;
  const std::size_t i = reusable_.front();
  Slot& s = slots_[i];
  if (s.state != State::Free) index_.erase(s.key);
  s = Slot{};
  s.key = key;
  s.state = State::Clean;
  index_[key] = i;
  touch(i);
  return i;
}

void BufferCache::touch(std::size_t i) {
  if (!in_list_[i]) return;
  reusable_.erase(pos_[i]);
  pos_[i] = reusable_.insert(reusable_.end(), i);
}

void BufferCache::make_reusable(std::size_t i, bool first) {
  if (in_list_[i]) return;
  pos_[i] = reusable_.insert(first ? reusable_.begin() : reusable_.end(), i);
  in_list_[i] = true;
}

void BufferCache::make_busy(std::size_t i) {
  if (!in_list_[i]) return;
  reusable_.erase(pos_[i]);
  in_list_[i] = false;
}

void BufferCache::set_reading(std::size_t i, std::uint64_t request, bool read_ahead) {
  Slot& s = slots_.at(i);
  if (s.state == State::Dirty) --dirty_;
  s.state = State::Reading;
  s.request = request;
  s.read_ahead = read_ahead;
  make_busy(i);
}

void BufferCache::set_clean(std::size_t i) {
  Slot& s = slots_.at(i);
  const bool written = s.state == State::Writing;
  if (s.state == State::Dirty) --dirty_;
  s.state = State::Clean;
  make_reusable(i, written);
  if (!written) touch(i);
}

void BufferCache::set_dirty(std::size_t i) {
  Slot& s = slots_.at(i);
  if (s.state != State::Dirty) ++dirty_;
  s.state = State::Dirty;
  s.read_ahead = false;
  make_busy(i);
}

void BufferCache::set_writing(std::size_t i, std::uint64_t request) {
  Slot& s = slots_.at(i);
  if (s.state == State::Dirty) --dirty_;
  s.state = State::Writing;
  s.request = request;
  make_busy(i);
}

}  // namespace disksched::flow
