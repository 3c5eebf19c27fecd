#include "version.h"

#include <tf/abi.def>

namespace tf {
namespace core {

const char tf_version[] = TF_VERSION;

std::string version_banner(const std::string &plugin, const std::string &compiler)
{
    return std::string("TF ") + tf_version + " (" + plugin + " in " + compiler +
           "), TU descriptors of TF_TU_ABI " + std::to_string(TF_TU_ABI);
}

} // namespace core
} // namespace tf
