// nbdkit-uring-plugin: serves a regular file or block device through io_uring. See
// nbdkit-uring-plugin.pod for the user's view, file_server.hpp for what each request
// does and uring_engine.hpp for how it reaches the kernel.
#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "common/nbdkit_callback.hpp"
#include "common/nbdkit_key_parsers.hpp"
#include "common/nbdkit_plugin_table.hpp"
#include "daemon/uring/backing_file.hpp"
#include "daemon/uring/bounce_pool.hpp"
#include "daemon/uring/file_server.hpp"
#include "daemon/uring/io_engine.hpp"
#include "daemon/uring/uring_config.hpp"
#include "daemon/uring/uring_engine.hpp"

// -D uring.trace=1 logs every request and its result (with -v).
extern "C" NBDKIT_DLL_PUBLIC int uring_debug_trace;
int uring_debug_trace = 0;

namespace {

using namespace disksched::uring;

UringConfig config;
std::unique_ptr<BackingFile> file;
int uring_probe = 0;   // 0, or why io_uring cannot be used (-errno)
std::unique_ptr<BouncePool> pool;
std::unique_ptr<IoEngine> engine;
std::unique_ptr<FileServer> server;
BlockSizes block_sizes;  // .block_size's answer, known once the file is open

int uring_config(const char* key, const char* value) {
  return disksched::nbdkit_guard("uring", [&] {
    std::string v = value;
    if (std::strcmp(key, "file") == 0) {
      const auto abs = disksched::nbdkit_path_value(value, /*must_exist=*/true);
      if (!abs) return -1;
      v = *abs;
    }
    config.set(key, v, disksched::nbdkit_key_parsers());
    return 0;
  });
}

int uring_config_complete() {
  return disksched::nbdkit_guard("uring", [] {
    config.check();
    return 0;
  });
}

// Everything that can fail is checked here, before nbdkit forks, so the errors reach the
// terminal; threads and the ring are made in after_fork.
int uring_get_ready() {
  try {
    file = std::make_unique<BackingFile>(config.file, config.direct);
  } catch (const std::exception& e) {
    nbdkit_error("uring: %s", e.what());
    return -1;
  }
  try {
    const auto [logical, physical] =
        config.block_sizes(file->block_device(), file->logical_block(), file->physical_block());
    block_sizes = advertised_block_sizes(logical, physical, config.direct, file->direct_align());
  } catch (const std::exception& e) {
    nbdkit_error("uring: %s", e.what());
    return -1;
  }
  if (config.direct && file->size() % file->direct_align() != 0)
    nbdkit_debug("uring: %s: size %llu is not a multiple of the O_DIRECT alignment %u; the "
                 "last %llu bytes are not exported",
                 config.file.c_str(), static_cast<unsigned long long>(file->size()),
                 file->direct_align(),
                 static_cast<unsigned long long>(file->size() % file->direct_align()));
  uring_probe = probe_io_uring();
  if (uring_probe != 0) {
    if (config.fallback != Fallback::Pread) {
      nbdkit_error("uring: %s", io_uring_unavailable_message(uring_probe).c_str());
      return -1;
    }
    nbdkit_debug("uring: io_uring unavailable (%s); serving with pread/pwrite (fallback=pread)",
                 std::strerror(-uring_probe));
  }
  return 0;
}

int uring_after_fork() {
  try {
    if (config.direct) pool = std::make_unique<BouncePool>(config.buffers, config.buffer_bytes);
    if (uring_probe == 0) {
      try {
        auto e = std::make_unique<UringEngine>(
            file->fd(), config.entries, pool ? pool->iovecs() : std::vector<iovec>{},
            static_cast<std::int64_t>(config.poll_us) * 1000);
        nbdkit_debug("uring: %s", e->description().c_str());
        engine = std::move(e);
      } catch (const std::system_error& e) {
        if (config.fallback != Fallback::Pread) {
          nbdkit_error("uring: %s", io_uring_unavailable_message(-e.code().value()).c_str());
          return -1;
        }
        nbdkit_debug("uring: %s; serving with pread/pwrite (fallback=pread)", e.what());
      }
    }
    if (!engine) engine = make_pread_engine(file->fd());
    server = std::make_unique<FileServer>(
        *file, *engine, pool.get(),
        FileServer::Options{config.nowait_reads, config.nowait_writes});
    nbdkit_debug("uring: serving %s (%s, %llu bytes, %s, engine %s)", config.file.c_str(),
                 file->block_device() ? "block device" : "regular file",
                 static_cast<unsigned long long>(server->size()),
                 config.direct ? "O_DIRECT" : "buffered", std::string(engine->name()).c_str());
    return 0;
  } catch (const std::exception& e) {
    nbdkit_error("uring: %s", e.what());
    return -1;
  }
}

void uring_cleanup() {
  if (server)
    nbdkit_debug("uring: %llu read-modify-writes, %llu zeroes written as data, %llu reads "
                 "from the page cache without the ring, %llu writes without the ring",
                 static_cast<unsigned long long>(server->rmw_count()),
                 static_cast<unsigned long long>(server->zero_writes()),
                 static_cast<unsigned long long>(server->nowait_reads()),
                 static_cast<unsigned long long>(server->inline_writes()));
  server.reset();
  engine.reset();   // stops and joins the ring thread
  pool.reset();
}

void uring_unload() { file.reset(); }

void uring_dump_plugin() {
  std::printf("uring_io_uring=%s\n", probe_io_uring() == 0 ? "yes" : "no");
}

// One export, the default (""): a client that names another is refused, so nothing in
// front of the plugin (the disksched filter keeps a device per export name) is made to
// keep state for names a client invents.
void* uring_open(int /*readonly*/) {
  const char* asked = nbdkit_export_name();
  if (asked != nullptr && *asked != '\0') {
    nbdkit_error("uring: no export named '%s': this plugin serves one export, the default "
                 "(an empty name)", asked);
    return nullptr;
  }
  return NBDKIT_HANDLE_NOT_NEEDED;
}

int64_t uring_get_size(void*) { return static_cast<int64_t>(server->size()); }

int uring_block_size(void*, uint32_t* minimum, uint32_t* preferred, uint32_t* maximum) {
  *minimum = block_sizes.minimum;
  *preferred = block_sizes.preferred;
  *maximum = block_sizes.maximum;
  return 0;
}

int uring_can_write(void*) { return file->writable() ? 1 : 0; }
int uring_can_flush(void*) { return 1; }
int uring_can_trim(void*) { return file->writable() ? 1 : 0; }
int uring_can_zero(void*) { return file->writable() ? 1 : 0; }
int uring_can_fast_zero(void*) { return 1; }
int uring_can_fua(void*) { return NBDKIT_FUA_NATIVE; }
// One fd shared by all connections and no cache of our own: a flush covers them all.
int uring_can_multi_conn(void*) { return 1; }
int uring_is_rotational(void*) { return file->rotational() ? 1 : 0; }

int result(int r, const char* what, uint32_t count, uint64_t offset, uint32_t flags) {
  if (uring_debug_trace)
    nbdkit_debug("uring: %s off=%llu len=%u%s%s%s -> %s", what,
                 static_cast<unsigned long long>(offset), count,
                 (flags & NBDKIT_FLAG_FUA) ? " fua" : "",
                 (flags & NBDKIT_FLAG_MAY_TRIM) ? " may_trim" : "",
                 (flags & NBDKIT_FLAG_FAST_ZERO) ? " fast" : "", r == 0 ? "ok" : std::strerror(-r));
  if (r == 0) return 0;
  if (!(r == -ENOTSUP && (flags & NBDKIT_FLAG_FAST_ZERO)))
    nbdkit_error("uring: %s %u bytes at %llu: %s", what, count,
                 static_cast<unsigned long long>(offset), std::strerror(-r));
  nbdkit_set_error(-r);
  return -1;
}

int uring_pread(void*, void* buf, uint32_t count, uint64_t offset, uint32_t flags) {
  return result(server->read(buf, count, offset), "read", count, offset, flags);
}

int uring_pwrite(void*, const void* buf, uint32_t count, uint64_t offset, uint32_t flags) {
  const bool fua = flags & NBDKIT_FLAG_FUA;
  return result(server->write(buf, count, offset, fua), fua ? "write(RWF_DSYNC)" : "write", count,
                offset, flags);
}

int uring_flush(void*, uint32_t flags) {
  return result(server->flush(), "flush(fdatasync)", 0, 0, flags);
}

int uring_trim(void*, uint32_t count, uint64_t offset, uint32_t flags) {
  return result(server->trim(count, offset, flags & NBDKIT_FLAG_FUA), "trim", count, offset, flags);
}

int uring_zero(void*, uint32_t count, uint64_t offset, uint32_t flags) {
  return result(server->zero(count, offset, flags & NBDKIT_FLAG_MAY_TRIM, flags & NBDKIT_FLAG_FUA,
                             flags & NBDKIT_FLAG_FAST_ZERO),
                "zero", count, offset, flags);
}

// Made from the key table (uring_config.cpp).
const char* const uring_config_help = uring_config_help_text();

nbdkit_plugin make_plugin() {
  nbdkit_plugin p = disksched::nbdkit_plugin_named(
      "uring", "nbdkit io_uring file plugin (disksched)",
      "A regular file or block device, served through io_uring", "file");
  DISKSCHED_PLUGIN_CALLBACKS(p, uring);
  return p;
}

nbdkit_plugin plugin = make_plugin();

}  // namespace

#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL
NBDKIT_REGISTER_PLUGIN(plugin)
