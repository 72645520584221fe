// Safe zip extraction with libarchive. Captures come from untrusted phones and web uploads, so
// every entry path is checked before anything is written (no absolute paths, no "..", no links
// or devices), files are created component by component with openat(O_NOFOLLOW) below a
// directory descriptor of dest_dir (a symlink planted in dest_dir cannot redirect a write), and
// sizes are capped twice: before anything is written, by what the central directory declares
// (each entry's size, the sum, and the compression ratio, which tells a zip bomb from a capture:
// JPEG and PNG do not deflate), and while streaming, by what actually comes out (declared sizes
// in zip headers can lie). A caller may list the entries first (cvis_zip_list) and extract only
// those it chooses (cvis_unzip_entries): the caps then apply to the chosen entries alone.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <archive.h>
#include <archive_entry.h>

#include "../../include/cvis_io.h"
#include "../util/status.h"
#include "image_io.h"
#include "zip_directory.h"

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

// libarchive's message for the last failure, or a generic one when it gives none (an archive
// that ends before its central directory).
std::string ArchiveError(archive* reader) {
  const char* message = archive_error_string(reader);
  return message != nullptr && *message != 0 ? message : "not a readable zip archive (truncated?)";
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
                   Str(BaseName(path), ": ", ArchiveError(reader.get())));
    return nullptr;
  }
  *status = CVIS_OK;
  return reader;
}

// The entries to extract: every one, or those named (by their EntryPath).
class Selection {
 public:
  Selection() = default;
  Selection(const char* const* paths, int32_t count) : all_(false) {
    for (int32_t i = 0; i < count; ++i) {
      if (paths[i] != nullptr) paths_.insert(paths[i]);
    }
  }
  bool Contains(const std::string& path) const { return all_ || paths_.count(path) != 0; }

 private:
  bool all_ = true;
  std::unordered_set<std::string> paths_;
};

// Entries below this size are never judged by their compression ratio: small text files deflate
// far, and however many there are, the total cap bounds them.
constexpr uint64_t kRatioFloorBytes = 1ull << 20;

// The read block of the archive; what streaming has read of an entry can run ahead of what it
// has inflated by about this much.
constexpr size_t kReadBlockBytes = 1 << 16;

// Whether `inflated` bytes out of `compressed` exceeds the ratio cap.
bool OverRatio(uint64_t inflated, uint64_t compressed, double max_ratio) {
  return inflated > kRatioFloorBytes &&
         double(inflated) > max_ratio * double(std::max<uint64_t>(compressed, 1));
}

// Refuses the archive when the sizes its central directory declares pass a cap.
cvis_status CheckDeclaredSizes(const std::string& archive_path, const cvis_unzip_limits& limits,
                               const Selection& selection) {
  std::vector<ZipDirectoryEntry> directory;
  if (!ReadZipDirectory(archive_path, &directory)) return CVIS_OK;  // streaming still checks
  const std::string name = BaseName(archive_path);
  uint64_t total = 0;
  for (const ZipDirectoryEntry& entry : directory) {
    if (!selection.Contains(entry.name)) continue;  // never inflated
    if (entry.uncompressed_size > limits.max_entry_bytes) {
      return Fail(CVIS_LIMIT_EXCEEDED,
                  Str(name, ": entry \"", entry.name, "\" declares ", entry.uncompressed_size,
                      " bytes, over the per-entry cap of ", limits.max_entry_bytes, " bytes"));
    }
    total += entry.uncompressed_size;
    if (total > limits.max_total_bytes) {
      return Fail(CVIS_LIMIT_EXCEEDED, Str(name, ": entries declare more than the total cap of ",
                                           limits.max_total_bytes, " bytes"));
    }
    if (OverRatio(entry.uncompressed_size, entry.compressed_size, limits.max_compression_ratio)) {
      return Fail(CVIS_LIMIT_EXCEEDED,
                  Str(name, ": entry \"", entry.name, "\" would inflate ", entry.compressed_size,
                      " bytes to ", entry.uncompressed_size, ", a ratio over the cap of ",
                      limits.max_compression_ratio, " (a zip bomb?)"));
    }
  }
  return CVIS_OK;
}

// Called with each entry ScanArchive accepts that extraction would not skip, and its path.
using EntryVisitor = std::function<void(archive_entry*, const std::string&)>;

// First pass: headers only. Refuses the archive before anything is written when an entry is
// hostile, a selected entry declares a size over a cap, or the entry count is over the cap.
cvis_status ScanArchive(const std::string& archive_path, const cvis_unzip_limits& limits,
                        const Selection& selection, const EntryVisitor& visit = nullptr) {
  if (cvis_status status = CheckDeclaredSizes(archive_path, limits, selection); status != CVIS_OK) {
    return status;
  }
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
    if (selection.Contains(path) && archive_entry_size_is_set(entry) &&
        uint64_t(archive_entry_size(entry)) > limits.max_entry_bytes) {
      return Fail(CVIS_LIMIT_EXCEEDED,
                  Str(name, ": entry \"", path, "\" declares ", archive_entry_size(entry),
                      " bytes, over the per-entry cap of ", limits.max_entry_bytes, " bytes"));
    }
    const std::vector<std::string> parts = SplitPath(path);
    if (visit && !parts.empty() && !IsSkipped(parts)) visit(entry, path);
  }
  if (result != ARCHIVE_EOF) {
    return Fail(CVIS_DECODE_ERROR, Str(name, ": ", ArchiveError(reader.get())));
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
  limits->max_compression_ratio = 200.0;
}

