/*
 * output.h: the files a plugin or tf-scan writes (a manifest), created as TF
 * creates every file: by runtime/files.c, the one creator, built into this
 * library (no symbolic link followed on the way, mode 0600, an existing file
 * replaced only if it is a manifest TF wrote).
 */
#ifndef TF_CORE_OUTPUT_H
#define TF_CORE_OUTPUT_H

#include <string>

namespace tf {
namespace core {

/* Writes text as the manifest at path; false with why (escaped, ready to
 * quote in a diagnostic) if it was refused or failed. */
bool write_manifest(const std::string &path, const std::string &text, std::string &why);

/* s with control characters and non-UTF-8 bytes as \xNN escapes. */
std::string escaped(const std::string &s);

} // namespace core
} // namespace tf

#endif
