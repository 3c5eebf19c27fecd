/*
 * output.cc: plugin outputs through runtime/files.c (output.h).
 */
#include "output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "escape.h"
#include "files.h"

namespace tf {
namespace core {

std::string escaped(const std::string &s)
{
    std::string out;
    for (size_t at = 0; at < s.size();) {
        char one[TF_ESC_MAX];
        size_t used = 0, k = tf__escape_char(s.data() + at, s.size() - at, one, &used, TF_ESC_FINAL);
        out.append(one, k);
        at += used;
    }
    return out;
}

static bool write_all(int fd, const std::string &text)
{
    for (size_t done = 0; done < text.size();) {
        ssize_t w = write(fd, text.data() + done, text.size() - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        done += size_t(w);
    }
    return true;
}

/* Writes text to a new file of the creator's, path.tf-PID. */
static bool write_new(const std::string &path, const std::string &text, std::string &why)
{
    char reason[TF_FILES_WHY] = "";
    int fd = tf__file_open(path.c_str(), TF_FILE_MANIFEST, 0, reason);
    if (fd < 0) {
        why = escaped(reason);
        return false;
    }
    bool ok = write_all(fd, text);
    int err = errno;
    if (close(fd) != 0 || !ok) {
        why = std::strerror(ok ? errno : err);
        return false;
    }
    return true;
}

/* Whole, never a mix: TUs compiled at once may name one manifest (-j2 with
 * the option in CFLAGS; tf_instrument gives each TU its own and merges them),
 * so the text goes to a temporary file renamed over path. path itself is
 * first checked as the creator checks it (absent, or a manifest TF wrote). */
bool write_manifest(const std::string &path, const std::string &text, std::string &why)
{
    char reason[TF_FILES_WHY] = "";
    int fd = tf__file_open(path.c_str(), TF_FILE_MANIFEST, 0, reason);
    if (fd < 0) {
        why = escaped(reason);
        return false;
    }
    close(fd);
    std::string tmp = path + ".tf-" + std::to_string(getpid());
    if (!write_new(tmp, text, why))
        return false;
    if (rename(tmp.c_str(), path.c_str()) != 0) {
        why = std::strerror(errno);
        unlink(tmp.c_str());
        return false;
    }
    return true;
}

} // namespace core
} // namespace tf
