/*
 * version.h: the TF version both plugins report, in one place: the
 * verbose=1 banner, GCC's plugin_info, and tf_tu.version in every descriptor
 * they emit, so that libtf names the TF that built a TU it refuses.
 */
#ifndef TF_CORE_VERSION_H
#define TF_CORE_VERSION_H

#include <string>

namespace tf {
namespace core {

/* The project's version (CMake's PROJECT_VERSION), "0.1". */
extern const char tf_version[];

/* The verbose=1 banner: "TF 0.1 (tf.so in GCC 12.2.0), TU descriptors of
 * TF_TU_ABI 2". plugin is the module's name, compiler what it runs in. */
std::string version_banner(const std::string &plugin, const std::string &compiler);

} // namespace core
} // namespace tf

#endif
