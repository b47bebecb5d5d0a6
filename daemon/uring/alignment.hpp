// Splitting a byte range at alignment boundaries, for O_DIRECT and block-device
// operations that need whole blocks.
#pragma once

#include <cstdint>

namespace disksched::uring {

struct Span {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool empty() const { return length == 0; }
  std::uint64_t end() const { return offset + length; }
};

// [offset, offset + length) = head + body + tail, where body is the largest run of whole
// `align`-byte blocks inside the range, head the bytes before it, tail the bytes after.
// If the range lies within one block, body is empty and everything is in head.
struct Split {
  Span head, body, tail;
};

constexpr std::uint64_t align_down(std::uint64_t x, std::uint64_t a) { return x / a * a; }
constexpr std::uint64_t align_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }
constexpr bool is_aligned(std::uint64_t x, std::uint64_t a) { return x % a == 0; }

constexpr Split split_aligned(std::uint64_t offset, std::uint64_t length, std::uint64_t align) {
  Split s;
  const std::uint64_t end = offset + length;
  const std::uint64_t body_begin = align_up(offset, align);
  const std::uint64_t body_end = align_down(end, align);
  if (body_begin >= body_end) {
    s.head = {offset, length};
    return s;
  }
  s.head = {offset, body_begin - offset};
  s.body = {body_begin, body_end - body_begin};
  s.tail = {body_end, end - body_end};
  return s;
}

// The whole blocks that cover [offset, offset + length).
constexpr Span cover_aligned(std::uint64_t offset, std::uint64_t length, std::uint64_t align) {
  const std::uint64_t b = align_down(offset, align);
  return {b, align_up(offset + length, align) - b};
}

}  // namespace disksched::uring
