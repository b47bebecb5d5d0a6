// Where the emulated device keeps its data: sparse memory, or a file (then the data
// survives a restart). Never-written bytes read as zeros.
//
// Thread safety: the device calls every operation in the order it serves them, one at a
// time; the memory store locks anyway (reads shared), so it is safe for any caller.
#pragma once

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace disksched::diskemu {

class Store {
 public:
  virtual ~Store() = default;
  virtual std::uint64_t size() const = 0;
  // These throw std::system_error on I/O errors.
  virtual void read(void* buf, std::uint32_t count, std::uint64_t offset) = 0;
  virtual void write(const void* buf, std::uint32_t count, std::uint64_t offset) = 0;
  // Afterwards the range reads as zeros (trim does the same: simplest honest semantics).
  virtual void zero(std::uint32_t count, std::uint64_t offset) = 0;
  // Makes every completed write durable (fdatasync for a file; nothing for memory).
  virtual void sync() = 0;
  virtual bool persistent() const = 0;
};

// Memory in 64 KiB pages allocated on first write and dropped when zeroed whole.
class SparseMemoryStore final : public Store {
 public:
  static constexpr std::uint32_t page_bytes = 64 * 1024;

  explicit SparseMemoryStore(std::uint64_t size) : size_(size) {}
  std::uint64_t size() const override { return size_; }
  void read(void* buf, std::uint32_t count, std::uint64_t offset) override;
  void write(const void* buf, std::uint32_t count, std::uint64_t offset) override;
  void zero(std::uint32_t count, std::uint64_t offset) override;
  void sync() override {}
  bool persistent() const override { return false; }

  std::size_t pages_allocated() const;

 private:
  std::uint64_t size_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::unique_ptr<char[]>> pages_;
};

// A regular file (extended, sparsely, to the device's size if shorter) or a block device
// (which must be at least that large).
class FileStore final : public Store {
 public:
  // Throws std::runtime_error naming the file and the problem.
  FileStore(const std::string& path, std::uint64_t size);
  ~FileStore() override;
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  std::uint64_t size() const override { return size_; }
  void read(void* buf, std::uint32_t count, std::uint64_t offset) override;
  void write(const void* buf, std::uint32_t count, std::uint64_t offset) override;
  void zero(std::uint32_t count, std::uint64_t offset) override;
  void sync() override;
  bool persistent() const override { return true; }
  const std::string& path() const { return path_; }

 private:
  void write_zeros(std::uint32_t count, std::uint64_t offset);

  std::string path_;
  std::uint64_t size_;
  int fd_ = -1;
  bool block_device_ = false;
  bool can_punch_ = true;
};

}  // namespace disksched::diskemu
