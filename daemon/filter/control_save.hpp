// Where `ctl save` may write, and how: the control socket runs as the daemon's user
// (often root), so a command line must not be able to write just anywhere. Files go
// only into the directory given by sched-save-dir=, are written to a temporary file
// there and renamed into place (a reader never sees half a profile, a hard link to the
// old file keeps its contents), and an existing name that is not a regular file (a
// symbolic link, a FIFO, a device) is refused rather than followed or opened.
#pragma once

#include <string>

namespace disksched {

// Why `save` is refused when no sched-save-dir= was given.
extern const char* const kSaveOff;

// Writes `contents` to the file `target` names in `save_dir` and returns its full path.
// `target` is a bare file name (written in save_dir) or an absolute path whose directory
// is save_dir. Throws std::runtime_error saying what was wrong and how to say it right.
std::string save_in_directory(const std::string& save_dir, const std::string& target,
                              const std::string& contents);

}  // namespace disksched
