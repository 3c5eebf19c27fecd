/*
 * output.cc: plugin outputs through runtime/files.c (output.h).
 */
#include "output.h"

#include <cerrno>
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

bool write_manifest(const std::string &path, const std::string &text, std::string &why)
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

} // namespace core
} // namespace tf
