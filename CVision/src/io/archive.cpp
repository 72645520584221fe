// Safe zip extraction with libarchive. Captures come from untrusted phones and web uploads, so
// every entry path is checked before anything is written (no absolute paths, no "..", no links
// or devices), files are created component by component with openat(O_NOFOLLOW) below a
// directory descriptor of dest_dir (a symlink planted in dest_dir cannot redirect a write), and
// sizes are counted while streaming (declared sizes in zip headers can lie).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <archive.h>
#include <archive_entry.h>

#include "../../include/cvis_io.h"
#include "../util/status.h"
#include "image_io.h"

namespace cvis {
namespace {

struct ArchiveDeleter {
  void operator()(archive* reader) const { archive_read_free(reader); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveDeleter>;

// Closes a file descriptor when it goes out of scope.
class ScopedFd {
 public:
  explicit ScopedFd(int fd = -1) : fd_(fd) {}
  ~ScopedFd() { if (fd_ >= 0) ::close(fd_); }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  void Reset(int fd) { if (fd_ >= 0) ::close(fd_); fd_ = fd; }
  int get() const { return fd_; }
 private:
  int fd_;
};

// Splits an entry path on '/' and '\\' (zips written on Windows use either), dropping empty
// and "." components.
std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : path) {
    if (c == '/' || c == '\\') {
      if (!current.empty() && current != ".") parts.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty() && current != ".") parts.push_back(current);
  return parts;
}

// Why an entry makes the whole archive unsafe, or "" when it is acceptable.
std::string UnsafeReason(archive_entry* entry, const std::string& path,
                         const std::vector<std::string>& parts) {
  if (path.empty() || path[0] == '/' || path[0] == '\\' ||
      (path.size() > 1 && path[1] == ':')) {
    return "absolute path";
  }
  for (const std::string& part : parts) {
    if (part == "..") return "path contains \"..\"";
  }
  if (archive_entry_hardlink(entry) != nullptr) return "hard link";
  const mode_t type = archive_entry_filetype(entry);
  if (type == AE_IFLNK || archive_entry_symlink(entry) != nullptr) return "symbolic link";
  if (type != AE_IFREG && type != AE_IFDIR) return "device or special file";
  return "";
}

// __MACOSX/ resource forks and dot-files (.DS_Store, ._foo) are never part of a capture.
bool IsSkipped(const std::vector<std::string>& parts) {
  if (!parts.empty() && parts[0] == "__MACOSX") return true;
  for (const std::string& part : parts) {
    if (!part.empty() && part[0] == '.') return true;
  }
  return false;
}

// Opens (creating where missing) the directories parts[0..count) below root without following
// symbolic links; returns the descriptor or -1 with errno set.
int OpenDirectoryChain(int root, const std::vector<std::string>& parts, size_t count) {
  int current = ::dup(root);
  for (size_t i = 0; i < count && current >= 0; ++i) {
    if (::mkdirat(current, parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
      ::close(current);
      return -1;
    }
    const int next = ::openat(current, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                         O_CLOEXEC);
    ::close(current);
    current = next;
  }
  return current;
}

// Creates a regular file exclusively; an existing regular file (a duplicate entry or a rerun)
// is replaced, never written through (unlinkat removes a link itself, not its target).
int CreateFileExclusive(int directory, const std::string& name) {
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::openat(directory, name.c_str(), flags, 0644);
  if (fd < 0 && errno == EEXIST && ::unlinkat(directory, name.c_str(), 0) == 0) {
    fd = ::openat(directory, name.c_str(), flags, 0644);
  }
  return fd;
}

std::string EntryPath(archive_entry* entry) {
  const char* utf8 = archive_entry_pathname_utf8(entry);
  const char* raw = utf8 != nullptr ? utf8 : archive_entry_pathname(entry);
  return raw != nullptr ? raw : "";
}

ArchivePtr OpenZip(const std::string& path, cvis_status* status) {
  ArchivePtr reader(archive_read_new());
  archive_read_support_format_zip(reader.get());
  if (archive_read_open_filename(reader.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    const bool missing = ::access(path.c_str(), R_OK) != 0;
    *status = Fail(missing ? CVIS_IO_ERROR : CVIS_DECODE_ERROR,
                   Str(BaseName(path), ": ", archive_error_string(reader.get())));
    return nullptr;
  }
  *status = CVIS_OK;
  return reader;
}

// First pass: headers only. Refuses the archive before anything is written when an entry is
// hostile or the entry count is over the cap.
cvis_status ScanArchive(const std::string& archive_path, const cvis_unzip_limits& limits) {
  cvis_status status;
  ArchivePtr reader = OpenZip(archive_path, &status);
  if (!reader) return status;
  const std::string name = BaseName(archive_path);
  archive_entry* entry = nullptr;
  uint64_t entries = 0;
  int result;
  while ((result = archive_read_next_header(reader.get(), &entry)) == ARCHIVE_OK ||
         result == ARCHIVE_WARN) {
    if (++entries > limits.max_entries) {
      return Fail(CVIS_LIMIT_EXCEEDED, Str(name, ": more than ", limits.max_entries, " entries"));
    }
    const std::string path = EntryPath(entry);
    const std::string reason = UnsafeReason(entry, path, SplitPath(path));
    if (!reason.empty()) {
      return Fail(CVIS_UNSAFE_ARCHIVE, Str(name, ": entry \"", path, "\" refused (", reason, ")"));
    }
  }
  if (result != ARCHIVE_EOF) {
    return Fail(CVIS_DECODE_ERROR, Str(name, ": ", archive_error_string(reader.get())));
  }
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_unzip_limits_default(cvis_unzip_limits* limits) {
  if (limits == nullptr) return;
  limits->max_total_bytes = 8ull << 30;
  limits->max_entry_bytes = 1ull << 30;
  limits->max_entries = 100000;
}

extern "C" cvis_status cvis_unzip(const char* archive_path, const char* dest_dir,
                                  const cvis_unzip_limits* limits_in, int32_t* files_written) {
  using namespace cvis;
  return Guard([&] {
    if (archive_path == nullptr || dest_dir == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_unzip: null path");
    }
    if (files_written != nullptr) *files_written = 0;
    cvis_unzip_limits limits;
    cvis_unzip_limits_default(&limits);
    if (limits_in != nullptr) limits = *limits_in;
    const std::string name = BaseName(archive_path);
    ScopedFd root(::open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root.get() < 0) {
      return Fail(CVIS_IO_ERROR, Str(dest_dir, ": cannot open destination (",
                                     std::strerror(errno), ")"));
    }
    if (cvis_status status = ScanArchive(archive_path, limits); status != CVIS_OK) return status;

    cvis_status status;
    ArchivePtr reader = OpenZip(archive_path, &status);
    if (!reader) return status;
    std::vector<char> buffer(1 << 16);
    uint64_t total_bytes = 0;
    int32_t written = 0;
    archive_entry* entry = nullptr;
    int result;
    while ((result = archive_read_next_header(reader.get(), &entry)) == ARCHIVE_OK ||
           result == ARCHIVE_WARN) {
      const std::string path = EntryPath(entry);
      const std::vector<std::string> parts = SplitPath(path);
      // Rechecked: the second read must not trust the first one's view of the archive.
      const std::string reason = UnsafeReason(entry, path, parts);
      if (!reason.empty()) {
        return Fail(CVIS_UNSAFE_ARCHIVE, Str(name, ": entry \"", path, "\" refused (", reason, ")"));
      }
      if (IsSkipped(parts) || parts.empty()) continue;
      const bool is_directory = archive_entry_filetype(entry) == AE_IFDIR;
      ScopedFd directory(OpenDirectoryChain(root.get(), parts, parts.size() - (is_directory ? 0 : 1)));
      if (directory.get() < 0) {
        return Fail(CVIS_IO_ERROR, Str(name, ": entry \"", path, "\": cannot create folder (",
                                       std::strerror(errno), ")"));
      }
      if (is_directory) continue;
      ScopedFd file(CreateFileExclusive(directory.get(), parts.back()));
      if (file.get() < 0) {
        return Fail(CVIS_IO_ERROR, Str(name, ": entry \"", path, "\": cannot create file (",
                                       std::strerror(errno), ")"));
      }
      uint64_t entry_bytes = 0;
      for (;;) {
        const la_ssize_t got = archive_read_data(reader.get(), buffer.data(), buffer.size());
        if (got == 0) break;
        if (got < 0) {
          return Fail(CVIS_DECODE_ERROR, Str(name, ": entry \"", path, "\": ",
                                             archive_error_string(reader.get())));
        }
        entry_bytes += uint64_t(got);
        total_bytes += uint64_t(got);
        if (entry_bytes > limits.max_entry_bytes || total_bytes > limits.max_total_bytes) {
          ::unlinkat(directory.get(), parts.back().c_str(), 0);  // no half-written file
          const bool entry_cap = entry_bytes > limits.max_entry_bytes;
          return Fail(CVIS_LIMIT_EXCEEDED,
                      Str(name, ": entry \"", path, "\" exceeds the ",
                          entry_cap ? "per-entry cap of " : "total cap of ",
                          entry_cap ? limits.max_entry_bytes : limits.max_total_bytes, " bytes"));
        }
        for (la_ssize_t done = 0; done < got;) {
          const ssize_t put = ::write(file.get(), buffer.data() + done, size_t(got - done));
          if (put < 0 && errno == EINTR) continue;
          if (put <= 0) {
            return Fail(CVIS_IO_ERROR, Str(name, ": entry \"", path, "\": write failed (",
                                           std::strerror(errno), ")"));
          }
          done += put;
        }
      }
      ++written;
      if (files_written != nullptr) *files_written = written;
    }
    if (result != ARCHIVE_EOF) {
      return Fail(CVIS_DECODE_ERROR, Str(name, ": ", archive_error_string(reader.get())));
    }
    return CVIS_OK;
  });
}
