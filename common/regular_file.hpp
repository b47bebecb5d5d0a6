// Regular files only: replace one atomically, read one without following surprises.
//
// Every file the project writes for someone else to read (metrics, statistics, saved
// profiles, sweep points, CSV tables) goes through replace_file: the new contents are
// written to a temporary file created afresh in the target's directory
// (O_CREAT|O_EXCL|O_NOFOLLOW, so a name planted there is never opened), synced, and
// renamed over the target. A target that exists and is not a regular file (a symbolic
// link, a device such as /dev/null, a directory, a FIFO, a socket) is refused with an
// error naming it: a mistyped path never destroys a disk, and a link planted in a shared
// directory never makes the writer overwrite the file it points to.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace disksched {

// What went wrong, with the path in the message.
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "a symbolic link", "a directory", "a FIFO", "a socket", "a device", for messages.
const char* file_kind(mode_t mode);

// Replaces (or creates) the regular file `path` with `contents`: readers see the old
// file or the whole new one, never a part. Throws FileError naming `path`.
void replace_file(const std::string& path, std::string_view contents, mode_t mode = 0644);

// The same in the directory open at `dir_fd`, for a plain `name` in it; `shown` is the
// path messages name.
void replace_file_at(int dir_fd, const std::string& name, std::string_view contents,
                     const std::string& shown, mode_t mode = 0644);

// The whole of the regular file `path`, or nothing when there is nothing at `path`.
// Anything else there is refused without being opened for reading (a link to /dev/zero
// would never end, a FIFO would block): a symbolic link, a device, a directory, a FIFO.
// A file larger than `max_bytes` is refused too. Throws FileError naming `path`.
std::optional<std::string> read_regular_file(const std::string& path, std::size_t max_bytes);

}  // namespace disksched
