// The callbacks of an nbdkit_plugin table for a plugin whose callbacks are named
// PREFIX_NAME (uring_pread, diskemu_pread, ...): the uring and diskemu plugins offer the
// same set, so the table is written once. Include <nbdkit-plugin.h> first.
#pragma once

#ifndef NBDKIT_PLUGIN_H
#error include <nbdkit-plugin.h> before common/nbdkit_plugin_table.hpp
#endif

namespace disksched {

// A plugin table with its names filled in (the version is the project's), callbacks to
// follow. The strings must outlive the plugin (literals).
inline nbdkit_plugin nbdkit_plugin_named(const char* name, const char* longname,
                                         const char* description, const char* magic_config_key) {
  nbdkit_plugin p = nbdkit_plugin();
  p.name = name;
  p.longname = longname;
  p.version = "0.1.0";
  p.description = description;
  p.magic_config_key = magic_config_key;
  return p;
}

}  // namespace disksched

// Token pasting is why this is a macro: the names differ only by their prefix.
#define DISKSCHED_PLUGIN_CALLBACKS(p, prefix)       \
  do {                                              \
    (p).unload = prefix##_unload;                   \
    (p).config = prefix##_config;                   \
    (p).config_complete = prefix##_config_complete; \
    (p).config_help = prefix##_config_help;         \
    (p).get_ready = prefix##_get_ready;             \
    (p).after_fork = prefix##_after_fork;           \
    (p).cleanup = prefix##_cleanup;                 \
    (p).dump_plugin = prefix##_dump_plugin;         \
    (p).open = prefix##_open;                       \
    (p).get_size = prefix##_get_size;               \
    (p).block_size = prefix##_block_size;           \
    (p).is_rotational = prefix##_is_rotational;     \
    (p).can_write = prefix##_can_write;             \
    (p).can_flush = prefix##_can_flush;             \
    (p).can_trim = prefix##_can_trim;               \
    (p).can_zero = prefix##_can_zero;               \
    (p).can_fast_zero = prefix##_can_fast_zero;     \
    (p).can_fua = prefix##_can_fua;                 \
    (p).can_multi_conn = prefix##_can_multi_conn;   \
    (p).pread = prefix##_pread;                     \
    (p).pwrite = prefix##_pwrite;                   \
    (p).flush = prefix##_flush;                     \
    (p).trim = prefix##_trim;                       \
    (p).zero = prefix##_zero;                       \
  } while (0)
