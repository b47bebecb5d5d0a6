// libnbd, loaded when a command first calls it. Linked in, libnbd and what it pulls in
// (GnuTLS, libxml2, ICU) start up with every process: about 3.5 ms of CPU before main,
// which `disksched sim` (about 130 ms for 200 replications) and the other commands that
// never open a connection paid too. The commands that connect (replay, extract over
// NBD) call these, which find the library's own function once and forward to it.
#include <dlfcn.h>
#include <libnbd.h>

#include <cstdio>
#include <cstdlib>

namespace {

void* library() {
  static void* const lib = [] {
    void* l = dlopen("libnbd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (l == nullptr) {
      std::fprintf(stderr, "disksched: cannot load libnbd (libnbd.so.0): %s\n", dlerror());
      std::exit(1);
    }
    return l;
  }();
  return lib;
}

template <typename F>
F symbol(const char* name) {
  void* s = dlsym(library(), name);
  if (s == nullptr) {
    std::fprintf(stderr, "disksched: libnbd.so.0 has no %s\n", name);
    std::exit(1);
  }
  return reinterpret_cast<F>(s);
}

}  // namespace

// The library's `name`, found on the first call, called with the arguments.
#define NBD_FORWARD(name, ...)                                      \
  static const auto real = symbol<decltype(&::name)>(#name);        \
  return real(__VA_ARGS__)

extern "C" {

const char* nbd_get_error(void) { NBD_FORWARD(nbd_get_error); }
struct nbd_handle* nbd_create(void) { NBD_FORWARD(nbd_create); }
void nbd_close(struct nbd_handle* h) { NBD_FORWARD(nbd_close, h); }
int nbd_connect_uri(struct nbd_handle* h, const char* uri) { NBD_FORWARD(nbd_connect_uri, h, uri); }
int nbd_connect_command(struct nbd_handle* h, char** argv) { NBD_FORWARD(nbd_connect_command, h, argv); }
int nbd_shutdown(struct nbd_handle* h, uint32_t flags) { NBD_FORWARD(nbd_shutdown, h, flags); }
int64_t nbd_get_size(struct nbd_handle* h) { NBD_FORWARD(nbd_get_size, h); }
int64_t nbd_get_block_size(struct nbd_handle* h, int size_type) {
  NBD_FORWARD(nbd_get_block_size, h, size_type);
}
int nbd_is_read_only(struct nbd_handle* h) { NBD_FORWARD(nbd_is_read_only, h); }
int nbd_can_fua(struct nbd_handle* h) { NBD_FORWARD(nbd_can_fua, h); }
int nbd_can_flush(struct nbd_handle* h) { NBD_FORWARD(nbd_can_flush, h); }
int nbd_can_trim(struct nbd_handle* h) { NBD_FORWARD(nbd_can_trim, h); }
int nbd_pread(struct nbd_handle* h, void* buf, size_t count, uint64_t offset, uint32_t flags) {
  NBD_FORWARD(nbd_pread, h, buf, count, offset, flags);
}
int nbd_pwrite(struct nbd_handle* h, const void* buf, size_t count, uint64_t offset,
               uint32_t flags) {
  NBD_FORWARD(nbd_pwrite, h, buf, count, offset, flags);
}
int64_t nbd_aio_pread(struct nbd_handle* h, void* buf, size_t count, uint64_t offset,
                      nbd_completion_callback completion_callback, uint32_t flags) {
  NBD_FORWARD(nbd_aio_pread, h, buf, count, offset, completion_callback, flags);
}
int64_t nbd_aio_pwrite(struct nbd_handle* h, const void* buf, size_t count, uint64_t offset,
                       nbd_completion_callback completion_callback, uint32_t flags) {
  NBD_FORWARD(nbd_aio_pwrite, h, buf, count, offset, completion_callback, flags);
}
int64_t nbd_aio_trim(struct nbd_handle* h, uint64_t count, uint64_t offset,
                     nbd_completion_callback completion_callback, uint32_t flags) {
  NBD_FORWARD(nbd_aio_trim, h, count, offset, completion_callback, flags);
}
int64_t nbd_aio_flush(struct nbd_handle* h, nbd_completion_callback completion_callback,
                      uint32_t flags) {
  NBD_FORWARD(nbd_aio_flush, h, completion_callback, flags);
}
int nbd_aio_command_completed(struct nbd_handle* h, uint64_t cookie) {
  NBD_FORWARD(nbd_aio_command_completed, h, cookie);
}
int nbd_poll(struct nbd_handle* h, int timeout) { NBD_FORWARD(nbd_poll, h, timeout); }
int nbd_aio_get_fd(struct nbd_handle* h) { NBD_FORWARD(nbd_aio_get_fd, h); }
unsigned nbd_aio_get_direction(struct nbd_handle* h) { NBD_FORWARD(nbd_aio_get_direction, h); }
int nbd_aio_notify_read(struct nbd_handle* h) { NBD_FORWARD(nbd_aio_notify_read, h); }
int nbd_aio_notify_write(struct nbd_handle* h) { NBD_FORWARD(nbd_aio_notify_write, h); }

}  // extern "C"