namespace cvis {
namespace {

// The limits asked for, or the defaults; CVIS_INVALID_ARGUMENT for a ratio below 1.
cvis_status ResolveLimits(const cvis_unzip_limits* given, cvis_unzip_limits* limits) {
  cvis_unzip_limits_default(limits);
  if (given != nullptr) *limits = *given;
  if (!(limits->max_compression_ratio >= 1)) {
    return Fail(CVIS_INVALID_ARGUMENT, "cvis_unzip: max_compression_ratio must be at least 1");
  }
  return CVIS_OK;
}

// cvis_unzip of the selected entries.
cvis_status Unzip(const char* archive_path, const char* dest_dir, const cvis_unzip_limits* limits_in,
                  const Selection& selection, int32_t* files_written) {
  if (archive_path == nullptr || dest_dir == nullptr) {
    return Fail(CVIS_INVALID_ARGUMENT, "cvis_unzip: null path");
  }
  if (files_written != nullptr) *files_written = 0;
  cvis_unzip_limits limits;
  if (cvis_status status = ResolveLimits(limits_in, &limits); status != CVIS_OK) return status;
  const std::string name = BaseName(archive_path);
  ScopedFd root(::open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) {
    return Fail(CVIS_IO_ERROR, Str(dest_dir, ": cannot open destination (",
                                   std::strerror(errno), ")"));
  }
  if (cvis_status status = ScanArchive(archive_path, limits, selection); status != CVIS_OK) return status;

  cvis_status status;
  ArchivePtr reader = OpenZip(archive_path, &status);
  if (!reader) return status;
  std::vector<char> buffer(kReadBlockBytes);
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
    if (IsSkipped(parts) || parts.empty() || !selection.Contains(path)) continue;
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
    const bool size_declared = archive_entry_size_is_set(entry) != 0;
    const uint64_t declared = size_declared ? uint64_t(archive_entry_size(entry)) : 0;
    const int64_t read_before = archive_filter_bytes(reader.get(), -1);
    uint64_t entry_bytes = 0;
    for (;;) {
      const la_ssize_t got = archive_read_data(reader.get(), buffer.data(), buffer.size());
      if (got == 0) break;
      if (got < 0) {
        return Fail(CVIS_DECODE_ERROR, Str(name, ": entry \"", path, "\": ",
                                           ArchiveError(reader.get())));
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
      // The header's size and the ratio, again on what actually comes out: a header that
      // declares little cannot let a bomb through.
      if (size_declared && entry_bytes > declared) {
        ::unlinkat(directory.get(), parts.back().c_str(), 0);
        return Fail(CVIS_LIMIT_EXCEEDED, Str(name, ": entry \"", path,
                                             "\" inflates beyond the ", declared,
                                             " bytes its header declares"));
      }
      const uint64_t read = uint64_t(std::max<int64_t>(0, archive_filter_bytes(reader.get(), -1) - read_before));
      if (OverRatio(entry_bytes, read + kReadBlockBytes, limits.max_compression_ratio)) {
        ::unlinkat(directory.get(), parts.back().c_str(), 0);
        return Fail(CVIS_LIMIT_EXCEEDED,
                    Str(name, ": entry \"", path, "\" inflates more than ",
                        limits.max_compression_ratio, " times (a zip bomb?)"));
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
    return Fail(CVIS_DECODE_ERROR, Str(name, ": ", ArchiveError(reader.get())));
  }
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" cvis_status cvis_unzip(const char* archive_path, const char* dest_dir,
                                  const cvis_unzip_limits* limits, int32_t* files_written) {
  return cvis::Guard([&] { return cvis::Unzip(archive_path, dest_dir, limits, cvis::Selection(), files_written); });
}

extern "C" cvis_status cvis_unzip_entries(const char* archive_path, const char* dest_dir,
                                          const cvis_unzip_limits* limits, const char* const* paths,
                                          int32_t count, int32_t* files_written) {
  using namespace cvis;
  return Guard([&] {
    if (count < 0 || (count > 0 && paths == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_unzip_entries: no paths");
    }
    return Unzip(archive_path, dest_dir, limits, Selection(paths, count), files_written);
  });
}

extern "C" cvis_status cvis_zip_list(const char* archive_path, const cvis_unzip_limits* limits_in,
                                     cvis_zip_visitor visit, void* user_data) {
  using namespace cvis;
  return Guard([&] {
    if (archive_path == nullptr || visit == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_zip_list: null argument");
    cvis_unzip_limits limits;
    if (cvis_status status = ResolveLimits(limits_in, &limits); status != CVIS_OK) return status;
    // Only the headers are judged here: the chosen entries' sizes are checked when they are unpacked.
    Selection none(nullptr, 0);
    return ScanArchive(archive_path, limits, none, [&](archive_entry* entry, const std::string& path) {
      cvis_zip_entry listed{};
      listed.path = path.c_str();
      listed.size_known = archive_entry_size_is_set(entry) ? 1 : 0;
      listed.size = listed.size_known ? uint64_t(std::max<la_int64_t>(0, archive_entry_size(entry))) : 0;
      listed.is_directory = archive_entry_filetype(entry) == AE_IFDIR ? 1 : 0;
      visit(&listed, user_data);
    });
  });
}
