// model.h: what the Clang side of TF knows about one translation unit.
//
// The attribute handlers and the AST consumer (analysis.cpp) fill a TuModel;
// the LLVM pass (pass.cpp) builds docs/code-shape.md from it; the manifest
// and tf-scan write it out. The model reaches the pass inside the IR: the
// front end adds a constant string with its serialisation (kModelSymbol) at
// the end of the TU, and each instrumented function carries a marker call
// (see analysis.cpp) naming its entry here, so the pass never matches
// functions by (possibly mangled) name and needs no IR value names.
#ifndef TF_CLANG_MODEL_H
#define TF_CLANG_MODEL_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "abi.h"
#include "call_sites.h"
#include "capture.h"
#include "manifest.h"
#include "names.h"
#include "size.h"

namespace llvm {
class StringRef;
}

namespace tf {

// The global through which the front end hands the TuModel to the pass: a
// weak constant string (JSON) that the pass reads and deletes.
constexpr const char *kModelSymbol = "__tf_model";

// tf_kind (core::TF_K_*), from <tf/abi.def>.
typedef core::kind Kind;

// How the pass turns the marker operand (the address of a parameter) into v.
enum Load {
  L_NONE,  // nothing
  L_INT,   // load an integer of `size` bytes, sign-extend
  L_UINT,  // load, zero-extend
  L_FP,    // load a floating value (fpBits), convert to double
  L_PTR,   // load a pointer
  L_ADDR,  // the operand itself (references, structs, `this`, __int128, complex, vectors)
  L_ZERO   // zero (pointers to members)
};

struct EnumType {
  std::string name;  // "enum color" in C, the qualified name in C++
  std::vector<std::pair<int64_t, std::string>> items;
};

struct ValueDesc {
  std::string name;   // parameter name; empty for a result
  Kind kind = core::TF_K_NONE;
  unsigned size = 0;  // sizeof the declared type
  Load load = L_NONE;
  unsigned fpBits = 0;  // 32, 64, 80 (x87), 128 (binary128)
  std::string type;     // STRUCT: its spelling; COMPLEX, VECTOR: the element code
  int enumIndex = -1;   // ENUM: index into TuModel::enums
  int capture = -1;     // PTR: index into TuModel::captures (what it points to), or -1
};

enum Role { R_MONITOR = 1, R_INFO = 2 };

struct FnDesc {
  Role role = R_MONITOR;
  std::string tracingName;
  std::string function;  // its default tracing name, for the manifest
  std::string group;     // R_MONITOR
  int tp = 0;            // R_INFO: 0 none, 1 enter, 2 exit
  std::string file;      // definition, as the compiler spells it
  unsigned line = 0;
  bool defined = false;  // has a body in this TU
  std::vector<ValueDesc> params;  // `this` first when there is one
  ValueDesc result;               // kind TF_K_NONE and load L_NONE for void
  bool isVoid = true;
  bool fromRules = false;  // monitored through the rules file
  unsigned rule = 0;       // the rules line that monitors it
  unsigned place = 0;      // rank of its location in the TU (core::fn_candidate)
  bool call = false;       // a call wrapper: monitored under its callee's name (a call site)
  core::body_size size;    // its body as written (plugin-core/size.h): the hooks' shape
};

struct GroupDecl {
  std::string name;
  std::vector<std::string> subgroups;
  std::string file;
  unsigned line = 0;
};

struct TuModel {
  std::string file;  // main input file as given
  std::string base;  // its base name without extension
  bool cplusplus = false;
  std::vector<FnDesc> functions;  // index = marker key
  std::vector<GroupDecl> decls;     // sorted by name
  std::vector<EnumType> enums;
  // For the manifest: whether a rules file applied, its min-size and the
  // functions it matched that were left plain as too small (size.h).
  bool rules = false;
  unsigned minSize = 0;
  unsigned inplaceSize = core::default_inplace_size;  // -fplugin-arg-tf-inplace-size (size.h)
  bool lightClones = true;                            // -fplugin-arg-tf-clone-opt (size.h)
  std::vector<core::manifest_small> tooSmall;
  // Call sites (plugin-core call_sites.h): whether calls were asked for, and
  // every call asked for, traced or not.
  bool calls = false;
  std::vector<core::call_site> sites;
  // Field captures: the trees the values' `capture` index, and the manifest's list.
  std::vector<core::capture_node> captures;
  std::vector<core::manifest_capture> captured;
  // With a rules file that was read: its path as given (tf-scan's questions
  // read it again), its monitor lines and those that took a function.
  std::string rulesFile;
  std::vector<unsigned> rulesMonitors, rulesChosen;
  // tf-scan only: every direct call of the TU's functions (the call graph a
  // question is answered over).
  std::vector<core::call_site> graph;
  std::vector<std::pair<std::string, std::string>> defined;  // every function with a body: name, file
  // Derived by finish(): sorted names and the groups used by monitored functions.
  core::name_table table;

  // Builds the table (plugin-core), renaming rules-file overloads in
  // `functions` (name#2); returns the clashes, as indices into functions.
  std::vector<core::name_clash> finish();
  bool empty() const { return functions.empty(); }
  // The manifest (docs/design.md .manifest): one TU as a JSON object.
  std::string manifestJson() const;
  // What the pass needs, as the front end leaves it in the IR (kModelSymbol).
  std::string serialize() const;
  static bool deserialize(llvm::StringRef text, TuModel &m);
};

// -fplugin-arg-tf-verbose=N, for the pass.
int verboseLevel();
void setVerboseLevel(int level);

}  // namespace tf

#endif
