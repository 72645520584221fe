#include "file_write.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "status.h"

namespace cvis {
namespace {

// The mount point holding `path` and its device ("/data (/dev/sdb1)"), from /proc/self/mounts;
// the file's folder when unknown.
std::string DeviceOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash);
  std::ifstream mounts("/proc/self/mounts");
  std::string line, best_point, best_device;
  bool found = false;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string device, point;
    if (!(fields >> device >> point)) continue;
    // The kernel writes a space in a mount point as \040.
    for (size_t at; (at = point.find("\\040")) != std::string::npos;) point.replace(at, 4, " ");
    const bool inside = point == "/" || path == point || path.compare(0, point.size() + 1, point + "/") == 0;
    if (inside && (!found || point.size() >= best_point.size())) {
      best_point = point;
      best_device = device;
      found = true;
    }
  }
  return found ? Str(best_point, " (", best_device, ")") : folder;
}

// Whole megabytes, at least 1 for anything above zero.
long long Megabytes(unsigned long long bytes) {
  return bytes == 0 ? 0 : std::max(1LL, static_cast<long long>((bytes + (1ULL << 19)) >> 20));
}

}  // namespace

cvis_status WriteFailure(const std::string& path, int error, size_t bytes) {
  if (error == ENOSPC || error == EDQUOT) {
    std::string need;
    if (bytes > 0) {
      const size_t slash = path.find_last_of('/');
      struct statvfs info {};
      const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash);
      need = Str(" (needs about ", Megabytes(bytes), " MB");
      if (statvfs(folder.c_str(), &info) == 0) {
        need += Str(", ", Megabytes(static_cast<unsigned long long>(info.f_bavail) * info.f_frsize), " MB free");
      }
      need += ")";
    }
    const char* what = error == ENOSPC ? "no space left on " : "disk quota exceeded on ";
    return Fail(CVIS_NO_SPACE, Str(what, DeviceOf(path), " while writing ", path, need));
  }
  const size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string reason = std::strerror(error);
  if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  return Fail(CVIS_IO_ERROR, Str(name, ": cannot write (", reason, ")"));
}

cvis_status WriteFileAtomically(const std::string& path, const void* data, size_t size) {
  const size_t slash = path.find_last_of('/');
  const std::string temporary = slash == std::string::npos
                                    ? "." + path + ".tmp"
                                    : path.substr(0, slash + 1) + "." + path.substr(slash + 1) + ".tmp";
  ::unlink(temporary.c_str());  // this process's own leftover of a failed earlier write
  const int descriptor = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (descriptor < 0) return WriteFailure(path, errno, size);
  const char* bytes = static_cast<const char*>(data);
  size_t offset = 0;
  int error = 0;
  while (offset < size) {
    const ssize_t written = ::write(descriptor, bytes + offset, size - offset);
    if (written < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    offset += static_cast<size_t>(written);
  }
  // close(2) reports a write the file system deferred (NFS, a quota).
  if (::close(descriptor) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    return WriteFailure(path, error, size);
  }
  return CVIS_OK;
}

}  // namespace cvis
