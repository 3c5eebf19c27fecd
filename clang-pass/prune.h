// prune.h: tf-scan's static pruning (prune.cpp).
#ifndef TF_CLANG_PRUNE_H
#define TF_CLANG_PRUNE_H

#include <string>
#include <vector>

#include "model.h"

namespace tf {

// The project manifest's "rules": each line of each rules file the TUs used,
// with the definitions, call sites and captures it instruments; a call line
// that matched no call in any TU is said on stderr and counted in unmatched.
std::string rulesJson(const std::vector<TuModel> &tus, int &unmatched);

// `within F G`: the rules file that traces F and only the calls of G (a
// glob) that F reaches in the project's call graph; false and why on a bad
// question or an unknown F.
bool answer(const std::vector<TuModel> &tus, const std::string &question, std::string &out, std::string &error);

}  // namespace tf

#endif
